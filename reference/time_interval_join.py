"""Flink SQL's interval join: `RowTimeIntervalJoin` (`TimeIntervalJoin`, `org.apache.flink.table.runtime.operators.
join.interval`) in `KeyedCoProcessOperator`, as Flink 2.3 runs

    SELECT ... FROM l [LEFT | RIGHT | FULL] JOIN r ON l.k = r.k AND l.rowtime BETWEEN r.rowtime + lower AND
    r.rowtime + upper

for one parallel instance, with the planner's arguments (`StreamExecIntervalJoin`: `allowedLateness` 0,
`table.exec.interval-join.min-cleanup-interval` 0). How the rules follow from the code:

- Sizes: `leftRelativeSize = -lower`, `rightRelativeSize = upper`. A left row at `tl` joins the cached right rows at
  `tr` in `[tl - rightRelativeSize, tl + leftRelativeSize]`, a right row the cached left ones symmetrically.
- Operator time (`RowTimeIntervalJoin.updateOperatorTime`): the operator's watermark (its two inputs' combined), or
  0 while that is negative, the same for both inputs.
- A left row (`processElement1`): when `rightExpirationTime < tl + leftRelativeSize`, `rightExpirationTime` becomes
  `operatorTime - rightRelativeSize - 1` (`calExpirationTime`; `Long.MAX_VALUE` at the end of input) and one pass
  over the whole right cache joins the rows in bounds (marking them joined) and removes those at or before the
  expiration time, padding never-joined ones with nulls in a right or full join: a padded row can come at a record.
  The row is then cached when `operatorTime < tl + leftRelativeSize`, registering the cleanup timer
  `tl + leftRelativeSize + 1` only if none is pending for that cache; otherwise a row that joined nothing is padded
  at once in a left or full join (a row behind the watermark still joins what is cached: nothing is dropped).
  A right row is symmetric. The two expiration times are fields of the function: one for all keys.
- The cleanup timer (`onTimer`): the pending timer of a cache, when it is this one, removes that cache's rows at
  or before the expiration time, padding never-joined ones, and registers one timer for the earliest row left
  (`removeExpiredRows`); when no row is left, or the earliest is not positive (its `earliestTimestamp > 0` test,
  the earliest found in the cache's iteration order with `-1` for none), the whole cache and its timer are cleared,
  rows included, without padding.
- Output timestamps (`KeyedCoProcessOperator`): a row emitted at a record has the record's (the table's rows reach
  the join without one, so none); a row emitted on a timer has the timer's time.
- The caches are `MapState<Long, List<...>>` on the heap: a `java.util.HashMap`, iterated bucket by bucket
  (`Long.hashCode`, spread, masked by a table of 16 doubled while more than three quarters full) and within a
  bucket in insertion order (`JavaLongHashMap`); only the rows the earliest-row test meets first depend on it.
"""

from __future__ import annotations

from collections.abc import Callable

from reference.dialects import FLINK, Dialect
from reference.javalong import ladd, lsub
from reference.timers import InternalTimer, InternalTimerService
from reference.two_input import TwoInputStreamOperator
from window_contract.facts import LONG_MAX
from window_contract.java_hash import spread

#: Where a joined row goes: key, left value or None, right value or None, the output record's timestamp or None.
Collect = Callable[[str, int | None, int | None, int | None], None]
#: Where a row dropped as late goes: side, key, value, timestamp.
Drop = Callable[[str, str, int, int], None]
TIMER = "interval-join"


class JavaLongHashMap:
    """The iteration order of a `java.util.HashMap<Long, V>`: its keys by bucket, then by insertion (a table of 16
    buckets, doubled when more than three quarters full, never shrunk; bins of 8 or more, made trees, not modelled)."""

    def __init__(self) -> None:
        self.entries: dict[int, list[list]] = {}
        self.buckets = 16

    def put(self, time: int, rows: list[list]) -> None:
        if time not in self.entries and len(self.entries) + 1 > self.buckets * 3 // 4:
            self.buckets *= 2
        self.entries[time] = rows

    def iterate(self) -> list[int]:
        mask = (1 << 64) - 1
        return sorted(self.entries, key=lambda t: spread(((t & mask) ^ ((t & mask) >> 32)) & 0xFFFFFFFF)
                      & (self.buckets - 1))


class TimeIntervalJoin:
    """`RowTimeIntervalJoin` of one join type: `outer` says which sides an outer join pads. The `dialect`'s
    `sql_interval_join_drops_late_rows` drops a row behind the watermark to `drop`, its `sql_rows_evicted` evicts by
    the watermark instead of by cleanup timers (`reference.dialects.joins`)."""

    def __init__(self, lower: int, upper: int, join_type: str, collect: Collect, drop: Drop | None = None,
                 dialect: Dialect = FLINK) -> None:
        self.left_relative_size, self.right_relative_size = -lower, upper
        self.left_outer, self.right_outer = join_type in ("left", "full"), join_type in ("right", "full")
        self.collect, self.drop, self.dialect = collect, drop, dialect
        self.left_expiration_time = self.right_expiration_time = 0
        self.operator_time = 0
        self.caches: dict[tuple[str, str], JavaLongHashMap] = {}
        #: `leftTimerState` / `rightTimerState` per key: the pending cleanup timer of the right / left cache.
        self.timer_states: dict[tuple[str, str], int] = {}

    def cache(self, side: str, key: str) -> JavaLongHashMap:
        return self.caches.setdefault((side, key), JavaLongHashMap())

    def update_operator_time(self, watermark: int) -> None:
        self.operator_time = watermark if watermark > 0 else 0

    def process_element(self, side: str, key: str, value: int, time: int, timers: InternalTimerService) -> None:
        """`processElement1` (a left row) / `processElement2` (a right one)."""
        self.update_operator_time(timers.current_watermark)
        if self.dialect.sql_interval_join_drops_late_rows and self.dialect.is_late(time, timers.current_watermark):
            self.drop(side, key, value, time)
            return
        other = "right" if side == "left" else "left"
        own_size, other_size = ((self.left_relative_size, self.right_relative_size) if side == "left"
                                else (self.right_relative_size, self.left_relative_size))
        lower, upper = lsub(time, other_size), ladd(time, own_size)
        if self.dialect.sql_rows_evicted == "watermark":
            self.join_until_watermark_passes(side, key, value, time, lower, upper, timers.current_watermark)
            return
        emitted = False
        if self.expiration_time(other) < upper:
            self.set_expiration_time(other, self.cal_expiration_time(other_size))
            cache = self.cache(other, key)
            for other_time in cache.iterate():
                rows = cache.entries[other_time]
                if lower <= other_time <= upper:
                    for row in rows:
                        self.emit(side, key, value, row[0], None)
                        emitted, row[1] = True, True
                if other_time <= self.expiration_time(other):
                    self.pad_unjoined(other, key, rows, None)
                    del cache.entries[other_time]
        if self.operator_time < upper:
            cache = self.cache(side, key)
            cache.put(time, [*cache.entries.get(time, []), [value, emitted]])
            if (other, key) not in self.timer_states:  # the pending timer of this cache
                self.register_cleanup_timer(side, key, time, timers)
        elif not emitted and self.is_outer(side):
            self.emit_padded(side, key, value, None)

    def join_until_watermark_passes(self, side: str, key: str, value: int, time: int, lower: int, upper: int,
                                    watermark: int) -> None:
        """`sql_rows_evicted="watermark"`: join the other side's cached rows in bounds, and cache the row until the
        watermark passes `upper`, its last partner's time (`evict_passed`)."""
        other, emitted = ("right" if side == "left" else "left"), False
        cache = self.cache(other, key)
        for other_time in cache.iterate():
            if lower <= other_time <= upper:
                for row in cache.entries[other_time]:
                    self.emit(side, key, value, row[0], None)
                    emitted, row[1] = True, True
        if upper >= watermark:
            own = self.cache(side, key)
            own.put(time, [*own.entries.get(time, []), [value, emitted]])
        elif not emitted and self.is_outer(side):
            self.emit_padded(side, key, value, None)

    def evict_passed(self, watermark: int) -> None:
        """`sql_rows_evicted="watermark"`: every cached row whose last partner's time lies behind `watermark` goes,
        padded if it never joined."""
        for (side, key), cache in self.caches.items():
            size = self.left_relative_size if side == "left" else self.right_relative_size
            for time in list(cache.iterate()):
                if ladd(time, size) < watermark:
                    self.pad_unjoined(side, key, cache.entries.pop(time), None)

    def on_timer(self, key: str, timestamp: int, timers: InternalTimerService) -> None:
        """`onTimer`: the cache whose pending timer this is loses its expired rows."""
        self.update_operator_time(timers.current_watermark)
        for side, other_size in (("right", self.right_relative_size), ("left", self.left_relative_size)):
            owner = "left" if side == "right" else "right"  # `leftTimerState` guards the right cache
            if self.timer_states.get((owner, key)) == timestamp:
                self.set_expiration_time(side, self.cal_expiration_time(other_size))
                self.remove_expired_rows(side, key, owner, timestamp, timers)

    def remove_expired_rows(self, side: str, key: str, owner: str, timestamp: int,
                            timers: InternalTimerService) -> None:
        cache, earliest = self.cache(side, key), -1
        for time in cache.iterate():
            if time <= self.expiration_time(side):
                self.pad_unjoined(side, key, cache.entries.pop(time), timestamp)
            elif time < earliest or earliest < 0:
                earliest = time
        if earliest > 0:
            self.register_cleanup_timer(side, key, earliest, timers)
        else:
            del self.timer_states[owner, key]
            del self.caches[side, key]

    def register_cleanup_timer(self, side: str, key: str, time: int, timers: InternalTimerService) -> None:
        """`registerCleanUpTimer`: a left row's at `time + leftRelativeSize + 1`, kept in `rightTimerState`."""
        size = self.left_relative_size if side == "left" else self.right_relative_size
        cleanup = ladd(ladd(time, size), 1)
        timers.event_time_timers.add(cleanup, key, TIMER)
        self.timer_states["right" if side == "left" else "left", key] = cleanup

    def cal_expiration_time(self, relative_size: int) -> int:
        if self.operator_time < LONG_MAX:
            return lsub(lsub(self.operator_time, relative_size), 1)
        return LONG_MAX

    def expiration_time(self, side: str) -> int:
        return self.left_expiration_time if side == "left" else self.right_expiration_time

    def set_expiration_time(self, side: str, time: int) -> None:
        if side == "left":
            self.left_expiration_time = time
        else:
            self.right_expiration_time = time

    def is_outer(self, side: str) -> bool:
        return self.left_outer if side == "left" else self.right_outer

    def pad_unjoined(self, side: str, key: str, rows: list[list], timestamp: int | None) -> None:
        if self.is_outer(side):
            for value, joined in rows:
                if not joined:
                    self.emit_padded(side, key, value, timestamp)

    def emit(self, side: str, key: str, value: int, other: int, timestamp: int | None) -> None:
        left, right = (value, other) if side == "left" else (other, value)
        self.collect(key, left, right, timestamp)

    def emit_padded(self, side: str, key: str, value: int, timestamp: int | None) -> None:
        self.collect(key, value if side == "left" else None, value if side == "right" else None, timestamp)


class KeyedCoProcessOperator(TwoInputStreamOperator):
    """The operator around the function: its timers (one per key and time, fired in time order as the combined
    watermark rises) and the two inputs' watermarks combined."""

    def __init__(self, function: TimeIntervalJoin, input_watermark: Callable[[int], None],
                 dialect: Dialect = FLINK) -> None:
        super().__init__(input_watermark, dialect)
        self.function = function

    def process_element(self, side: str, key: str, value: int, timestamp: int) -> None:
        self.function.process_element(side, key, value, timestamp, self.timers)

    def advance_watermark(self, watermark: int) -> None:
        super().advance_watermark(watermark)
        if self.dialect.sql_rows_evicted == "watermark":
            self.function.evict_passed(watermark)

    def on_event_time(self, timer: InternalTimer) -> None:
        time, key, _ = timer
        self.function.on_timer(key, time, self.timers)

"""An interval join on stream time: the rules by which a join that has no watermark (Kafka Streams' `KStream#join`,
`leftJoin`, `outerJoin` with `JoinWindows`, `KStreamKStreamJoin` and its window stores, 4.4) joins the same two
inputs, for the dialect switch `join_time = "stream_time"` (`reference.dialects.joins`).

How the rules follow from the join's classes:

- The bounds are a window around each record: `before` and `after` (`JoinWindows.beforeMs`, `afterMs`). A left
  record at `t` joins the right records at `[t - before, t + after]`, a right one the left records at
  `[t - after, t + before]` (`KStreamKStreamJoinRightSide` swaps them). Flink's `between(lower, upper)` is `before =
  -lower`, `after = upper`, its exclusive bounds moved by one first (there are none: `upper - 1` is what a user
  writes); Flink SQL's `l.rt BETWEEN r.rt + lower AND r.rt + upper` is `before = upper`, `after = -lower`. The
  window is checked as the user writes it, exclusive bounds moved: `before + after` must not be negative (Flink
  checks the raw bounds, `lower <= upper`). With `from_zero` (the switch `join_range_from_zero`), both ends of the
  looked-up range are clamped at 0 (`Math.max(0L, t - before)`, `Math.max(0L, t + after)`, in Java `long`s), so a
  record whose range lies wholly before 0 finds the other input's records at 0.
- The join's clock is its *stream time*: the largest timestamp it has processed on either input
  (`KStreamImplJoin.TimeTracker.advanceStreamTime`), moved by every record before it is joined. There is no
  watermark: a case's `Watermark(w)` on an input is a heartbeat record at `w + 1` on that input, on a key of its own
  (its outputs are left out), at most the end of time, `Long.MAX_VALUE - max(0, before, after)` (the largest
  timestamp whose range does not overflow); the end of input is a heartbeat on each input at the end of time.
  Statuses and channel ends move nothing. The observation's watermark is stream time `s` read as `Watermark(s - 1)`
  (the heartbeat's mapping backwards), received at the event that moved it.
- No record is late: each is joined with what the other input's store still holds, whatever stream time is. Each
  input's store (an in-memory window store, `InMemoryWindowStore`, of retention `before + after + grace`, the grace
  0) has its own observed time, the largest timestamp put into it (that input's records and heartbeats): a record
  at `t` is put after it is joined, unless `t <= observed - retention`, and is found while `t > observed -
  retention` (`fetch` starts at `observed - retention + 1`). A window of 0 (`before + after == 0`) keeps nothing,
  so nothing joins.
- A pair's record has timestamp `max(t, other)` (`emitInnerJoin`), a SQL row too (Flink SQL's rows at a record have
  none).
- An outer side's record that joins nothing when it arrives (`leftJoin`: the left input; `outerJoin`: both) is
  padded at once, with its own timestamp, when the end of its range already lies behind stream time (`t + after <
  streamTime`); otherwise it is held in the outer store, keyed by (timestamp, side, key), and its timestamp lowers
  the tracker's `minTime`. A later partner deletes it (`emitInnerJoin`'s `putIfAbsent(otherKey, null)`). A record
  at stream time (`t == streamTime`, after the advance) first pads the held records whose window has closed
  (`emitNonJoinedOuterRecords`): nothing unless `minTime + after(its input) + grace < streamTime`; then, in the
  store's order, each held record whose `t + after(its side) + grace < streamTime` is padded with its own
  timestamp and deleted, `minTime` following the timestamps visited, until both sides have met one still open (the
  emit interval, `__emit.interval.ms.kstreams.outer.join.spurious.results.fix__`, is 0: see
  docs/engines/kafka-streams.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from reference.errors import InvalidSpec
from reference.javalong import LONG_MAX, LONG_MIN, ladd, lsub, wrap
from window_contract.case import Record, Watermark
from window_contract.join_case import IntervalJoin, JoinCase, SqlIntervalJoin
from window_contract.join_observation import SIDES, JoinObservation, Side
from window_contract.observation import Error

#: `JoinWindows`' check, in the model's words for the rule `join.bounds` (Kafka's own are its divergence list's).
WINDOW_MESSAGE = "before + after must not be negative"
#: The key of a heartbeat record, which no record of a case has.
HEARTBEAT = None
#: `JoinWindows.ofTimeDifferenceWithNoGrace`: the case's watermarks are heartbeats, not a grace period.
GRACE = 0


@dataclass(frozen=True)
class JoinWindow:
    """`JoinWindows`: a left record at `t` joins the right ones at `[t - before, t + after]`."""

    before: int
    after: int

    @staticmethod
    def of(case: JoinCase) -> JoinWindow:
        join = case.join
        if isinstance(join, IntervalJoin):
            lower = ladd(join.lower, 1) if join.lower_exclusive else join.lower
            upper = lsub(join.upper, 1) if join.upper_exclusive else join.upper
            window = JoinWindow(wrap(-lower), upper)
        else:
            window = JoinWindow(join.upper, wrap(-join.lower))
        if ladd(window.before, window.after) < 0:
            raise InvalidSpec(WINDOW_MESSAGE, "join.bounds")
        return window

    def look_back(self, side: Side) -> int:
        """How far before its own timestamp a record of `side` looks (`joinBeforeMs` of its processor)."""
        return self.before if side == "left" else self.after

    def look_ahead(self, side: Side) -> int:
        """How far after its own timestamp a record of `side` looks (`joinAfterMs` of its processor)."""
        return self.after if side == "left" else self.before

    @property
    def retention(self) -> int:
        return ladd(ladd(self.before, self.after), GRACE)

    @property
    def end_of_time(self) -> int:
        """The largest timestamp a heartbeat carries: no `t + before` nor `t + after` overflows."""
        return LONG_MAX - max(0, self.before, self.after)

    def heartbeat(self, watermark: int) -> int:
        """The timestamp of the heartbeat for `Watermark(watermark)`: `watermark + 1`, at most the end of time."""
        return self.end_of_time if watermark >= self.end_of_time else watermark + 1


@dataclass
class WindowStore:
    """One input's `InMemoryWindowStore` (retain duplicates): key -> [(timestamp, value)] in insertion order."""

    retention: int
    observed: int = -1  # ConsumerRecord.NO_TIMESTAMP
    records: dict[object, list[tuple[int, int]]] = field(default_factory=dict)

    def put(self, key: object, value: int, timestamp: int) -> None:
        self.observed = max(self.observed, timestamp)
        if timestamp > lsub(self.observed, self.retention):
            self.records.setdefault(key, []).append((timestamp, value))

    def fetch(self, key: object, time_from: int, time_to: int) -> list[tuple[int, int]]:
        """The records of `key` in `[time_from, time_to]` not yet expired, by timestamp."""
        low = max(time_from, ladd(lsub(self.observed, self.retention), 1))
        return sorted((r for r in self.records.get(key, []) if low <= r[0] <= time_to), key=lambda r: r[0])


class StreamTimeJoin:
    """`KStreamKStreamJoin`'s two processors over their stores and the shared `TimeTracker` (module docstring).
    `outer[side]`: that input is an outer side; `from_zero`: the looked-up range is clamped at 0. Each output goes to
    `emit(key, left, right, timestamp, watermark)` (a padded side `None`); `watermark(w)` hears each move of the
    clock, read as a watermark."""

    def __init__(self, window: JoinWindow, outer: dict[Side, bool], from_zero: bool,
                 emit: Callable[[object, int | None, int | None, int, int], None],
                 watermark: Callable[[int], None]) -> None:
        self.window, self.outer, self.from_zero, self.emit, self.watermark = window, outer, from_zero, emit, watermark
        self.stores = {side: WindowStore(window.retention) for side in SIDES}
        self.stream_time = -1  # ConsumerRecord.NO_TIMESTAMP
        self.min_time = LONG_MAX
        #: (timestamp, side, key) -> values: the outer store, in its serialized order (timestamp, right before left).
        self.held: dict[tuple[int, int, object], list[int]] = {}

    @property
    def current_watermark(self) -> int:
        return LONG_MIN if self.stream_time < 0 else self.stream_time - 1

    def process(self, side: Side, key: object, value: int, timestamp: int) -> None:
        """`KStreamJoinWindow` forwards the record to the join (`KStreamKStreamJoin.process`), then stores it."""
        if timestamp > self.stream_time:
            self.stream_time = timestamp
            self.watermark(self.current_watermark)
        if self.outer_store and timestamp == self.stream_time:
            self.emit_non_joined(side)
        other: Side = "right" if side == "left" else "left"
        time_from, time_to = lsub(timestamp, self.window.look_back(side)), ladd(timestamp, self.window.look_ahead(side))
        if self.from_zero:
            time_from, time_to = max(0, time_from), max(0, time_to)
        partners = self.stores[other].fetch(key, time_from, time_to)
        for other_timestamp, other_value in partners:
            self.held.pop(_held_key(other_timestamp, other, key), None)
            left, right = (value, other_value) if side == "left" else (other_value, value)
            self.emit(key, left, right, max(timestamp, other_timestamp), self.current_watermark)
        if not partners and self.outer[side]:
            if time_to < self.stream_time:
                self.pad(side, key, value, timestamp)
            else:
                self.min_time = min(self.min_time, timestamp)
                self.held.setdefault(_held_key(timestamp, side, key), []).append(value)
        self.stores[side].put(key, value, timestamp)

    @property
    def outer_store(self) -> bool:
        return any(self.outer.values())

    def emit_non_joined(self, side: Side) -> None:
        """`emitNonJoinedOuterRecords`: pad the held records whose window has closed (module docstring)."""
        if ladd(ladd(self.min_time, self.window.look_ahead(side)), GRACE) >= self.stream_time:
            return
        self.min_time = LONG_MAX
        open_sides: set[Side] = set()
        for held in sorted(self.held, key=lambda k: (k[0], k[1], _key_order(k[2]))):
            timestamp, flag, key = held
            self.min_time = timestamp
            if len(open_sides) == 2:
                break
            held_side: Side = "left" if flag else "right"
            if ladd(ladd(timestamp, self.window.look_ahead(held_side)), GRACE) >= self.stream_time:
                open_sides.add(held_side)
                continue
            for value in self.held.pop(held):
                self.pad(held_side, key, value, timestamp)

    def pad(self, side: Side, key: object, value: int, timestamp: int) -> None:
        left, right = (value, None) if side == "left" else (None, value)
        self.emit(key, left, right, timestamp, self.current_watermark)


def _held_key(timestamp: int, side: Side, key: object) -> tuple[int, int, object]:
    """`TimestampedKeyAndJoinSide`'s serialized order: the timestamp, then the side (right 0, left 1), then the key."""
    return timestamp, 1 if side == "left" else 0, key


def _key_order(key: object) -> bytes:
    return b"" if key is HEARTBEAT else str(key).encode("utf-8")


class Collector(Protocol):
    """Where the join's outputs go, stamped with the position `at` of the event being processed
    (`reference.joins.IntervalJoinCollector`)."""

    at: int

    def pair(self, key: str, left: int, right: int, timestamp: int, watermark: int) -> None: ...
    def interval_row(self, key: str, left: int | None, right: int | None, timestamp: int | None) -> None: ...
    def input_watermark(self, watermark: int) -> None: ...
    def observation(self, error: Error | None = None) -> JoinObservation: ...


def simulate_stream_time_join(case: JoinCase, collector: Collector, from_zero: bool = False) -> JoinObservation:
    """What the join of `case` gives on stream time (module docstring), into `collector`: an interval join's pairs, or
    Flink SQL's interval join's rows (`None` for a padded side); `from_zero` as `StreamTimeJoin`'s."""
    try:
        window = JoinWindow.of(case)
    except InvalidSpec as e:
        return JoinObservation(error=Error("invalid_spec", str(e), e.rules))
    sql = isinstance(case.join, SqlIntervalJoin)
    kind = case.join.type if sql else "inner"
    outer: dict[Side, bool] = {"left": kind in ("left", "full"), "right": kind in ("right", "full")}

    def emit(key: object, left: int | None, right: int | None, timestamp: int, watermark: int) -> None:
        if key is HEARTBEAT:
            return
        if sql:
            collector.interval_row(key, left, right, timestamp)
        else:
            collector.pair(key, left, right, timestamp, watermark)

    join = StreamTimeJoin(window, outer, from_zero, emit, collector.input_watermark)
    for at, e in enumerate(case.events):
        collector.at = at
        if isinstance(e.event, Record):
            join.process(e.input, e.event.key, e.event.value, e.event.ts)
        elif isinstance(e.event, Watermark):
            join.process(e.input, HEARTBEAT, 0, window.heartbeat(e.event.timestamp))
    collector.at = len(case.events)
    if case.end_of_input:
        for side in SIDES:
            join.process(side, HEARTBEAT, 0, window.end_of_time)
    return collector.observation()

"""Dialects: the model with some of Flink's rules switched to another engine's.

An engine under test differs from Flink in listed ways (its divergences, `conformance/divergences.py`);
those that are a rule of window semantics are a switch here, named for the rule it changes. A `Dialect` is
a set of switches, `FLINK` none of them: `simulate(case, dialect=...)` (`reference.implementation`) then
predicts what such an engine emits, and the suite says of a difference between an engine and Flink which of
its divergences explain it. A dialect describes another engine and is checked against it (its divergence
cases, `tests/test_divergences.py`); it never answers for it in a run.

Each switch overrides one method of the model (a mixin of the operator, a trigger class, the collector, the
watermark the operator receives), so that Flink's own path is the model unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from math import gcd
from typing import Literal

from reference.assigners import (
    RecentWindows,
    SessionWindows,
    SlidingWindows,
    TumblingWindows,
    element_time,
    sliding_rules,
)
from reference.errors import InvalidSpec, JobFailure
from reference.javalong import l2i, labs, ladd, ldiv, lsub
from reference.operator import Context, EvictingWindowOperator
from reference.output import Collector
from reference.triggers import ContinuousEventTimeTrigger, Trigger, TriggerResult
from reference.windows import TimeWindow, get_window_start_with_offset, merge_windows
from window_contract import case
from window_contract.facts import LONG_MAX, LONG_MIN, MAX_WINDOW_NUM, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.java_hash import hash_set_order


@dataclass(frozen=True)
class Dialect:
    """The rules of the model an engine changes; every default is Flink's."""

    #: `TimeWindow.intersects` merges sessions that touch (`[0, 5)` and `[5, 10)`); False: only sessions
    #: that overlap merge.
    sessions_merge_when_touching: bool = True
    #: `WindowOperator` cleans a window up, and drops what comes for it, once the watermark reaches its
    #: cleanup time, `maxTimestamp + allowedLateness`; True: only once the watermark has passed it.
    drop_when_past_cleanup_strictly: bool = False
    #: A merging assigner merges the element's window first, and the merged window decides lateness; False:
    #: the element's own window decides, before any merge (a late element never joins a live session).
    merges_before_lateness: bool = True
    #: A firing carries `window.maxTimestamp()`; "trigger_time": the timestamp of the record, or the time of
    #: the timer, whose processing fired the window; "max_record_timestamp": the largest timestamp of the
    #: records the window holds; "window_start": the window's start (Quix Streams' `Window.final`).
    firing_timestamp: Literal["max_timestamp", "trigger_time", "max_record_timestamp", "window_start"] = \
        "max_timestamp"
    #: The timestamp of a firing of the global window (its `maxTimestamp()`, `Long.MAX_VALUE`, in Flink).
    global_window_timestamp: int = LONG_MAX
    #: Java `long`: `maxTimestamp + allowedLateness` saturates (the cleanup time) or wraps (an element's
    #: lateness, a merge's check), and a sliding assigner's `start -= slide` wraps past `Long.MIN_VALUE`;
    #: "unbounded": integers that never overflow, in the operator and the assigners (PyFlink's Python classes).
    long_arithmetic: Literal["java", "unbounded"] = "java"
    #: `ContinuousEventTimeTrigger` aligns its first fire time with Java's truncating `%`; "floor": with a
    #: floor modulo (negative timestamps align down, an interval of 0 fails in Python's words).
    remainder: Literal["truncating", "floor"] = "truncating"
    #: What a watermark generator's output gains before the operator receives it (an engine whose watermark
    #: is `max - bound` where Flink's generator gives `max - bound - 1`: 1).
    generated_watermark_offset: int = 0
    #: A watermark generator's watermark reaches the operator as the generator makes it, a millisecond at a time;
    #: "session_gap_hundredth": for session windows, rounded down to a stride of `gap / 100` (1 to 100) and sent
    #: on only when that raises it (Hazelcast Jet's planner throttles a source's watermarks to the windows'
    #: `preferredWatermarkStride`: `floorFrameTs(max - lag)`; a tumbling or sliding window's stride, its slide,
    #: changes nothing, as its windows end on the slide's multiples).
    generated_watermark_stride: Literal["millisecond", "session_gap_hundredth"] = "millisecond"
    #: A window fires, and turns late, when the watermark reaches its `maxTimestamp` (`end - 1`); "end":
    #: only when it reaches the window's end.
    windows_close_at: Literal["max_timestamp", "end"] = "max_timestamp"
    #: The operator's watermark before the first one arrives (`Long.MIN_VALUE` in Flink).
    initial_watermark: int = LONG_MIN
    #: A trigger's reducing state (`CountTrigger`'s count, a continuous trigger's next fire time) merges by
    #: reducing (`mergePartitionedState`); "first_of_bag": a bag of the merged windows' values whose value is
    #: its first, the merged window's own or else the first merged window's in the JVM's `HashSet` order (a
    #: PyFlink job's reducing state, kept in the JVM's list state).
    trigger_state_merges: Literal["reduce", "first_of_bag"] = "reduce"
    #: `WindowOperator.clearAllState` clears a window's contents and retires a merging one from its
    #: `MergingWindowSet`; True: a merging window's contents and its place in the set outlive its cleanup (the
    #: trigger's state and timers go), so a later element can merge into it and fire it again with them (Beam's
    #: direct runner keeps an expired session's state in its active window set).
    merging_windows_outlive_cleanup: bool = False
    #: Only watermarks move the operator's watermark; True, in a case that lists its watermarks: a record
    #: moves it too, to the record's timestamp less one, once the operator has taken the record (as a
    #: punctuated `forMonotonousTimestamps()` would beside the listed watermarks: a stream time that is the
    #: largest timestamp seen, for every key: Kafka Streams).
    records_advance_watermark: bool = False
    #: `SlidingEventTimeWindows` gives a record every window that holds it; True: only those that start at 0
    #: or later (Kafka Streams' `TimeWindows.windowsFor`).
    sliding_windows_from_zero: bool = False
    #: `TumblingEventTimeWindows` and `SlidingEventTimeWindows` with an offset align windows on it on both sides;
    #: True: with an offset other than 0, no window starts before the offset (Pathway's `origin`: windows whose
    #: `_pw_window_start` is below it are left out), and a record before it is in no window.
    windows_start_from_offset: bool = False
    #: `WindowOperator` drops a record that no window took when it is late (`isSkippedElement && isElementLate`);
    #: False: such a record is never late, it vanishes (Pathway, which windows it nowhere and drops nothing), and
    #: with `records_advance_watermark` does not move the time either.
    late_when_in_no_window: bool = True
    #: A session fires as `[first, last + gap)`; "last_record": as `[first, last + 1)`, its records' first and
    #: last timestamps (Kafka Streams' `SessionWindow`, both ends inclusive); merging is unchanged.
    session_window_end: Literal["gap_after_last", "last_record"] = "gap_after_last"
    #: A session window is late once the watermark reaches its cleanup time; True: once the watermark has
    #: passed it, while it still fires and is cleaned up when the watermark reaches it (Kafka Streams' session
    #: aggregate and `suppress`).
    session_late_strictly: bool = False
    #: The trigger decides when a window fires; "every_update": every element a window takes fires it with its
    #: contents so far, and nothing else does (Kafka Streams without `suppress`).
    #: "every_session_update": a session window fires so at every element it takes, is never late and never
    #: cleaned up, whatever the watermark; tumbling and sliding windows fire on their trigger (Pathway's `session`
    #: windows, which `windowby` builds without its behavior).
    emits: Literal["on_trigger", "every_update", "every_session_update"] = "on_trigger"
    #: A record goes to each of its windows that is not late, and is a late record only when every one of them
    #: was late; "behind_watermark": a record behind the watermark (`timestamp + allowedLateness <= watermark`)
    #: is late whatever its windows (Bytewax); "any_window": a tumbling or sliding window's record is a late
    #: record (once) when at least one of its windows is late, and still goes to every other (Quix Streams'
    #: `on_late`, called for each late window); "earliest_window": a tumbling or sliding window's record whose
    #: earliest window is late goes to none of its windows and is late (Hazelcast Jet's `SlidingWindowP`, which
    #: takes no "partially late" event); a session's record as in Flink.
    late_records: Literal["per_window", "behind_watermark", "any_window", "earliest_window"] = "per_window"
    #: The operator's watermark holds for every key; "key": each key has a watermark of its own, from a
    #: generator that sees only its records (listed watermarks still reach every key) (Bytewax's clocks).
    watermark_scope: Literal["operator", "key"] = "operator"
    #: A key's state lives as long as the job; True: a key that holds no window after an event that reached it
    #: is discarded with its watermark, and starts again from `Long.MIN_VALUE` and the watermarks it is sent
    #: next; a session assigner keeps its keys (Bytewax's `_WindowLogic._is_empty`).
    key_state_discarded_when_empty: bool = False
    #: A session fires, is cleaned up and turns late when the watermark reaches its `maxTimestamp`; "end": when
    #: it reaches the session's end, one millisecond later (Bytewax's `_SessionWindowerLogic.close_for`);
    #: "gap_after_end": it fires and is cleaned up when the watermark reaches its end plus a gap (`last + 2 *
    #: gap`), and a record is late when the watermark has reached the end of its own session `[ts, ts + gap)`,
    #: before any merge (Quix Streams' `SessionWindow`: late below `time - gap - grace`, closed once `last + 1 +
    #: 2 * gap + grace <= time`).
    session_fires_at: Literal["max_timestamp", "end", "gap_after_end"] = "max_timestamp"
    #: A tumbling or sliding window fires and is cleaned up when the watermark reaches its `maxTimestamp`, and is
    #: late from then on; "last_expired_grid": as Quix Streams' partition closing strategy, no timer: the
    #: operator keeps `E`, the last window end it expired (0: none yet), on the grid of the slide (the size of a
    #: tumbling window). When the watermark reaches `W`, with `M = W + 1` (the largest timestamp less the grace,
    #: the generator's bound; at the end of input the largest timestamp plus the size), it expires the windows
    #: whose end is on the grid after `E` up to `M` (where `E` is 0: every window ending at or below `M` rounded
    #: down to the grid), and `E` becomes the last grid point it listed; a window whose end is off the grid (a size
    #: no multiple of the slide) so never expires once `E` is set. A record's window is late when its end is at
    #: most `max(ts, E) - grace`, and a window that is not late goes on taking records, fired or not: one
    #: expired less than a grace ago takes the record into state that never fires (`windows_to_expire`,
    #: `FixedTimeWindow.process_window`).
    window_expiry: Literal["cleanup_timer", "last_expired_grid"] = "cleanup_timer"
    #: Event time ends at `Long.MAX_VALUE` (a bounded input's last watermark); "max_minus_window": at
    #: `Long.MAX_VALUE - size` (`- gap` for sessions), the last time whose windows end without overflow, so
    #: that no watermark goes beyond what a record there gives (Kafka Streams' stream time, which only a record
    #: moves: `TimeWindows.windowsFor` fails beyond); "never": time has no end, and the end of input and a listed
    #: `Watermark(Long.MAX_VALUE)` are each a heartbeat just late enough to close every window so far, after which
    #: input goes on: the watermark `latest + size - 1` (a session's `latest + 2 * gap`), where `latest` is the
    #: largest timestamp so far (a watermark `w` counts as `w + 1`, a heartbeat as itself plus the generator's
    #: bound) (Quix Streams, whose time is its largest timestamp: the adapter's heartbeat at `latest + size +
    #: grace`, or `latest + 1 + 2 * gap + grace`).
    event_time_ends: Literal["long_max", "max_minus_window", "never"] = "long_max"
    #: A channel's generator sees a record after the window operator took it (a punctuated watermark follows its
    #: record); True: before, so that the operator judges the record against the watermark the record itself
    #: moved (Bytewax's `EventClock`, whose `on_item` gives the item's watermark with the item: with Flink's
    #: legacy `BoundedOutOfOrdernessTimestampExtractor` of bound 0, every record is behind its own watermark).
    generator_sees_record_first: bool = False

    # Flink SQL (`flink-sql`, `flink-sql-legacy`, `flink-sql-1.20`) and Flink 1.20 (`flink-1.20`):
    #: The widest window parameter (size, slide, gap, offset) a job can state; None: any `long`. Flink SQL writes
    #: them as `INTERVAL DAY(6) TO SECOND(3)` literals (at most 86,399,999,999,999 ms), and its parser rejects a
    #: longer one before any other check, in the order the query states them (`HOP`: slide, size, offset).
    interval_limit: int | None = None
    #: `WindowOperator` keeps a window for its allowed lateness and fires it again for a late record;
    #: "ignored": the engine never reads the allowed lateness (a window table function never reads
    #: `table.exec.emit.allow-lateness`): every decision takes it as 0.
    allowed_lateness: Literal["honoured", "ignored"] = "honoured"
    #: None: records reach the window operator as they arrive. An int X: tumbling and sliding windows aggregate
    #: in two phases, and the first (Flink SQL's `LocalSlicingWindowAggOperator`, whose `currentWatermark` `open`
    #: never sets) starts its watermark at X: it holds every record until it acts on a watermark above X
    #: (`PreAggregationHoldsRecords`), so a window that a watermark at or below X fired has fired without them.
    pre_aggregation_watermark_starts_at: int | None = None
    #: With `pre_aggregation_watermark_starts_at`: each phase waits for the next window end aligned on the window's
    #: offset before it acts on a watermark; False: aligned on 0 (Flink 1.20's `getNextTriggerWatermark`, which takes
    #: no offset, in the local pre-aggregation and in the global window aggregate), so a window with an offset can
    #: fire before its records are sent on, or before the global phase lets them in.
    pre_aggregation_aligns_on_offset: bool = True
    #: `SlidingEventTimeWindows` takes any size; True: a size that is no multiple of the slide is rejected
    #: (Flink SQL's `HOP`, which slices windows into slides).
    sliding_size_multiple_of_slide: bool = False
    #: `SlidingEventTimeWindows` takes a window of any number of panes; True: a sliding window whose size / gcd(size,
    #: slide) (its panes, or slices, of gcd(size, slide) each) exceeds an `int` is rejected, "Cannot downcast long
    #: value N to integer." (the table runtime's `SlidingWindowAssigner`, `MathUtils.checkedDownCast`, which Flink SQL
    #: builds for a `HOP` group window and for the `HOP` table function's window TVF operator, before the aggregate's
    #: checks), once the size and the slide are above 0.
    sliding_panes_fit_an_int: bool = False
    #: `SlidingEventTimeWindows` requires `abs(offset) < slide`; False: any offset, aligned on the offset modulo
    #: the slide (Flink SQL's `HOP`).
    sliding_offset_checked: bool = True
    #: `SlidingEventTimeWindows` rejects more than `MAX_WINDOW_NUM` (10,000,000) windows an element
    #: (`size / slide`, Flink 2.x); False: any number (Flink 1.20; Flink SQL's `HOP`, whose slice assigner and
    #: legacy `SlidingWindowAssigner` have no such check).
    sliding_window_count_checked: bool = True
    #: A session window takes an allowed lateness; False: a session window with an allowed lateness above 0 is
    #: rejected (Flink SQL's legacy group windows: "Session window doesn't support EMIT strategy currently.").
    sessions_take_allowed_lateness: bool = True
    #: A record that went into no window is late only when `timestamp + allowedLateness <= watermark`; True:
    #: every record that no window took is dropped as late (the table runtime's `WindowOperator`, which counts it
    #: in `numLateRecordsDropped`: a sliding window with `size < slide`).
    dropped_when_in_no_window: bool = False

    def switched(self) -> dict[str, object]:
        """The switches not at Flink's default."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) != f.default}

    def operator_class(self, base: type) -> type:
        """`base` (`WindowOperator` or `EvictingWindowOperator`) with the mixins of this dialect's switches."""
        mixins = [mixin for applies, mixin in MIXINS if applies(self)]
        return type(base.__name__, (*mixins, base), {"dialect": self}) if mixins else base

    @property
    def models(self) -> dict[type, type]:
        """The trigger classes this dialect swaps in, by the kind of the format they model."""
        return {case.ContinuousEventTimeTrigger: FloorAlignedContinuousEventTimeTrigger} \
            if self.remainder == "floor" else {}

    def assigners(self, spec: case.Case) -> dict[type, object]:
        """How this dialect builds the assigner of `spec`'s window, by the kind of the format: its engine's own
        job-time checks first (`EngineChecks`), then the model's assigner, or one with Flink's checks changed."""
        if (self.interval_limit, self.sliding_size_multiple_of_slide, self.sliding_panes_fit_an_int,
                self.sliding_offset_checked, self.sliding_window_count_checked, self.sessions_take_allowed_lateness,
                self.long_arithmetic) == (None, False, False, True, True, True, "java"):
            return {}
        return {kind: EngineChecks(self, spec, kind) for kind in (case.Tumbling, case.Sliding, case.Session)}

    @property
    def decides_on_less(self) -> int:
        """How much less than the watermark it receives the operator decides on (`windows_close_at`)."""
        return 1 if self.windows_close_at == "end" else 0

    def collector(self, watermarks: list | None) -> Collector:
        if (self.firing_timestamp, self.global_window_timestamp, self.decides_on_less) == (
                "max_timestamp", LONG_MAX, 0):
            return Collector(watermarks=watermarks)
        return StampingCollector(self, watermarks=watermarks)

    def received(self, receive: Callable[[int], None], driven: case.Case) -> Callable[[int], None]:
        """How the operator receives a watermark of `driven`, before it is recorded: a generated one gains
        `generated_watermark_offset` and is rounded down to `generated_watermark_stride`, and one not above
        `initial_watermark` never arrives."""
        generated = driven.watermark_generator is not None
        offset = self.generated_watermark_offset if generated else 0
        stride = watermark_stride(self, driven) if generated else 1
        if not offset and stride == 1 and self.initial_watermark == LONG_MIN:
            return receive

        def received(watermark: int) -> None:
            if watermark != LONG_MAX:
                watermark += offset
                # `floorFrameTs(w + 1) - 1`: Jet's watermark is Flink's + 1
                watermark = max(LONG_MIN, watermark - (watermark + 1) % stride)
            if watermark > self.initial_watermark:
                receive(watermark)
        return received

    def deciding(self, process_watermark: Callable[[int], None]) -> Callable[[int], None]:
        """What the operator decides on, after the watermark is recorded (`decides_on_less`)."""
        return _shifted(process_watermark, -self.decides_on_less)

    def parts(self, driven: case.Case, build: Callable[[], tuple]) -> tuple:
        """The window operator and its inputs that drive `case` (`reference.implementation.drive`): `build()`'s
        one pair in Flink; an operator and inputs per key (`watermark_scope`, `key_state_discarded_when_empty`);
        inputs that take each record as a watermark too (`records_advance_watermark`), or a heartbeat for the end of
        time (`event_time_ends="never"`)."""
        advance = self.records_advance_watermark and driven.watermark_generator is None
        if self.window_expiry == "last_expired_grid":
            build = partial(_with_grace, build, grace_of(driven))
        if self.event_time_ends == "max_minus_window":
            build = partial(_ending, build, last_watermark(driven))
        if self.generator_sees_record_first and driven.watermark_generator is not None:
            build = partial(_seeing_first, build)
        if self.watermark_scope == "key" or self.key_state_discarded_when_empty:
            keyed = KeyedParts(self, driven, build, advance)
            return keyed, keyed
        operator, inputs = build()
        if advance:
            inputs = RecordsAdvance(inputs, operator if not self.late_when_in_no_window else None)
        if self.event_time_ends == "never" and isinstance(driven.window, (case.Tumbling, case.Sliding, case.Session)):
            inputs = EndsWithHeartbeats(inputs, driven)
        return operator, inputs


def watermark_stride(dialect: Dialect, driven: case.Case) -> int:
    """The stride `generated_watermark_stride` rounds `driven`'s generated watermarks to
    (`WindowAggregateTransform.preferredWatermarkStride` of a session window: `gap / 100` between 1 and 100)."""
    if dialect.generated_watermark_stride == "session_gap_hundredth" and isinstance(driven.window, case.Session):
        return min(100, max(1, driven.window.gap // 100))
    return 1


def _shifted(receive: Callable[[int], None], shift: int) -> Callable[[int], None]:
    if not shift:
        return receive
    return lambda watermark: receive(watermark if watermark == LONG_MAX else watermark + shift)


FLINK = Dialect()


class StampingCollector(Collector):
    """A collector whose firings carry another timestamp than `maxTimestamp()` (`firing_timestamp`,
    `global_window_timestamp`: the operator tells it the time it processes, `TriggerTime`), or the engine's
    watermark where the operator decides on less (`decides_on_less`)."""

    def __init__(self, dialect: Dialect, watermarks: list | None) -> None:
        super().__init__(watermarks=watermarks)
        self.dialect, self.trigger_time, self.stamps = dialect, 0, []

    def emit(self, key, window, values, watermark):
        # the operator decides on one less than the engine's watermark (`decides_on_less`): it reports the engine's
        told = watermark if watermark in (LONG_MIN, LONG_MAX) else watermark + self.dialect.decides_on_less
        super().emit(key, window, values, told)
        if self.dialect.firing_timestamp == "window_start" and isinstance(window, TimeWindow):
            self.stamps.append(window.start)
        elif self.dialect.firing_timestamp not in ("max_timestamp", "window_start"):
            self.stamps.append(self.trigger_time)
        else:
            self.stamps.append(window.max_timestamp() if isinstance(window, TimeWindow)
                               else self.dialect.global_window_timestamp)

    def observation(self, error=None):
        observed = super().observation(error)
        return dataclasses.replace(observed, firings=tuple(
            dataclasses.replace(firing, timestamp=stamp) for firing, stamp in zip(observed.firings, self.stamps,
                                                                                   strict=True)))


class FloorAlignedContinuousEventTimeTrigger(ContinuousEventTimeTrigger):
    """`remainder="floor"`: the first fire time is `time - time % interval` with a floor modulo."""

    def first_fire_from(self, time: int) -> int:
        try:
            return time - time % self.interval
        except ZeroDivisionError as e:
            raise JobFailure(f"ZeroDivisionError: {e}", "arithmetic") from None


# --- operator mixins: one a switch ---------------------------------------------------------------


def overlaps(a: TimeWindow, b: TimeWindow) -> bool:
    """Two windows that share a millisecond (touching ones do not)."""
    return a.start < b.end and a.end > b.start


class TouchingSessionsStayApart:
    """`sessions_merge_when_touching=False`: sessions merge only when they overlap."""

    merge_windows = staticmethod(partial(merge_windows, intersects=overlaps))


class DropWhenPastCleanupStrictly:
    """`drop_when_past_cleanup_strictly=True`: a window lives until the watermark has passed its cleanup time
    (`maxTimestamp + allowedLateness`): it is cleaned up one millisecond later, at `end + allowedLateness`
    (an engine that expires a window once the watermark passes its end plus the lateness), and an element
    is late only once `timestamp + allowedLateness < watermark`."""

    def cleanup_time(self, window):
        cleanup_time = super().cleanup_time(window)
        return cleanup_time if cleanup_time == LONG_MAX and self.dialect.long_arithmetic == "java" else cleanup_time + 1

    def is_element_late(self, timestamp):
        return self.is_event_time and self.with_lateness(timestamp) < self.timers.current_watermark


class LatenessBeforeMerge:
    """`merges_before_lateness=False`: the element's own window decides its lateness before any merge."""

    def add_to_merging_windows(self, key, element, timestamp, windows):
        live = []
        for window in windows:
            if self.is_window_late(self.cleanup_time(window)):
                self.listener.window_late(key, window)
            else:
                live.append(window)
        return super().add_to_merging_windows(key, element, timestamp, live) if live else True


class TriggerTime:
    """`firing_timestamp` or `global_window_timestamp`: the collector learns the time of the record or timer
    the operator processes, before it can fire."""

    def add_to_window(self, key, element, timestamp, window, state_window, cleanup_time):
        self.output.trigger_time = timestamp
        super().add_to_window(key, element, timestamp, window, state_window, cleanup_time)

    def on_event_time(self, timer):
        self.output.trigger_time = timer[0]
        super().on_event_time(timer)

    def on_processing_time(self, timer):
        self.output.trigger_time = timer[0]
        super().on_processing_time(timer)


class UnboundedArithmetic:
    """`long_arithmetic="unbounded"`: `time + allowedLateness` never wraps and the cleanup time never
    saturates (a window cleaned up past `Long.MAX_VALUE` never is)."""

    def with_lateness(self, time):
        return time + self.allowed_lateness

    def cleanup_time(self, window):
        max_timestamp = window.max_timestamp()
        return self.with_lateness(max_timestamp) if self.is_event_time else max_timestamp

    def register_cleanup_timer(self, cleanup_time):
        if cleanup_time < LONG_MAX:
            super().register_cleanup_timer(cleanup_time)

    def delete_cleanup_timer(self, window):
        if self.cleanup_time(window) < LONG_MAX:
            super().delete_cleanup_timer(window)


class FirstOfBagContext(Context):
    """`trigger_state_merges="first_of_bag"`: a merge keeps the merged window's own value, or else the value
    of the first merged window that has one, in the order the JVM's `HashSet` iterates them
    (`window_contract.java_hash`) when PyFlink sends them in its own set's order (`python_set_order`)."""

    __slots__ = ("adding",)

    def merge_state(self, name, reduce):
        state = self.op.trigger_state
        sent = python_set_order([*self.merged_windows, self.adding], self.adding)
        values = [v for w in hash_set_order(sent) if (v := state.pop((self.key, w, name), None)) is not None]
        if values and (self.key, self.window, name) not in state:
            state[(self.key, self.window, name)] = values[0]


class _PyFlinkTimeWindow:
    """A window hashed as PyFlink's `TimeWindow.__hash__`: `start + mod_inverse((end << 1) + 1)`."""

    __slots__ = ("window",)

    def __init__(self, window: TimeWindow) -> None:
        self.window = window

    def __hash__(self) -> int:
        x = (self.window.end << 1) + 1
        inverse = x * x * x  # PyFlink's mod_inverse, in Python's unbounded integers
        for _ in range(3):
            inverse *= 2 - x * inverse
        return self.window.start + inverse

    def __eq__(self, other) -> bool:
        return isinstance(other, _PyFlinkTimeWindow) and self.window == other.window


def python_set_order(windows: list[TimeWindow], added: TimeWindow) -> list[TimeWindow]:
    """The merged windows in the order PyFlink's `TimeWindow.merge_windows` yields them: a Python set, filled
    in the windows' order, from which the window being added is removed."""
    merged = set()
    for window in sorted(windows):
        merged.add(_PyFlinkTimeWindow(window))
    merged.discard(_PyFlinkTimeWindow(added))
    return [w.window for w in merged]


class MergesTriggerStateAsABag:
    """`trigger_state_merges="first_of_bag"`: the trigger's context merges its state as `FirstOfBagContext`
    does, told which window the element being merged brought."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.trigger_context = FirstOfBagContext(self)

    def add_to_merging_windows(self, key, element, timestamp, windows):
        for window in windows:  # a session assigner gives one
            self.trigger_context.adding = window
        return super().add_to_merging_windows(key, element, timestamp, windows)


class MergingWindowsOutliveCleanup:
    """`merging_windows_outlive_cleanup=True`: cleaning a merging window up clears its trigger only, and a merge
    into such a window is not checked against the watermark (Beam merges its active windows without Flink's
    `IllegalStateException`, and fires the result late)."""

    def check_merge(self, merge_result):
        pass

    def clear_all_state(self, key, window, state_window, merging):
        if merging is None:
            super().clear_all_state(key, window, state_window, merging)
        else:
            self.listener.cleared(key, window)
            self.trigger.clear(window, self.trigger_context)


class StartsAtWatermark:
    """`initial_watermark`: the operator's watermark before the first one arrives (with
    `windows_close_at="end"`, the operator decides on one less, as on every watermark; `Dialect.received`
    keeps the watermarks below it away)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.timers.current_watermark = self.dialect.initial_watermark - self.dialect.decides_on_less


# --- Kafka Streams and Bytewax: stream time, record timestamps, sessions, keys --------------------


class RecordsAdvance:
    """`records_advance_watermark`: the inputs take a record as a watermark at its timestamp less one, on its
    channel, once the operator has taken the record (ignored unless it raises the channel's watermark); with
    `late_when_in_no_window=False` (`windowing`: the operator), only a record that some window holds (the others
    vanish: Pathway's time is the largest time of the rows its windows hold)."""

    def __init__(self, inputs, windowing=None) -> None:
        self.inputs, self.windowing = inputs, windowing

    def __getattr__(self, name):
        return getattr(self.inputs, name)

    def after_element(self, record: case.Record, timestamp: int) -> None:
        self.inputs.after_element(record, timestamp)
        if self.windowing is None or self.windowing.assigner.assign_windows(timestamp, 0, record.value):
            self.inputs.process_watermark(case.Watermark(timestamp - 1, record.channel))


class EndsWithHeartbeats:
    """`event_time_ends="never"`: the inputs take the end of input, and a listed `Watermark(Long.MAX_VALUE)`, as a
    heartbeat just late enough to close every window so far (see the switch), and track the largest timestamp."""

    def __init__(self, inputs, driven: case.Case) -> None:
        self.inputs, self.latest, self.grace = inputs, 0, grace_of(driven)
        window = driven.window
        self.reach = 1 + 2 * window.gap if isinstance(window, case.Session) else window.size

    def __getattr__(self, name):
        return getattr(self.inputs, name)

    def heartbeat(self) -> int:
        """The watermark of a heartbeat at `latest + reach + grace`, which it makes the latest timestamp."""
        self.latest += self.reach + self.grace
        return self.latest - self.grace - 1

    def after_element(self, record: case.Record, timestamp: int) -> None:
        self.latest = max(self.latest, timestamp)
        self.inputs.after_element(record, timestamp)

    def process_watermark(self, watermark: case.Watermark) -> None:
        if watermark.timestamp == LONG_MAX:
            watermark = case.Watermark(self.heartbeat(), watermark.channel)
        else:
            self.latest = max(self.latest, watermark.timestamp + 1)
        self.inputs.process_watermark(watermark)

    def end_of_input(self) -> None:
        watermark = self.heartbeat()
        for channel in sorted(self.inputs.open_channels):
            self.inputs.input_watermark(watermark, channel)


class _AssignerView:
    """An assigner whose windows a dialect changes (`windows`); in every other way the assigner itself."""

    def __init__(self, assigner) -> None:
        self.assigner = assigner

    def __getattr__(self, name):
        return getattr(self.assigner, name)

    def assign_windows(self, timestamp, current_processing_time, value=0):
        return self.windows(self.assigner.assign_windows(timestamp, current_processing_time, value))


class _SlidingFromZero(_AssignerView):
    """A sliding assigner that gives only the windows starting at 0 or later (`sliding_windows_from_zero`)."""

    def windows(self, windows):
        return [w for w in windows if w.start >= 0]


class _SessionsReach(_AssignerView):
    """A merging assigner whose windows reach `extra` milliseconds further, `[start, end + extra)`."""

    def __init__(self, assigner, extra: int) -> None:
        super().__init__(assigner)
        self.extra = extra

    def windows(self, windows):
        return [TimeWindow(w.start, w.end + self.extra) for w in windows]


class SlidingWindowsFromZero:
    """`sliding_windows_from_zero=True`: a sliding assigner starts no window before 0."""

    def __init__(self, assigner, *args, **kwargs):
        if isinstance(assigner, SlidingWindows):
            assigner = _SlidingFromZero(assigner)
        super().__init__(assigner, *args, **kwargs)


class _FromOffset(_AssignerView):
    """A tumbling or sliding assigner that gives only the windows starting at its offset or later
    (`windows_start_from_offset`)."""

    def windows(self, windows):
        return [w for w in windows if w.start >= self.assigner.offset]


class WindowsStartFromOffset:
    """`windows_start_from_offset=True`: a tumbling or sliding assigner with an offset starts no window before it."""

    def __init__(self, assigner, *args, **kwargs):
        if isinstance(assigner, (TumblingWindows, SlidingWindows)) and assigner.offset != 0:
            assigner = _FromOffset(assigner)
        super().__init__(assigner, *args, **kwargs)


class NeverLateInNoWindow:
    """`late_when_in_no_window=False`: a record that no window took is not late (the operator asks only for such a
    record: a merging window's record is late only by its window, before this asks)."""

    def process_element(self, key, value, timestamp):
        if self.assigner.is_merging or self.assigner.assign_windows(
                timestamp, self.timers.current_processing_time, value):
            return super().process_element(key, value, timestamp)
        self.listener.assigned(key, value, timestamp, [])
        return None


class FromRecordTimestamps:
    """`firing_timestamp="max_record_timestamp"`, `session_window_end="last_record"`: the window keeps its
    records' timestamps; a firing carries the largest of them, and a session is reported as `[first, last + 1)`
    (before an evictor evicts anything)."""

    keeps_timestamps = True

    def emit_window_contents(self, key, window, state_window, contents):
        last = max(timestamp for _, timestamp in contents)
        if self.dialect.firing_timestamp == "max_record_timestamp":
            self.output.trigger_time = last
        if self.dialect.session_window_end == "last_record" and self.assigner.is_merging:
            window = TimeWindow(window.start, last + 1)
        if not isinstance(self, EvictingWindowOperator):  # the evicting operator keeps them itself
            contents = [value for value, _ in contents]
        super().emit_window_contents(key, window, state_window, contents)


class SessionLateStrictly:
    """`session_late_strictly=True`: a merging window is late only once the watermark has passed its cleanup
    time; a record that comes when the watermark is at it opens the window again (it fired and was cleaned up
    then): the trigger decides on it (`EventTimeTrigger` fires it, past its `maxTimestamp`), and the window is
    cleaned up at once, as its cleanup timer is due."""

    def is_window_late(self, cleanup_time):
        if not self.assigner.is_merging:
            return super().is_window_late(cleanup_time)
        return self.is_event_time and cleanup_time < self.timers.current_watermark

    def add_to_window(self, key, element, timestamp, window, state_window, cleanup_time):
        super().add_to_window(key, element, timestamp, window, state_window, cleanup_time)
        if self.assigner.is_merging and self.is_event_time and cleanup_time == self.timers.current_watermark:
            self.delete_cleanup_timer(window)
            self.clear_all_state(key, window, state_window, self.merging_window_sets[key])


class EveryUpdateTrigger(Trigger):
    """`emits="every_update"`: every element fires its window with the contents so far; no timer fires it."""

    can_merge = True

    def on_element(self, timestamp, window, ctx):
        return TriggerResult.FIRE

    def __repr__(self) -> str:
        return "every update"


class EmitsEveryUpdate:
    """`emits="every_update"`: the window's trigger is `EveryUpdateTrigger` (the cleanup is unchanged); a merge
    fires the merged window once, for the element that merged it."""

    def __init__(self, assigner, trigger, *args, **kwargs):
        super().__init__(assigner, EveryUpdateTrigger(), *args, **kwargs)


class EmitsEverySessionUpdate:
    """`emits="every_session_update"`: a session window's trigger is `EveryUpdateTrigger`, and no session is late
    or cleaned up (a merge fires the merged window once, for the element that merged it); tumbling and sliding
    windows keep theirs."""

    def __init__(self, assigner, trigger, *args, **kwargs):
        super().__init__(assigner, EveryUpdateTrigger() if assigner.is_merging else trigger, *args, **kwargs)

    def is_window_late(self, cleanup_time):
        return not self.assigner.is_merging and super().is_window_late(cleanup_time)

    def is_element_late(self, timestamp):
        return not self.assigner.is_merging and super().is_element_late(timestamp)

    def with_lateness(self, time):
        """A session's time with its lateness: the end of time (a merge never makes a late window)."""
        return LONG_MAX if self.assigner.is_merging else super().with_lateness(time)

    def register_cleanup_timer(self, cleanup_time):
        if not self.assigner.is_merging:
            super().register_cleanup_timer(cleanup_time)


class LateBehindWatermark:
    """`late_records="behind_watermark"`: a record behind the watermark (`isElementLate`) goes to no window, to
    the side output or dropped; any other record goes to all its windows (none of which is late)."""

    def process_element(self, key, value, timestamp):
        if not self.is_element_late(timestamp):
            return super().process_element(key, value, timestamp)
        self.late_record(key, value, timestamp)
        return None


class SessionFiresAtEnd:
    """`session_fires_at="end"`: the operator keeps a session `[start, end)` as `[start, end + 1)`, whose sessions
    merge as before (their own bounds touch or overlap; only overlap with `sessions_merge_when_touching=False`),
    so that its `maxTimestamp` is the session's end: it fires, is cleaned up and turns late there; it is reported
    as `[start, end)`."""

    def __init__(self, assigner, *args, **kwargs):
        if assigner.is_merging:
            assigner = _SessionsReach(assigner, 1)
        super().__init__(assigner, *args, **kwargs)
        if assigner.is_merging:
            own = TimeWindow.intersects if self.dialect.sessions_merge_when_touching else overlaps

            def intersects(a: TimeWindow, b: TimeWindow) -> bool:
                return own(TimeWindow(a.start, a.end - 1), TimeWindow(b.start, b.end - 1))
            self.merge_windows = partial(merge_windows, intersects=intersects)

    def emit_window_contents(self, key, window, state_window, contents):
        if self.assigner.is_merging:
            window = TimeWindow(window.start, window.end - 1)
        super().emit_window_contents(key, window, state_window, contents)


class LateForEarliestWindow:
    """`late_records="earliest_window"`: a tumbling or sliding window's record of which one window is late (its
    earliest) goes to none of them, to the side output or dropped."""

    def process_element(self, key, value, timestamp):
        if not self.assigner.is_merging and any(
                self.is_window_late(self.cleanup_time(window))
                for window in self.assigner.assign_windows(timestamp, self.timers.current_processing_time, value)):
            self.late_record(key, value, timestamp)
            return None
        return super().process_element(key, value, timestamp)


# --- Quix Streams: a window's start as its timestamp, lateness per window, its sessions, its expiry --------


class LateForAnyWindow:
    """`late_records="any_window"`: a tumbling or sliding window's record goes to every window that is not late,
    and to the side output (or dropped) once when at least one of its windows is late."""

    def process_element(self, key, value, timestamp):
        if self.assigner.is_merging:
            return super().process_element(key, value, timestamp)
        windows = self.assigner.assign_windows(timestamp, self.timers.current_processing_time, value)
        self.listener.assigned(key, value, timestamp, windows)
        element = (value, timestamp) if self.keeps_timestamps else value
        self.trigger_context.key = key
        any_late = False
        for window in windows:
            cleanup_time = self.cleanup_time(window)
            if self.is_window_late(cleanup_time):
                self.listener.window_late(key, window)
                any_late = True
                continue
            self.add_to_window(key, element, timestamp, window, window, cleanup_time)
        if any_late and self.is_element_late(timestamp):
            self.late_record(key, value, timestamp)
        return None


class SessionClosesGapAfterEnd:
    """`session_fires_at="gap_after_end"`: the operator keeps a session `[start, end)` as `[start, end + gap + 1)`,
    so that its `maxTimestamp` is `end + gap` (`last + 2 * gap`): it fires and is cleaned up there; sessions
    merge as before (their own bounds touch or overlap); a record whose own session `[ts, ts + gap)` ends at or
    below the watermark is late before any merge (never merged: to the side output, or dropped); a session is
    reported as `[start, end)`."""

    def __init__(self, assigner, *args, **kwargs):
        if assigner.is_merging:
            assigner = _SessionsReach(assigner, assigner.gap + 1)
        super().__init__(assigner, *args, **kwargs)
        if assigner.is_merging:
            extra = assigner.extra

            def intersects(a: TimeWindow, b: TimeWindow) -> bool:
                return TimeWindow(a.start, a.end - extra).intersects(TimeWindow(b.start, b.end - extra))
            self.merge_windows = partial(merge_windows, intersects=intersects)

    def add_to_merging_windows(self, key, element, timestamp, windows):
        live = []
        for window in windows:
            if self.is_event_time and window.end - self.assigner.extra <= self.timers.current_watermark:
                self.listener.window_late(key, window)
            else:
                live.append(window)
        return super().add_to_merging_windows(key, element, timestamp, live) if live else True

    def emit_window_contents(self, key, window, state_window, contents):
        if self.assigner.is_merging:
            window = TimeWindow(window.start, window.end - self.assigner.extra)
        super().emit_window_contents(key, window, state_window, contents)


def grace_of(driven: case.Case) -> int:
    """The grace period a job on an engine without watermarks gets for `driven`'s watermarks: a bounded
    out-of-orderness generator's bound, else 0."""
    match driven.watermark_generator:
        case case.BoundedOutOfOrdernessWatermarks(bound):
            return bound
    return 0


def _with_grace(build: Callable[[], tuple], grace: int) -> tuple:
    operator, inputs = build()
    operator.grace = grace
    return operator, inputs


class ExpiresOnLastExpiredGrid:
    """`window_expiry="last_expired_grid"`: tumbling and sliding windows as Quix Streams' partition closing
    strategy keeps them (see the switch): no trigger and no timer; the operator keeps the last end it expired
    (`last_expired`, 0: none), the largest timestamp it has seen (`latest`, a watermark `W` counting as `W + 1 +
    grace`) and the grace (`Dialect.parts` sets it). With `late_records="any_window"` a record with a late window
    is a late record."""

    grace = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.last_expired, self.latest = 0, 0

    @property
    def grid(self) -> int:
        return getattr(self.assigner, "slide", None) or self.assigner.size

    def process_element(self, key, value, timestamp):
        if self.assigner.is_merging or not self.is_event_time:
            return super().process_element(key, value, timestamp)
        windows = self.assigner.assign_windows(timestamp, self.timers.current_processing_time, value)
        self.listener.assigned(key, value, timestamp, windows)
        element = (value, timestamp) if self.keeps_timestamps else value
        self.latest = max(self.latest, timestamp)
        bound = max(timestamp, self.last_expired) - self.grace
        late = 0
        for window in windows:
            if window.end <= bound:
                self.listener.window_late(key, window)
                late += 1
                continue
            self.window_state.setdefault((key, window), []).append(element)
        if late and (late == len(windows) or self.dialect.late_records == "any_window"):
            self.late_record(key, value, timestamp)
        return None

    def process_watermark(self, time):
        super().process_watermark(time)
        if self.assigner.is_merging or not self.is_event_time:
            return
        if time == LONG_MAX:  # the end of input: the adapter's last heartbeat, `latest + size + grace`
            until = self.latest + self.assigner.size
            self.latest = until + self.grace
        else:
            until = time + 1
            self.latest = max(self.latest, until + self.grace)
        grid, last = self.grid, self.last_expired
        if last:
            if until < last + grid:
                return
            self.last_expired = last + (until - last) // grid * grid
            due = [(k, w) for k, w in self.window_state if last < w.end <= self.last_expired
                   and (w.end - last) % grid == 0]
        else:
            self.last_expired = until - until % grid
            due = [(k, w) for k, w in self.window_state if w.end <= self.last_expired]
        for key, window in sorted(due, key=lambda kw: (kw[1].end, kw[1].start, kw[0])):
            self.emit_window_contents(key, window, window, self.window_state.pop((key, window)))


def last_watermark(driven: case.Case) -> int:
    """`event_time_ends="max_minus_window"`: the watermark a record at `Long.MAX_VALUE - size` (`- gap`) gives,
    the generator's lag behind it (a listed watermark's: one) taken off."""
    match driven.window:
        case case.Tumbling(size) | case.Sliding(size):
            end = LONG_MAX - size
        case case.Session(gap):
            end = LONG_MAX - gap
        case _:
            return LONG_MAX
    match driven.watermark_generator:
        case case.BoundedOutOfOrdernessWatermarks(bound):
            return end - bound - 1
        case case.BoundedOutOfOrdernessTimestampExtractor(bound):
            return end - bound
    return end - 1


def _seeing_first(build: Callable[[], tuple]) -> tuple:
    """`build()`'s operator and inputs, whose generators see each record before the operator does
    (`generator_sees_record_first`)."""
    operator, inputs = build()
    return operator, GeneratorSeesRecordFirst(inputs)


class GeneratorSeesRecordFirst:
    """Inputs whose channel's generator sees a record as its timestamp is taken, before the operator does."""

    def __init__(self, inputs) -> None:
        self.inputs = inputs

    def __getattr__(self, name):
        return getattr(self.inputs, name)

    def timestamp(self, record: case.Record) -> int:
        timestamp = self.inputs.timestamp(record)
        self.inputs.after_element(record, timestamp)
        return timestamp

    def after_element(self, record: case.Record, timestamp: int) -> None:
        pass


def _ending(build: Callable[[], tuple], last: int) -> tuple:
    """`build()`'s operator and inputs, whose inputs deliver no watermark beyond `last`."""
    operator, inputs = build()
    deliver, delivered = inputs.deliver, [LONG_MIN]

    def ending(watermark: int) -> None:
        if min(watermark, last) > delivered[0]:
            delivered[0] = min(watermark, last)
            deliver(delivered[0])
    inputs.deliver = ending
    return operator, inputs


class _Clock:
    """What `drive` reads of an operator's timers: the processing time."""

    def __init__(self) -> None:
        self.current_processing_time = 0


class _Valve:
    """What `drive` reads of the inputs' valve: the watermark it has let out (the least of the keys')."""

    def __init__(self, keyed: KeyedParts) -> None:
        self.keyed = keyed

    @property
    def last_output_watermark(self) -> int:
        return min((inputs.valve.last_output_watermark for _, inputs in self.keyed.parts.values()), default=LONG_MAX)


class KeyedParts:
    """`watermark_scope="key"`, `key_state_discarded_when_empty`: an operator and its inputs for each key of the
    case, sharing the collector, as `drive` sees one operator and one set of inputs. A record goes to its key's;
    a listed watermark, a status, the end of a channel or of the input to every key's. With
    `watermark_scope="key"` each key's generator sees only its records; otherwise every key's generator sees
    every record, and gives the operator's watermark. With `key_state_discarded_when_empty`, a key whose
    operator holds no window after an event that reached it (and does not merge windows) gets new ones. Every
    key's input watermarks are recorded."""

    def __init__(self, dialect: Dialect, driven: case.Case, build: Callable[[], tuple], advance: bool) -> None:
        self.build, self.advance = build, advance
        self.own_clocks = dialect.watermark_scope == "key"
        self.discards = dialect.key_state_discarded_when_empty
        self.timers = _Clock()
        self.valve = _Valve(self)
        self.parts = {key: build() for key in sorted({r.key for r in driven.records})}

    # --- the operator's part of drive ------------------------------------------------------------------

    def process_element(self, key, value, timestamp):
        self.parts[key][0].process_element(key, value, timestamp)

    def advance_processing_time(self, time):
        """Every key's operator's clock, then its inputs' (`drive` calls this as the operator's and as the
        inputs': the second call finds nothing due)."""
        self.timers.current_processing_time = time
        for operator, _ in self.parts.values():
            operator.advance_processing_time(time)
        for _, inputs in self.parts.values():
            inputs.advance_processing_time(time)

    # --- the inputs' part ------------------------------------------------------------------------------

    def receivers(self, record: case.Record) -> list[str]:
        return [record.key] if self.own_clocks else list(self.parts)

    def timestamp(self, record: case.Record) -> int:
        stamps = {key: self.parts[key][1].timestamp(record) for key in self.receivers(record)}
        return stamps[record.key]

    def after_element(self, record, timestamp):
        for key in self.receivers(record):
            self.parts[key][1].after_element(record, timestamp)
        self.discard_empty(self.receivers(record))
        if self.advance:
            self.process_watermark(case.Watermark(timestamp - 1, record.channel))

    def process_watermark(self, watermark):
        for _, inputs in self.parts.values():
            inputs.process_watermark(watermark)
        self.discard_empty(list(self.parts))

    def process_watermark_status(self, event):
        for _, inputs in self.parts.values():
            inputs.process_watermark_status(event)

    def end_channel(self, channel):
        for _, inputs in self.parts.values():
            inputs.end_channel(channel)

    @property
    def open_channels(self) -> set[int]:
        return {c for _, inputs in self.parts.values() for c in inputs.open_channels}

    def end_of_input(self) -> None:
        for _, inputs in self.parts.values():
            if inputs.open_channels and inputs.valve.last_output_watermark < LONG_MAX:
                inputs.end_of_input()

    def discard_empty(self, keys: list[str]) -> None:
        if not self.discards:
            return
        for key in keys:
            operator, _ = self.parts[key]
            if not operator.window_state and not operator.assigner.is_merging:
                operator, inputs = self.parts[key] = self.build()
                if self.timers.current_processing_time:
                    operator.advance_processing_time(self.timers.current_processing_time)
                    inputs.advance_processing_time(self.timers.current_processing_time)


# --- Flink SQL and Flink 1.20: the job's own checks, and the operator's ------------------------------------


#: A day in milliseconds: SQL's intervals count days.
DAY = 86_400_000
SESSION_EMIT_MESSAGE = "Session window doesn't support EMIT strategy currently."


class EngineChecks:
    """How a dialect builds an assigner of one kind: the engine's own job-time checks, in its order, before the
    model's assigner (`interval_limit`: the parser's; `sessions_take_allowed_lateness`, `sliding_panes_fit_an_int`
    and `sliding_size_multiple_of_slide`: the planner's, in that order), then the model's assigner, a sliding one
    with Flink's checks and arithmetic as the dialect changes them (`DialectSlidingWindows`), a tumbling one in the
    dialect's arithmetic (`UnboundedTumblingWindows`)."""

    def __init__(self, dialect: Dialect, spec: case.Case, kind: type) -> None:
        self.dialect, self.spec, self.kind = dialect, spec, kind

    def from_kind(self, kind, window_start):
        d = self.dialect
        if d.interval_limit is not None:
            stated = {case.Tumbling: ("size", "offset"), case.Sliding: ("slide", "size", "offset"),
                      case.Session: ("gap",)}[self.kind]
            for value in (getattr(kind, name) for name in stated):
                if abs(value) > d.interval_limit:
                    raise InvalidSpec(f"Interval field value {abs(value) // DAY:,} exceeds precision of DAY(6) field",
                                      "sql.interval_precision")
        if not d.sessions_take_allowed_lateness and self.kind is case.Session and self.spec.allowed_lateness > 0:
            raise InvalidSpec(SESSION_EMIT_MESSAGE, "sql.session_emit")
        if self.kind is case.Sliding:
            if d.sliding_panes_fit_an_int and kind.size > 0 and kind.slide > 0:
                panes = ldiv(kind.size, gcd(kind.size, kind.slide))
                if l2i(panes) != panes:
                    raise InvalidSpec(f"Cannot downcast long value {panes} to integer.", "sql.hop_panes")
            if d.sliding_size_multiple_of_slide and kind.size > 0 and kind.slide > 0 and kind.size % kind.slide:
                raise InvalidSpec("HOP table function based aggregate requires size must be an integral multiple of "
                                  f"slide, but got size {kind.size} ms and slide {kind.slide} ms", "sql.hop_multiple")
            return DialectSlidingWindows(kind.size, kind.slide, kind.offset, kind.time == "event", window_start, d)
        if self.kind is case.Tumbling and d.long_arithmetic == "unbounded":
            return UnboundedTumblingWindows.from_kind(kind, window_start)
        return {case.Tumbling: TumblingWindows, case.Session: SessionWindows}[self.kind].from_kind(kind, window_start)


class DialectSlidingWindows(SlidingWindows):
    """`SlidingEventTimeWindows` with the checks a dialect changes: `sliding_offset_checked=False` takes any offset
    (a slide must still be above 0), `sliding_window_count_checked=False` any number of windows an element; and
    with `long_arithmetic="unbounded"`, PyFlink's `assign_windows` in Python integers, `[TimeWindow(start, start +
    size) for start in range(last_start, timestamp - size, -slide)]`: `start` never wraps past `Long.MIN_VALUE` into
    a loop that runs on from the top of the range, and no window's end wraps past `Long.MAX_VALUE`."""

    def __init__(self, size, slide, offset, event_time, window_start, dialect: Dialect) -> None:
        self.is_event_time = event_time
        self.name = name = "SlidingEventTimeWindows" if event_time else "SlidingProcessingTimeWindows"
        if (labs(offset) >= slide if dialect.sliding_offset_checked else slide <= 0) or size <= 0:
            raise InvalidSpec(f"{name} parameters must satisfy abs(offset) < slide and size > 0",
                              *sliding_rules(size, slide, offset if dialect.sliding_offset_checked else 0))
        if event_time and dialect.sliding_window_count_checked and ldiv(size, slide) > MAX_WINDOW_NUM:
            raise InvalidSpec(f"{name} parameters must satisfy size / slide <= {MAX_WINDOW_NUM}", "sliding.windows")
        self.size, self.slide, self.offset, self.window_start = size, slide, offset, window_start
        self.windows = RecentWindows(size)
        self.unbounded = dialect.long_arithmetic == "unbounded"

    def assign_windows(self, timestamp, current_processing_time, value=0):
        if not self.unbounded:
            return super().assign_windows(timestamp, current_processing_time, value)
        time = element_time(self, timestamp, current_processing_time)
        starts = range(time - (time - self.offset) % self.slide, time - self.size, -self.slide)
        if len(starts) > WINDOWS_PER_ELEMENT_LIMIT:
            raise JobFailure(TOO_MANY_WINDOWS, "contract.too_many_windows")
        return [TimeWindow(start, start + self.size) for start in starts]


class UnboundedTumblingWindows(TumblingWindows):
    """`TumblingEventTimeWindows` in Python integers (`long_arithmetic="unbounded"`): PyFlink's `assign_windows`,
    `TimeWindow(start, start + size)` with `start = timestamp - (timestamp - offset + size) % size` (Python's floor
    `%`), whose end never wraps past `Long.MAX_VALUE`."""

    def assign_windows(self, timestamp, current_processing_time, value=0):
        time = element_time(self, timestamp, current_processing_time)
        start = time - (time - self.offset) % self.size
        return [TimeWindow(start, start + self.size)]


class IgnoresAllowedLateness:
    """`allowed_lateness="ignored"`: the operator decides as with an allowed lateness of 0, whatever the job says
    (a negative one is still Flink's rejection: the engine's acceptance is an explainer of its list)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allowed_lateness = 0


class SliceBuffer:
    """A table runtime window operator's `RecordsWindowBuffer` and the gate before it: records held until a watermark
    the operator acts on, one above its progress (`start` at first, then the highest it received) and at or above its
    next trigger (`start` at first, then `getNextTriggerWatermark`: the next slice end after it, less 1, aligned on
    the window's `offset`, or on 0 when not `aligns_on_offset`), when the buffer holds a slice that watermark fires
    (`isWindowFired(minSliceEnd)`): `advance` gives them back, in the order they came, to be sent on before the
    watermark."""

    def __init__(self, start: int, size: int, offset: int, aligns_on_offset: bool) -> None:
        self.progress = self.next_trigger = start
        self.size, self.offset, self.trigger_offset = size, offset, offset if aligns_on_offset else 0
        self.held: list[tuple] = []
        self.min_slice_end = LONG_MAX

    def slice_end(self, timestamp: int, offset: int | None = None) -> int:
        """`SliceAssigner.assignSliceEnd` (aligned on `offset`, the window's unless given)."""
        offset = self.offset if offset is None else offset
        return ladd(get_window_start_with_offset(timestamp, offset, self.size), self.size)

    def fired(self, slice_end: int) -> bool:
        """`TimeWindowUtil.isWindowFired`: the watermark it acted on has reached the slice's last millisecond."""
        return slice_end - 1 <= self.progress

    def hold(self, held: tuple, timestamp: int) -> None:
        self.held.append(held)
        self.min_slice_end = min(self.min_slice_end, self.slice_end(timestamp))

    def advance(self, watermark: int) -> list[tuple]:
        if watermark <= self.progress:
            return []
        self.progress = watermark
        if watermark < self.next_trigger:
            return []
        released = []
        if self.min_slice_end != LONG_MAX and self.fired(self.min_slice_end):
            released, self.held, self.min_slice_end = self.held, [], LONG_MAX
        self.next_trigger = self.next_trigger_watermark(watermark)
        return released

    def next_trigger_watermark(self, watermark: int) -> int:
        """`TimeWindowUtil.getNextTriggerWatermark(WithOffset)`: the next slice end after `watermark`, less 1."""
        if watermark == LONG_MAX:
            return watermark
        trigger = lsub(self.slice_end(watermark, self.trigger_offset), 1)
        return trigger if trigger > watermark else ladd(trigger, self.size)


class PreAggregationHoldsRecords:
    """`pre_aggregation_watermark_starts_at=X`: a tumbling or sliding window's records pass through the two phases
    of Flink SQL's window aggregate, each a `SliceBuffer` of slices (the size, or a hop's gcd(size, slide)) that sends
    its records on only before a watermark it acts on, its next trigger aligned on the window's offset unless
    `pre_aggregation_aligns_on_offset=False` (Flink 1.20's `getNextTriggerWatermark`, which takes no offset, in both):

    1. `LocalSlicingWindowAggOperator`, before the exchange, whose progress starts at X (a field `open` never sets):
       it holds every record, and sends them on before a watermark it acts on. A record it holds past the watermark
       that fires its window is late when it arrives.
    2. The global `WindowAggOperator`, whose progress starts at `Long.MIN_VALUE`: a record whose slice the watermark it
       acted on has fired goes on to the windows at once (`processElement`'s late path: dropped, as the DataStream
       API drops what is late for every window); any other waits in its buffer, and goes into the windows at a
       watermark it acts on, before that watermark fires them, under the watermark before (`GlobalAggCombiner`
       registers a window's timer only if that one has not fired it: a window fired already never fires again, and
       its records are dropped). Aligned on the offset, the buffer always lets a window's records in before the
       watermark that fires it; aligned on 0, a window with an offset may fire empty, and its records come too late.

    A record dropped so is dropped at its own event, as the engine reports it. After `Long.MAX_VALUE` no watermark
    releases a record: it goes straight on, to be dropped as late as the engine drops it (no firing holds it)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assigner, start = self.assigner, self.dialect.pre_aggregation_watermark_starts_at
        # tumbling and sliding windows only: `broken_rules` also builds the operator over the global window
        self.pre_aggregating = isinstance(assigner, TumblingWindows | SlidingWindows)
        if self.pre_aggregating:  # `SliceAssigner.getSliceEndInterval`: the size, or a hop's slice
            size = assigner.size if isinstance(assigner, TumblingWindows) else gcd(assigner.size, assigner.slide)
            aligned = self.dialect.pre_aggregation_aligns_on_offset
            self.local = SliceBuffer(start, size, assigner.offset, aligned)
            self.global_ = SliceBuffer(LONG_MIN, size, assigner.offset, aligned)

    def process_element(self, key, value, timestamp):
        if not self.pre_aggregating:
            super().process_element(key, value, timestamp)
        elif self.local.progress == LONG_MAX:
            self.reach_global((self.output.at, key, value, timestamp))
        else:
            self.local.hold((self.output.at, key, value, timestamp), timestamp)

    def process_watermark(self, time):
        if self.pre_aggregating:
            for held in self.local.advance(time):
                self.reach_global(held)
            for held in self.global_.advance(time):
                self.into_windows(held)
        super().process_watermark(time)

    def reach_global(self, held):
        timestamp = held[3]
        if self.global_.fired(self.global_.slice_end(timestamp)):
            self.into_windows(held)
        else:
            self.global_.hold(held, timestamp)

    def into_windows(self, held):
        at, self.output.at = self.output.at, held[0]
        super().process_element(*held[1:])
        self.output.at = at


class DropsWhatNoWindowTakes:
    """`dropped_when_in_no_window=True`: a record that no window took is late, whatever its timestamp (the
    operator asks only for such a record)."""

    def is_element_late(self, timestamp):
        return self.is_event_time


#: Which mixin each switch brings, when it is not at Flink's default.
MIXINS: list[tuple[Callable[[Dialect], bool], type]] = [
    (lambda d: not d.sessions_merge_when_touching, TouchingSessionsStayApart),
    (lambda d: d.drop_when_past_cleanup_strictly, DropWhenPastCleanupStrictly),
    (lambda d: not d.merges_before_lateness, LatenessBeforeMerge),
    (lambda d: d.firing_timestamp == "trigger_time", TriggerTime),
    (lambda d: d.long_arithmetic == "unbounded", UnboundedArithmetic),
    (lambda d: d.initial_watermark != LONG_MIN, StartsAtWatermark),
    (lambda d: d.trigger_state_merges == "first_of_bag", MergesTriggerStateAsABag),
    (lambda d: d.merging_windows_outlive_cleanup, MergingWindowsOutliveCleanup),
    (lambda d: d.sliding_windows_from_zero, SlidingWindowsFromZero),
    # before `FromRecordTimestamps`, which names a session from its records once this has named it
    (lambda d: d.session_fires_at == "gap_after_end", SessionClosesGapAfterEnd),
    (lambda d: d.window_expiry == "last_expired_grid", ExpiresOnLastExpiredGrid),
    (lambda d: d.firing_timestamp == "max_record_timestamp" or d.session_window_end == "last_record",
     FromRecordTimestamps),
    (lambda d: d.session_late_strictly, SessionLateStrictly),
    (lambda d: d.emits == "every_update", EmitsEveryUpdate),
    (lambda d: d.emits == "every_session_update", EmitsEverySessionUpdate),
    (lambda d: d.windows_start_from_offset, WindowsStartFromOffset),
    (lambda d: not d.late_when_in_no_window, NeverLateInNoWindow),
    (lambda d: d.late_records == "behind_watermark", LateBehindWatermark),
    (lambda d: d.late_records == "any_window" and d.window_expiry == "cleanup_timer", LateForAnyWindow),
    (lambda d: d.late_records == "earliest_window", LateForEarliestWindow),
    (lambda d: d.session_fires_at == "end", SessionFiresAtEnd),
    (lambda d: d.allowed_lateness == "ignored", IgnoresAllowedLateness),
    (lambda d: d.pre_aggregation_watermark_starts_at is not None, PreAggregationHoldsRecords),
    (lambda d: d.dropped_when_in_no_window, DropsWhatNoWindowTakes),
]

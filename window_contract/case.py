"""The `Case`: one window specification and one input stream, as one window operator sees it.

The types mirror the `window-case/1` format (docs/format.md) and read like Flink's own API::

    Case(window=tumbling(1000), events=[record("a", 1, ts=999), watermark(999)])
    Case(window=session(gap=10), trigger=PurgingTrigger(CountTrigger(2)), allowed_lateness=5, ...)

They are plain immutable values: what a window spec *does* is each implementation's business.

**The one vocabulary table.** Every kind of assigner, trigger, evictor and event states, next to its
fields, its JSON tag (`tag`) and the feature a case with it needs (`feature`), as Beam keeps a
window's URN beside its class. `ASSIGNERS`, `TRIGGERS`, `EVICTORS` and `EVENTS` list the kinds; the
JSON reader (`case_json.py`), the JSON writer (at the end of this module, beside the classes it
writes), the feature names (`features.py`), the JSON Schema (`schemas.py`) and the strategies'
choices are derived from them, so a new kind is one class here (and its semantics in each
implementation).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Generic, Literal, NamedTuple, TypeVar

from window_contract.observation import Observation
from window_contract.observation_json import observation_to_json

#: The public names: the case, each kind of the vocabulary (a new kind adds its class here too) and the
#: functions that read like Flink's API.
__all__ = [
    "Case", "CASE_FORMAT", "Violates", "case_to_json", "dumps_case",
    # window assigners
    "Tumbling", "Sliding", "Cumulative", "Session", "DynamicSession", "Global", "Count",
    "tumbling", "sliding", "cumulative", "session", "global_window", "count_window",
    # triggers
    "EventTimeTrigger", "ProcessingTimeTrigger", "CountTrigger", "ContinuousEventTimeTrigger",
    "ContinuousProcessingTimeTrigger", "PurgingTrigger", "NeverTrigger", "ProcessingTimeoutTrigger", "DeltaTrigger",
    "AfterEndOfWindowTrigger", "purging",
    # evictors
    "CountEvictor", "TimeEvictor", "DeltaEvictor",
    # watermark generators
    "BoundedOutOfOrdernessWatermarks", "MonotonousWatermarks", "BoundedOutOfOrdernessTimestampExtractor",
    "AscendingTimestampExtractor",
    # events
    "Record", "Watermark", "ProcessingTime", "WatermarkStatus", "EndOfChannel", "record", "watermark",
    "processing_time",
]

#: The `format` of a case document.
CASE_FORMAT = "window-case/1"

Time = Literal["event", "processing"]


class Feature(NamedTuple):
    """A feature name an implementation declares, and what it means in the report."""

    name: str
    description: str


#: Features that no single kind owns: they follow from a kind's values or from the case's fields.
PROCESSING_TIME = Feature("time.processing", "processing-time assigners or triggers")
OFFSET = Feature("offset", "a window offset other than 0")
EVICT_AFTER = Feature("evictor.after", "evicting after the window function")


class Kind:
    """One kind of a part of the format (an assigner, a trigger, an evictor, an event).

    `tag` is its name in JSON; `feature` the feature a case that uses it needs. `needs()` adds what
    its values need (an offset, processing time, a nested trigger's own features).
    """

    tag: ClassVar[str]
    feature: ClassVar[Feature | None] = None

    def needs(self) -> set[str]:
        own = {self.feature.name} if self.feature else set()
        return own | {name for part in self.parts() for name in part.needs()}

    def parts(self) -> Iterator[Kind]:
        """The kinds nested in this one (a `PurgingTrigger`'s inner trigger)."""
        return (v for v in (getattr(self, f.name) for f in fields(self)) if isinstance(v, Kind))

    def parameters(self) -> Iterator[int]:
        """Every integer parameter, nested ones included (for the `extreme_values` feature)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Kind):
                yield from value.parameters()
            elif type(value) is int:
                yield value


K = TypeVar("K", bound=Kind)


class Vocabulary(Generic[K]):
    """The kinds of one part of the format by JSON tag; `field` is the JSON field that holds the tag."""

    def __init__(self, field: str, *kinds: type[K]) -> None:
        self.field = field
        self.by_tag: dict[str, type[K]] = {k.tag: k for k in kinds}

    def __iter__(self) -> Iterator[type[K]]:
        return iter(self.by_tag.values())

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(self.by_tag)


def _time_needs(time: Time) -> set[str]:
    return {PROCESSING_TIME.name} if time == "processing" else set()


# --- window assigners -----------------------------------------------------------------------


@dataclass(frozen=True)
class Tumbling(Kind):
    """`TumblingEventTimeWindows.of(size, offset)` (or `TumblingProcessingTimeWindows`)."""

    tag: ClassVar[str] = "tumbling"
    feature: ClassVar[Feature] = Feature("assigner.tumbling", "tumbling windows")

    size: int
    offset: int = 0
    time: Time = "event"

    def needs(self) -> set[str]:
        return super().needs() | _time_needs(self.time) | ({OFFSET.name} if self.offset else set())


@dataclass(frozen=True)
class Sliding(Kind):
    """`SlidingEventTimeWindows.of(size, slide, offset)` (or `SlidingProcessingTimeWindows`)."""

    tag: ClassVar[str] = "sliding"
    feature: ClassVar[Feature] = Feature("assigner.sliding", "sliding windows")

    size: int
    slide: int
    offset: int = 0
    time: Time = "event"

    def needs(self) -> set[str]:
        return super().needs() | _time_needs(self.time) | ({OFFSET.name} if self.offset else set())


@dataclass(frozen=True)
class Cumulative(Kind):
    """Flink SQL's `CUMULATE(TABLE t, DESCRIPTOR(rowtime), step, size, offset)` (the table runtime's
    `CumulativeWindowAssigner`): windows `[start, start + step)`, `[start, start + 2 * step)`, ..., `[start, start +
    size)` sharing a start aligned to `size` (plus `offset`), an element in those ending after it. Event time only
    (`PROCTIME()` is the wall clock); `size` must be a positive multiple of a positive `step`, and any offset is
    taken (windows align to it modulo `size`)."""

    tag: ClassVar[str] = "cumulative"
    feature: ClassVar[Feature] = Feature("assigner.cumulative", "cumulative windows (Flink SQL's CUMULATE)")
    #: `CUMULATE` takes only the event-time attribute here: a processing-time one is the wall clock.
    time: ClassVar[Time] = "event"

    step: int
    size: int
    offset: int = 0

    def needs(self) -> set[str]:
        return super().needs() | ({OFFSET.name} if self.offset else set())


@dataclass(frozen=True)
class Session(Kind):
    """`EventTimeSessionWindows.withGap(gap)` (or `ProcessingTimeSessionWindows`)."""

    tag: ClassVar[str] = "session"
    feature: ClassVar[Feature] = Feature("assigner.session", "session windows (merging)")

    gap: int
    time: Time = "event"

    def needs(self) -> set[str]:
        return super().needs() | _time_needs(self.time)


@dataclass(frozen=True)
class Global(Kind):
    """`GlobalWindows.create()`: one window per key, default trigger `NeverTrigger`."""

    tag: ClassVar[str] = "global"
    feature: ClassVar[Feature] = Feature("assigner.global", "the global window")


@dataclass(frozen=True)
class Count(Kind):
    """`KeyedStream.countWindow(size[, slide])`.

    Flink builds it as `GlobalWindows` with `PurgingTrigger.of(CountTrigger.of(size))`, or, with a
    slide, `CountTrigger.of(slide)` and `CountEvictor.of(size)`.
    """

    tag: ClassVar[str] = "count"
    feature: ClassVar[Feature] = Feature("assigner.count", "count windows (countWindow)")

    size: int
    slide: int | None = None


#: The gap extractors a case names (the format carries no code), `SessionWindowTimeGapExtractor.extract`
#: over a record: `value` is the record's value itself.
GapExtractor = Literal["value"]


@dataclass(frozen=True)
class DynamicSession(Kind):
    """`EventTimeSessionWindows.withDynamicGap(extractor)` (or `ProcessingTimeSessionWindows`): `[t, t +
    gap)` with the gap the extractor gives each record, merged like `Session`. A gap <= 0 fails the job
    when that record arrives (`Dynamic session time gap must satisfy 0 < gap`)."""

    tag: ClassVar[str] = "dynamic_session"
    feature: ClassVar[Feature] = Feature("assigner.dynamic_session",
                                         "session windows with a dynamic gap (withDynamicGap)")

    gap_extractor: GapExtractor
    time: Time = "event"

    def needs(self) -> set[str]:
        return super().needs() | _time_needs(self.time)


WindowSpec = Tumbling | Sliding | Cumulative | Session | Global | Count | DynamicSession
ASSIGNERS: Vocabulary[WindowSpec] = Vocabulary("assigner", Tumbling, Sliding, Cumulative, Session, Global, Count,
                                               DynamicSession)
#: The time windows that `EventTimeTrigger` and `ProcessingTimeTrigger` fit and that never merge.
ALIGNED_ASSIGNERS = (Tumbling, Sliding, Cumulative)
#: The merging assigners: session windows, static or dynamic.
MERGING_ASSIGNERS = (Session, DynamicSession)


def tumbling(size: int, offset: int = 0, time: Time = "event") -> Tumbling:
    return Tumbling(size, offset, time)


def sliding(size: int, slide: int, offset: int = 0, time: Time = "event") -> Sliding:
    return Sliding(size, slide, offset, time)


def cumulative(step: int, size: int, offset: int = 0) -> Cumulative:
    """`CUMULATE(TABLE t, DESCRIPTOR(rowtime), step, size, offset)`: step first, as SQL writes it."""
    return Cumulative(step, size, offset)


def session(gap: int, time: Time = "event") -> Session:
    return Session(gap, time)


def global_window() -> Global:
    return Global()


def count_window(size: int, slide: int | None = None) -> Count:
    return Count(size, slide)


# --- triggers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EventTimeTrigger(Kind):
    """`EventTimeTrigger.create()`: fires when the watermark passes the window's `maxTimestamp`."""

    tag: ClassVar[str] = "event_time"
    feature: ClassVar[Feature] = Feature("trigger.event_time", "an explicit EventTimeTrigger")


@dataclass(frozen=True)
class ProcessingTimeTrigger(Kind):
    """`ProcessingTimeTrigger.create()`: fires when processing time passes the window's `maxTimestamp`."""

    tag: ClassVar[str] = "processing_time"
    feature: ClassVar[Feature] = Feature("trigger.processing_time", "an explicit ProcessingTimeTrigger")

    def needs(self) -> set[str]:
        return super().needs() | {PROCESSING_TIME.name}


@dataclass(frozen=True)
class CountTrigger(Kind):
    """`CountTrigger.of(count)`: fires once `count` elements have arrived in the window since the last firing."""

    tag: ClassVar[str] = "count"
    feature: ClassVar[Feature] = Feature("trigger.count", "CountTrigger")

    count: int


@dataclass(frozen=True)
class ContinuousEventTimeTrigger(Kind):
    """`ContinuousEventTimeTrigger.of(interval)`: fires every `interval` of event time, and at the window's end."""

    tag: ClassVar[str] = "continuous_event_time"
    feature: ClassVar[Feature] = Feature("trigger.continuous_event_time", "ContinuousEventTimeTrigger")

    interval: int


@dataclass(frozen=True)
class ContinuousProcessingTimeTrigger(Kind):
    """`ContinuousProcessingTimeTrigger.of(interval)`: fires every `interval` of processing time, and at the
    window's end."""

    tag: ClassVar[str] = "continuous_processing_time"
    feature: ClassVar[Feature] = Feature("trigger.continuous_processing_time", "ContinuousProcessingTimeTrigger")

    interval: int

    def needs(self) -> set[str]:
        return super().needs() | {PROCESSING_TIME.name}


@dataclass(frozen=True)
class PurgingTrigger(Kind):
    """`PurgingTrigger.of(inner)`: turns every FIRE of `inner` into FIRE_AND_PURGE."""

    tag: ClassVar[str] = "purging"
    feature: ClassVar[Feature] = Feature("trigger.purging", "PurgingTrigger")

    inner: TriggerSpec


@dataclass(frozen=True)
class NeverTrigger(Kind):
    """`GlobalWindows.NeverTrigger`: never fires."""

    tag: ClassVar[str] = "never"
    feature: ClassVar[Feature] = Feature("trigger.never", "NeverTrigger")


@dataclass(frozen=True)
class ProcessingTimeoutTrigger(Kind):
    """`ProcessingTimeoutTrigger.of(inner, Duration.ofMillis(timeout), reset_timer_on_new_record,
    should_clear_on_timeout)`: fires when `inner` fires on an element, and on every timer of the
    window, its own timeout `timeout` after the first element (after the last one with
    `reset_timer_on_new_record`) included. Flink checks none of its arguments, and it cannot merge."""

    tag: ClassVar[str] = "processing_timeout"
    feature: ClassVar[Feature] = Feature("trigger.processing_timeout", "ProcessingTimeoutTrigger")

    inner: TriggerSpec
    timeout: int
    reset_timer_on_new_record: bool = False
    should_clear_on_timeout: bool = True

    def needs(self) -> set[str]:
        return super().needs() | {PROCESSING_TIME.name}


#: The delta functions a case names (the format carries no code): `getDelta(oldDataPoint, newDataPoint)`
#: over two record values, each converted to a Java `double` first (beyond 2^53 that rounds):
#: `absolute_difference` is `Math.abs((double) old - (double) new)`, `difference` is
#: `(double) new - (double) old`.
DeltaFunction = Literal["absolute_difference", "difference"]


@dataclass(frozen=True)
class DeltaTrigger(Kind):
    """`DeltaTrigger.of(threshold, deltaFunction, serializer)`: fires when the delta between the last
    element that fired (the window's first element to begin with) and the new one is `> threshold`
    (a Java `double`). It cannot merge."""

    tag: ClassVar[str] = "delta"
    feature: ClassVar[Feature] = Feature("trigger.delta", "DeltaTrigger")

    threshold: float
    delta_function: DeltaFunction


@dataclass(frozen=True)
class AfterEndOfWindowTrigger(Kind):
    """Flink SQL's emit strategy of a legacy group window (`GROUP BY TUMBLE/HOP(rowtime, ...)`), the table
    runtime's `EventTimeTriggers.afterEndOfWindow()` as `WindowEmitStrategy` builds it from
    `table.exec.emit.early-fire.enabled/delay` and `table.exec.emit.late-fire.enabled/delay`:
    `.withEarlyFirings(...)` when `early_firing_delay` is set, `.withLateFirings(...)` when `late_firing_delay` is;
    a delay of 0 fires on every element (`ElementTriggers.every()`), one above 0 every `delay` of processing time
    after the window's first element (`ProcessingTimeTriggers.every(delay)`). Absent or null: that firing is off
    (and with late firing off, the case's allowed lateness is ignored). A window fired so emits only a result that
    changed (docs/format.md, *Flink SQL's emit strategy*)."""

    tag: ClassVar[str] = "after_end_of_window"
    feature: ClassVar[Feature] = Feature("trigger.after_end_of_window",
                                         "Flink SQL's emit strategy (EventTimeTriggers.afterEndOfWindow)")

    early_firing_delay: int | None = None
    late_firing_delay: int | None = None

    def needs(self) -> set[str]:
        """A delay above 0 needs `FIRE_DELAY`, not `time.processing`: its timers are the emit strategy's own, on
        event-time windows, and a SQL engine that drives them need not run processing-time windows."""
        periodic = any(delay is not None and delay > 0 for delay in (self.early_firing_delay, self.late_firing_delay))
        return super().needs() | ({FIRE_DELAY.name} if periodic else set())


#: `AfterEndOfWindowTrigger`'s early or late firing with a delay above 0 (`ProcessingTimeTriggers.every(delay)`).
FIRE_DELAY = Feature("trigger.after_end_of_window.delay",
                     "Flink SQL's emit strategy with a delay above 0 (ProcessingTimeTriggers.every)")


TriggerSpec = (EventTimeTrigger | ProcessingTimeTrigger | CountTrigger | ContinuousEventTimeTrigger
               | ContinuousProcessingTimeTrigger | PurgingTrigger | NeverTrigger | ProcessingTimeoutTrigger
               | DeltaTrigger | AfterEndOfWindowTrigger)
TRIGGERS: Vocabulary[TriggerSpec] = Vocabulary(
    "type", EventTimeTrigger, ProcessingTimeTrigger, CountTrigger, ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger, PurgingTrigger, NeverTrigger, ProcessingTimeoutTrigger, DeltaTrigger,
    AfterEndOfWindowTrigger)


def purging(inner: TriggerSpec) -> PurgingTrigger:
    return PurgingTrigger(inner)


#: The triggers that wrap another (`inner`), pass its results on and take its window type.
WRAPPERS: tuple[type[Kind], ...] = (PurgingTrigger, ProcessingTimeoutTrigger)


def nested_triggers(trigger: TriggerSpec | None, through: tuple[type[Kind], ...] = WRAPPERS) -> Iterator[TriggerSpec]:
    """`trigger` and the triggers nested in it, outermost first, down through the wrappers of the kinds `through`:
    every wrapper (a `ProcessingTimeoutTrigger`'s nested trigger still registers its timers and decides on
    elements), or `(PurgingTrigger,)` only, where the question is when the window fires (a
    `ProcessingTimeoutTrigger` fires it on its own timer too, and clears the nested trigger on timeout)."""
    while trigger is not None:
        yield trigger
        trigger = trigger.inner if isinstance(trigger, through) else None


def innermost_trigger(trigger: TriggerSpec | None, through: tuple[type[Kind], ...] = WRAPPERS) -> TriggerSpec | None:
    """The trigger inside every wrapper of the kinds `through` around `trigger` (`nested_triggers`' last)."""
    while isinstance(trigger, through):
        trigger = trigger.inner
    return trigger


# --- evictors ---------------------------------------------------------------------------------


class Evictor(Kind):
    """An evictor; `after`: evict after the window function (`evictAfter`) instead of before."""

    def needs(self) -> set[str]:
        return super().needs() | ({EVICT_AFTER.name} if self.after else set())  # type: ignore[attr-defined]


@dataclass(frozen=True)
class CountEvictor(Evictor):
    """`CountEvictor.of(max_count, after)`: keeps the last `max_count` elements (by arrival); `after`: evict
    after the function."""

    tag: ClassVar[str] = "count"
    feature: ClassVar[Feature] = Feature("evictor.count", "CountEvictor")

    max_count: int
    after: bool = False


@dataclass(frozen=True)
class TimeEvictor(Evictor):
    """`TimeEvictor.of(size, after)`: keeps elements with `ts > max(ts) - size`; `after`: evict after the
    function."""

    tag: ClassVar[str] = "time"
    feature: ClassVar[Feature] = Feature("evictor.time", "TimeEvictor")

    size: int
    after: bool = False


@dataclass(frozen=True)
class DeltaEvictor(Evictor):
    """`DeltaEvictor.of(threshold, deltaFunction, doEvictAfter)`: removes every element whose delta to
    the window's last element (`getDelta(element, last)`) is `>= threshold`; `after`: evict after the
    function."""

    tag: ClassVar[str] = "delta"
    feature: ClassVar[Feature] = Feature("evictor.delta", "DeltaEvictor")

    threshold: float
    delta_function: DeltaFunction
    after: bool = False


EvictorSpec = CountEvictor | TimeEvictor | DeltaEvictor
EVICTORS: Vocabulary[EvictorSpec] = Vocabulary("type", CountEvictor, TimeEvictor, DeltaEvictor)


# --- watermark generators (docs/format.md) ----------------------------------------------------


PERIODIC = Feature("watermark.periodic", "periodic watermark emission (pipeline.auto-watermark-interval)")
PUNCTUATED = Feature("watermark.punctuated", "a watermark after every record (punctuated emission)")
IDLENESS = Feature("watermark.idleness", "WatermarkStrategy.withIdleness")


@dataclass(frozen=True)
class WatermarkGeneratorSpec(Kind):
    """A watermark generator per channel, fed that channel's records, as `assignTimestampsAndWatermarks`
    after a parallel source. `interval` is `pipeline.auto-watermark-interval` (ms; 0 switches periodic
    emission off), `punctuated` emits after every record instead, `idleness` is `withIdleness(timeout)`."""

    interval: int = field(default=200, kw_only=True, metadata={
        "description": "pipeline.auto-watermark-interval in ms; 0 switches periodic emission off"})
    punctuated: bool = field(default=False, kw_only=True, metadata={
        "description": "emit after every record instead of periodically"})
    idleness: int | None = field(default=None, kw_only=True, metadata={"description": "withIdleness(timeout), or null"})

    def needs(self) -> set[str]:
        emission = PUNCTUATED if self.punctuated else PERIODIC
        return super().needs() | {emission.name} | ({IDLENESS.name} if self.idleness is not None else set())


@dataclass(frozen=True)
class BoundedOutOfOrdernessWatermarks(WatermarkGeneratorSpec):
    """`WatermarkStrategy.forBoundedOutOfOrderness(Duration.ofMillis(bound))`."""

    tag: ClassVar[str] = "bounded_out_of_orderness"
    feature: ClassVar[Feature] = Feature("watermark.bounded_out_of_orderness",
                                         "WatermarkStrategy.forBoundedOutOfOrderness")

    bound: int


@dataclass(frozen=True)
class MonotonousWatermarks(WatermarkGeneratorSpec):
    """`WatermarkStrategy.forMonotonousTimestamps()` (`AscendingTimestampsWatermarks`)."""

    tag: ClassVar[str] = "monotonous"
    feature: ClassVar[Feature] = Feature("watermark.monotonous", "WatermarkStrategy.forMonotonousTimestamps")


@dataclass(frozen=True)
class BoundedOutOfOrdernessTimestampExtractor(WatermarkGeneratorSpec):
    """The legacy `BoundedOutOfOrdernessTimestampExtractor(Time.milliseconds(bound))`."""

    tag: ClassVar[str] = "legacy_bounded_out_of_orderness"
    feature: ClassVar[Feature] = Feature("watermark.legacy_bounded_out_of_orderness",
                                         "the legacy BoundedOutOfOrdernessTimestampExtractor")

    bound: int


@dataclass(frozen=True)
class AscendingTimestampExtractor(WatermarkGeneratorSpec):
    """The legacy `AscendingTimestampExtractor`."""

    tag: ClassVar[str] = "legacy_ascending"
    feature: ClassVar[Feature] = Feature("watermark.legacy_ascending", "the legacy AscendingTimestampExtractor")


WatermarkGenerator = (BoundedOutOfOrdernessWatermarks | MonotonousWatermarks | BoundedOutOfOrdernessTimestampExtractor
                      | AscendingTimestampExtractor)
GENERATORS: Vocabulary[WatermarkGenerator] = Vocabulary(
    "type", BoundedOutOfOrdernessWatermarks, MonotonousWatermarks, BoundedOutOfOrdernessTimestampExtractor,
    AscendingTimestampExtractor)


# --- events -----------------------------------------------------------------------------------


#: The metadata of an event's field that cannot be negative: channels count from 0, and the
#: processing-time clock starts at 0 (the JSON reader and the schema read it).
NON_NEGATIVE = {"minimum": 0}


class EventKind(Kind):
    """An event of the stream. In JSON an event is an object with its tag as one field; `holds` names
    the field whose value the tag holds (the others stand beside it), or is `None` when the tag holds
    an object of all the fields."""

    holds: ClassVar[str | None] = None


@dataclass(frozen=True)
class Record(EventKind):
    """A keyed record with its event timestamp, from input `channel`.
    JSON: `{"record": {"key", "value", "ts", "channel"}}`."""

    tag: ClassVar[str] = "record"

    key: str
    value: int
    ts: int
    channel: int = field(default=0, metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class Watermark(EventKind):
    """`Watermark(timestamp)` from input `channel`: no more records with `ts <= timestamp` are expected
    there. JSON: `{"watermark": timestamp, "channel": n}`."""

    tag: ClassVar[str] = "watermark"
    holds: ClassVar[str] = "timestamp"

    timestamp: int
    channel: int = field(default=0, metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class ProcessingTime(EventKind):
    """The processing-time clock advances to `time` (it starts at 0 and never goes back).
    JSON: `{"processing_time": time}`."""

    tag: ClassVar[str] = "processing_time"
    holds: ClassVar[str] = "time"

    time: int = field(metadata=NON_NEGATIVE)


@dataclass(frozen=True)
class WatermarkStatus(EventKind):
    """Input `channel` becomes idle or active again (`WatermarkStatus.IDLE` / `ACTIVE`, a source that
    calls `markIdle`). JSON: `{"watermark_status": {"channel", "idle"}}`."""

    tag: ClassVar[str] = "watermark_status"
    feature: ClassVar[Feature] = Feature("channel.status", "channels marked idle or active by their source")

    channel: int = field(metadata=NON_NEGATIVE)
    idle: bool


@dataclass(frozen=True)
class EndOfChannel(EventKind):
    """Input `channel` ends: its watermark becomes `Long.MAX_VALUE`. JSON: `{"end_of_channel": n}`."""

    tag: ClassVar[str] = "end_of_channel"
    holds: ClassVar[str] = "channel"
    feature: ClassVar[Feature] = Feature("channel.end", "an input channel that ends before the others")

    channel: int = field(metadata=NON_NEGATIVE)


Event = Record | Watermark | ProcessingTime | WatermarkStatus | EndOfChannel
EVENTS: Vocabulary[Event] = Vocabulary("", Record, Watermark, ProcessingTime, WatermarkStatus, EndOfChannel)


def record(key: str, value: int, ts: int, channel: int = 0) -> Record:
    return Record(key, value, ts, channel)


def watermark(timestamp: int, channel: int = 0) -> Watermark:
    return Watermark(timestamp, channel)


def processing_time(time: int) -> ProcessingTime:
    return ProcessingTime(time)


# --- the case ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One `window-case/1` case. Defaults are the format's (and Flink's) defaults."""

    window: WindowSpec
    events: tuple[Event, ...] = ()
    trigger: TriggerSpec | None = None
    evictor: EvictorSpec | None = None
    allowed_lateness: int = 0
    late_side_output: bool = False
    end_of_input: bool = True
    #: Parallel upstream instances feeding the one window operator (docs/format.md).
    channels: int = 1
    #: `None`: the case's own `watermark` events are the watermarks.
    watermark_generator: WatermarkGenerator | None = None
    name: str | None = None
    expected: Observation | None = field(default=None, compare=False)
    #: A saved counterexample: the property of the suite it breaks (`replay --check` checks it again).
    violates: Violates | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        # Accept any iterable of events in the Python API; store a tuple so the case stays hashable.
        object.__setattr__(self, "events", tuple(self.events))

    @property
    def records(self) -> tuple[Record, ...]:
        return tuple(e for e in self.events if isinstance(e, Record))

    @property
    def observes_watermarks(self) -> bool:
        """Whether the observation holds the window operator's input watermarks (`watermarks`)."""
        return self.watermark_generator is not None or self.channels > 1

    @property
    def time(self) -> Time:
        """The assigner's notion of time (`global` and `count` windows are neither: `event`)."""
        return getattr(self.window, "time", "event")

    @property
    def lateness_in_effect(self) -> int:
        """The allowed lateness the window operator keeps: `allowed_lateness`, but under Flink SQL's emit strategy
        (`after_end_of_window`) 0 without late firing or on session windows (`WindowEmitStrategy`'s
        `parseAllowLateness`)."""
        if isinstance(self.trigger, AfterEndOfWindowTrigger) and (
                self.trigger.late_firing_delay is None or isinstance(self.window, MERGING_ASSIGNERS)):
            return 0
        return self.allowed_lateness

    def to_json(self) -> str:
        """The case as one line of `window-case/1` JSON.

        Hypothesis's observability (which `run` reads examples from) records every drawn value by
        its `to_json()` when it has one; its generic walk of the dataclass tree, pretty-printed,
        cost about 2 ms a case, a quarter of the suite's time under `run`, and this text tells the
        case in its own format for a fortieth of that."""
        return json.dumps(case_to_json(self))


@dataclass(frozen=True)
class Violates:
    """The property of the suite that a saved counterexample breaks (`violates` in the case format): its name
    (the test's without `test_`), and what the rule compared the case with, so that `replay --check` checks
    the same rule again: the `batch` of cases it was run in (a rule about batches), or the `original` case
    the rule changed into this one (a rule about a change that changes nothing)."""

    property: str
    batch: tuple[Case, ...] = ()
    original: Case | None = None


# --- writing JSON: the canonical form of each kind, event and case -----------------------------


def case_to_json(case: Case) -> dict[str, Any]:
    """The canonical JSON form: every field present, so a dump states the whole case."""
    doc: dict[str, Any] = {"format": CASE_FORMAT}
    if case.name is not None:
        doc["name"] = case.name
    doc |= {
        "window": kind_to_json(ASSIGNERS, case.window),
        "trigger": kind_to_json(TRIGGERS, case.trigger),
        "evictor": kind_to_json(EVICTORS, case.evictor),
        "allowed_lateness": case.allowed_lateness,
        "late_side_output": case.late_side_output,
        "events": [event_to_json(e) for e in case.events],
        "end_of_input": case.end_of_input,
    }
    if case.channels != 1:
        doc["channels"] = case.channels
    if case.watermark_generator is not None:
        doc["watermark_generator"] = kind_to_json(GENERATORS, case.watermark_generator)
    if case.expected is not None:
        doc["expected"] = observation_to_json(case.expected)
    if case.violates is not None:
        doc["violates"] = violates_to_json(case.violates)
    return doc


def violates_to_json(violates: Violates) -> dict[str, Any]:
    doc: dict[str, Any] = {"property": violates.property}
    if violates.batch:
        doc["batch"] = [case_to_json(c) for c in violates.batch]
    if violates.original is not None:
        doc["original"] = case_to_json(violates.original)
    return doc


def kind_to_json(vocabulary: Vocabulary, kind: Kind | None) -> dict[str, Any] | None:
    """`{"<field>": tag, ...parameters}`; an optional parameter that is `None` is left out."""
    if kind is None:
        return None
    doc: dict[str, Any] = {vocabulary.field: kind.tag}
    for f in dataclasses.fields(kind):
        value = getattr(kind, f.name)
        if isinstance(value, Kind):
            doc[f.name] = kind_to_json(TRIGGERS, value)
        elif value is not None:
            doc[f.name] = value
    return doc


def event_to_json(e: Event) -> dict[str, Any]:
    """The event's tag holding its `holds` field or an object of its fields; a field at its default
    (channel 0) is left out, so a case of one channel reads as it did before channels existed."""
    values = {f.name: getattr(e, f.name) for f in dataclasses.fields(e)
              if f.default is dataclasses.MISSING or getattr(e, f.name) != f.default}
    if e.holds is None:
        return {e.tag: values}
    return {e.tag: values.pop(e.holds)} | values


def dumps_case(case: Case) -> str:
    return json.dumps(case_to_json(case), indent=2)

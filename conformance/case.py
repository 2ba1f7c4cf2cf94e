"""The `Case`: one window specification and one input stream, as one window operator sees it.

The types mirror the `window-case/1` format of DESIGN.md §2 and read like Flink's own API::

    Case(window=tumbling(1000), events=[record("a", 1, ts=999), watermark(999)])
    Case(window=session(gap=10), trigger=PurgingTrigger(CountTrigger(2)), allowed_lateness=5, ...)

They are plain immutable values: what a window spec *does* is each implementation's business.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from conformance.observation import Observation


Time = Literal["event", "processing"]


# --- window assigners -----------------------------------------------------------------------


@dataclass(frozen=True)
class Tumbling:
    """`TumblingEventTimeWindows.of(size, offset)` (or `TumblingProcessingTimeWindows`)."""

    size: int
    offset: int = 0
    time: Time = "event"


@dataclass(frozen=True)
class Sliding:
    """`SlidingEventTimeWindows.of(size, slide, offset)` (or `SlidingProcessingTimeWindows`)."""

    size: int
    slide: int
    offset: int = 0
    time: Time = "event"


@dataclass(frozen=True)
class Session:
    """`EventTimeSessionWindows.withGap(gap)` (or `ProcessingTimeSessionWindows`)."""

    gap: int
    time: Time = "event"


@dataclass(frozen=True)
class Global:
    """`GlobalWindows.create()`: one window per key, default trigger `NeverTrigger`."""


@dataclass(frozen=True)
class Count:
    """`KeyedStream.countWindow(size[, slide])`.

    Flink builds it as `GlobalWindows` with `PurgingTrigger.of(CountTrigger.of(size))`, or, with a
    slide, `CountTrigger.of(slide)` and `CountEvictor.of(size)`.
    """

    size: int
    slide: int | None = None


WindowSpec = Tumbling | Sliding | Session | Global | Count


def tumbling(size: int, offset: int = 0, time: Time = "event") -> Tumbling:
    return Tumbling(size, offset, time)


def sliding(size: int, slide: int, offset: int = 0, time: Time = "event") -> Sliding:
    return Sliding(size, slide, offset, time)


def session(gap: int, time: Time = "event") -> Session:
    return Session(gap, time)


def global_window() -> Global:
    return Global()


def count_window(size: int, slide: int | None = None) -> Count:
    return Count(size, slide)


# --- triggers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EventTimeTrigger:
    """Fires when the watermark passes the window's `maxTimestamp`."""


@dataclass(frozen=True)
class ProcessingTimeTrigger:
    """Fires when processing time passes the window's `maxTimestamp`."""


@dataclass(frozen=True)
class CountTrigger:
    """Fires once `count` elements have arrived in the window since the last firing."""

    count: int


@dataclass(frozen=True)
class ContinuousEventTimeTrigger:
    """Fires every `interval` of event time, and at the window's end."""

    interval: int


@dataclass(frozen=True)
class ContinuousProcessingTimeTrigger:
    """Fires every `interval` of processing time, and at the window's end."""

    interval: int


@dataclass(frozen=True)
class PurgingTrigger:
    """Turns every FIRE of `inner` into FIRE_AND_PURGE."""

    inner: TriggerSpec


@dataclass(frozen=True)
class NeverTrigger:
    """`GlobalWindows.NeverTrigger`: never fires."""


TriggerSpec = (EventTimeTrigger | ProcessingTimeTrigger | CountTrigger | ContinuousEventTimeTrigger
               | ContinuousProcessingTimeTrigger | PurgingTrigger | NeverTrigger)


def purging(inner: TriggerSpec) -> PurgingTrigger:
    return PurgingTrigger(inner)


# --- evictors ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CountEvictor:
    """Keeps the last `max_count` elements (by arrival); `after`: evict after the function."""

    max_count: int
    after: bool = False


@dataclass(frozen=True)
class TimeEvictor:
    """Keeps elements with `ts > max(ts) - size`; `after`: evict after the function."""

    size: int
    after: bool = False


EvictorSpec = CountEvictor | TimeEvictor


# --- events -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """A keyed record with its event timestamp."""

    key: str
    value: int
    ts: int


@dataclass(frozen=True)
class Watermark:
    """`Watermark(timestamp)`: no more records with `ts <= timestamp` are expected."""

    timestamp: int


@dataclass(frozen=True)
class ProcessingTime:
    """The processing-time clock advances to `time` (it starts at 0 and never goes back)."""

    time: int


Event = Record | Watermark | ProcessingTime


def record(key: str, value: int, ts: int) -> Record:
    return Record(key, value, ts)


def watermark(timestamp: int) -> Watermark:
    return Watermark(timestamp)


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
    name: str | None = None
    expected: Observation | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        # Accept any iterable of events in the Python API; store a tuple so the case stays hashable.
        object.__setattr__(self, "events", tuple(self.events))

    @property
    def records(self) -> tuple[Record, ...]:
        return tuple(e for e in self.events if isinstance(e, Record))

    @property
    def time(self) -> Time:
        """The assigner's notion of time (`global` and `count` windows are neither: `event`)."""
        return getattr(self.window, "time", "event")

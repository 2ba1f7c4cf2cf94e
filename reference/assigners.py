"""Window assigners: which windows an element belongs to.

Models `org.apache.flink.streaming.api.windowing.assigners`: the tumbling, sliding and session
assigners in event and processing time, and `GlobalWindows`; and the table runtime's
`CumulativeWindowAssigner`, Flink SQL's `CUMULATE`. Constructors check Flink's
preconditions and raise `InvalidSpec` with Flink's message; `repr` is the expression that builds
the assigner in Flink's API. Each class names the kinds of the format it models (`@models`,
`reference.kinds`) and builds itself from one (`from_kind`), with the case's window-start formula.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import islice

from reference.errors import InvalidSpec, JobFailure
from reference.javalong import LONG_MIN, l2i, labs, ladd, ldiv, lrem, lsub
from reference.kinds import models
from reference.windows import GLOBAL_WINDOW, TimeWindow, Window, WindowStart, get_window_start_with_offset
from window_contract import case
from window_contract.facts import (
    DYNAMIC_GAP_MESSAGE,
    MAX_WINDOW_NUM,
    TOO_MANY_WINDOWS,
    WINDOWS_PER_ELEMENT_LIMIT,
    cumulate_multiple_message,
    cumulate_positive_message,
)

NO_TIMESTAMP_MESSAGE = ("Record has Long.MIN_VALUE timestamp (= no timestamp marker). "
                        "Did you forget to call 'DataStream.assignTimestampsAndWatermarks(...)'?")


class WindowAssigner:
    """`WindowAssigner`: windows for an element, its notion of time, its default trigger."""

    is_event_time = True
    is_merging = False

    def assign_windows(self, timestamp: int, current_processing_time: int, value: int = 0) -> list[Window]:
        """The windows of an element of `value`; `current_processing_time` is what Flink's
        `WindowAssignerContext` offers. The caller must not change the list or its windows:
        assigners hand the same ones to later elements."""
        raise NotImplementedError

    def default_trigger(self):
        from reference.triggers import EventTimeTrigger, ProcessingTimeTrigger

        return EventTimeTrigger() if self.is_event_time else ProcessingTimeTrigger()


def element_time(assigner: WindowAssigner, timestamp: int, current_processing_time: int) -> int:
    """Event-time assigners window by the record's timestamp, processing-time ones by the clock."""
    if not assigner.is_event_time:
        return current_processing_time
    if timestamp == LONG_MIN:
        raise JobFailure(NO_TIMESTAMP_MESSAGE, "record.no_timestamp")
    return timestamp


@models(case.Tumbling)
class TumblingWindows(WindowAssigner):
    """`TumblingEventTimeWindows` / `TumblingProcessingTimeWindows`:
    `[N * size + offset, (N + 1) * size + offset)`; requires `abs(offset) < size` (Java `Math.abs`).
    """

    @classmethod
    def from_kind(cls, kind: case.Tumbling, window_start: WindowStart) -> TumblingWindows:
        return cls(kind.size, kind.offset, kind.time == "event", window_start)

    def __init__(self, size: int, offset: int, event_time: bool,
                 window_start: WindowStart = get_window_start_with_offset) -> None:
        self.is_event_time = event_time
        self.name = name = "TumblingEventTimeWindows" if event_time else "TumblingProcessingTimeWindows"
        if labs(offset) >= size:
            raise InvalidSpec(f"{name} parameters must satisfy abs(offset) < size",
                              "tumbling.size" if size <= 0 else "tumbling.offset")
        self.size, self.offset, self.window_start = size, offset, window_start
        # `getWindowStartWithOffset(timestamp, offset % size, size)`: the same `offset % size` for
        # every element, so it is computed once.
        self.start_offset = lrem(offset, size)
        self.last_start: int | None = None
        self.last_windows: list[Window] = []

    def assign_windows(self, timestamp: int, current_processing_time: int, value: int = 0) -> list[Window]:
        time = element_time(self, timestamp, current_processing_time)
        start = self.window_start(time, self.start_offset, self.size)
        # Consecutive elements mostly fall in one window: the window is only built anew (an
        # expensive object in Python) when its start changes.
        if start != self.last_start:
            self.last_start, self.last_windows = start, [TimeWindow(start, ladd(start, self.size))]
        return self.last_windows

    def __repr__(self) -> str:
        return f"{self.name}.of({self.size}, offset={self.offset})"


@models(case.Sliding)
class SlidingWindows(WindowAssigner):
    """`SlidingEventTimeWindows` / `SlidingProcessingTimeWindows`: windows of `size` every `slide`.

    `for (start = lastStart; start > timestamp - size; start -= slide)`: `size` need not be a
    multiple of `slide`, and with `size < slide` some timestamps fall in no window at all. Near
    `Long.MIN_VALUE`, `start -= slide` wraps around and the loop goes on from the top of the range.
    An element given more than `WINDOWS_PER_ELEMENT_LIMIT` windows, wrapped or not, stops the case
    with the contract's `TOO_MANY_WINDOWS` (`window_contract.facts`).
    """

    @classmethod
    def from_kind(cls, kind: case.Sliding, window_start: WindowStart) -> SlidingWindows:
        return cls(kind.size, kind.slide, kind.offset, kind.time == "event", window_start)

    def __init__(self, size: int, slide: int, offset: int, event_time: bool,
                 window_start: WindowStart = get_window_start_with_offset) -> None:
        self.is_event_time = event_time
        self.name = name = "SlidingEventTimeWindows" if event_time else "SlidingProcessingTimeWindows"
        if labs(offset) >= slide or size <= 0:
            raise InvalidSpec(f"{name} parameters must satisfy abs(offset) < slide and size > 0",
                              *sliding_rules(size, slide, offset))
        if event_time and ldiv(size, slide) > MAX_WINDOW_NUM:
            raise InvalidSpec(f"{name} parameters must satisfy size / slide <= {MAX_WINDOW_NUM}", "sliding.windows")
        self.size, self.slide, self.offset, self.window_start = size, slide, offset, window_start
        self.windows = RecentWindows(size)

    def assign_windows(self, timestamp: int, current_processing_time: int, value: int = 0) -> list[Window]:
        time = element_time(self, timestamp, current_processing_time)
        capacity = l2i(ldiv(self.size, self.slide))
        if capacity < 0:  # new ArrayList<>((int) (size / slide))
            raise JobFailure(f"Illegal Capacity: {capacity}", "sliding.capacity")
        start = self.window_start(time, self.offset, self.slide)  # lastStart
        return within_limit(self._loop(start, lsub(time, self.size)))  # down to timestamp - size

    def _loop(self, start: int, lower: int) -> Iterator[Window]:
        while start > lower:
            yield self.windows[start]  # new TimeWindow(start, start + size)
            start = lsub(start, self.slide)  # may wrap past Long.MIN_VALUE to the top of the range

    def __repr__(self) -> str:
        return f"{self.name}.of({self.size}, {self.slide}, offset={self.offset})"


def within_limit(windows: Iterator[Window]) -> list[Window]:
    """The windows an assigner's loop yields for one element, up to the contract's stop: more than
    `WINDOWS_PER_ELEMENT_LIMIT` of them, wrapped or not, stop the case with `TOO_MANY_WINDOWS`."""
    taken = list(islice(windows, WINDOWS_PER_ELEMENT_LIMIT + 1))
    if len(taken) > WINDOWS_PER_ELEMENT_LIMIT:
        raise JobFailure(TOO_MANY_WINDOWS, "contract.too_many_windows")
    return taken


def sliding_rules(size: int, slide: int, offset: int) -> tuple[str, ...]:
    """Which parameters break `SlidingEventTimeWindows`' one check, `abs(offset) < slide and size > 0`: a slide
    of 0 or below (no offset is then below it), else an offset as large as the slide; and a size of 0 or below."""
    rules = ("sliding.slide",) if slide <= 0 else ("sliding.offset",) if labs(offset) >= slide else ()
    return rules + (("sliding.size",) if size <= 0 else ())


#: How many recently assigned windows a sliding assigner keeps for later elements.
RECENT_WINDOWS_LIMIT = 1000


class RecentWindows(dict[int, TimeWindow]):
    """The windows of `size` a sliding assigner handed out lately, by start: `recent[start]` is
    `new TimeWindow(start, start + size)`, built once and handed to later elements too (a window
    belongs to the elements of `size / slide` slides, and building one is expensive in Python).
    Emptied when it holds `RECENT_WINDOWS_LIMIT` windows."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def __missing__(self, start: int) -> TimeWindow:
        if len(self) >= RECENT_WINDOWS_LIMIT:
            self.clear()
        window = self[start] = TimeWindow(start, ladd(start, self.size))
        return window


@models(case.Cumulative)
class CumulativeWindows(WindowAssigner):
    """The table runtime's `CumulativeWindowAssigner` (`org.apache.flink.table.runtime.operators.window.groupwindow.
    assigners`), Flink SQL's `CUMULATE(TABLE t, DESCRIPTOR(rowtime), step, size, offset)`: an element at `t` is in
    `[start, end)` for `start = getWindowStartWithOffset(t, offset, size)` and every `end` from
    `getWindowStartWithOffset(t, offset, step) + step` up to `start + size`, by `step` (`size / step` windows at most,
    all sharing the start). Each is an ordinary time window to the operator: a record late for the earlier windows
    of its period (fired, past their cleanup time) still joins the later ones, as `WindowOperator` decides window by
    window; the table runtime's slices (`SliceAssigners.CumulativeSliceAssigner`) keep the same windows.

    `WindowUtil.convertToWindowingStrategy` checks the parameters when the query is planned, in this order: both
    positive, then `size % step == 0`; the offset not at all (the windows align to it modulo `size`). The loop runs
    in `long`: past a last end within `step` of `Long.MAX_VALUE`, `end += step` wraps and it goes on from the bottom
    of the range, which the contract stops once an element has more than `WINDOWS_PER_ELEMENT_LIMIT` windows.
    """

    @classmethod
    def from_kind(cls, kind: case.Cumulative, window_start: WindowStart) -> CumulativeWindows:
        return cls(kind.step, kind.size, kind.offset, window_start)

    def __init__(self, step: int, size: int, offset: int,
                 window_start: WindowStart = get_window_start_with_offset) -> None:
        if step <= 0 or size <= 0:
            rules = [rule for rule, value in (("cumulative.step", step), ("cumulative.size", size)) if value <= 0]
            raise InvalidSpec(cumulate_positive_message(size, step), *rules)
        if lrem(size, step) != 0:
            raise InvalidSpec(cumulate_multiple_message(size, step), "cumulative.multiple")
        self.step, self.size, self.offset, self.window_start = step, size, offset, window_start
        self.last_bounds: tuple[int, int] | None = None
        self.last_windows: list[Window] = []

    def assign_windows(self, timestamp: int, current_processing_time: int, value: int = 0) -> list[Window]:
        time = element_time(self, timestamp, current_processing_time)
        start = self.window_start(time, self.offset, self.size)
        first_end = ladd(self.window_start(time, self.offset, self.step), self.step)
        # Consecutive elements mostly fall in one step: its windows are only built anew (expensive objects in
        # Python) when the step changes.
        if (start, first_end) != self.last_bounds:
            self.last_bounds, self.last_windows = (start, first_end), within_limit(self._loop(start, first_end))
        return self.last_windows

    def _loop(self, start: int, end: int) -> Iterator[Window]:
        """`for (long end = firstEnd; end <= lastEnd; end += step) windows.add(new TimeWindow(start, end))`."""
        last_end = ladd(start, self.size)
        while end <= last_end:
            yield TimeWindow(start, end)
            end = ladd(end, self.step)  # may wrap past Long.MAX_VALUE to the bottom of the range

    def __repr__(self) -> str:
        return f"CUMULATE(step={self.step}, size={self.size}, offset={self.offset})"


@models(case.Session)
class SessionWindows(WindowAssigner):
    """`EventTimeSessionWindows` / `ProcessingTimeSessionWindows`: `[t, t + gap)`, merged with every
    window it intersects (touching included) by the `MergingWindowSet`."""

    is_merging = True

    @classmethod
    def from_kind(cls, kind: case.Session, window_start: WindowStart) -> SessionWindows:
        return cls(kind.gap, kind.time == "event")

    def __init__(self, gap: int, event_time: bool) -> None:
        self.is_event_time = event_time
        name = "EventTimeSessionWindows" if event_time else "ProcessingTimeSessionWindows"
        if gap <= 0:
            raise InvalidSpec(f"{name} parameters must satisfy 0 < size", "session.gap")
        self.gap, self.name = gap, name

    def assign_windows(self, timestamp: int, current_processing_time: int, value: int = 0) -> list[Window]:
        # EventTimeSessionWindows does not check for the Long.MIN_VALUE marker.
        time = timestamp if self.is_event_time else current_processing_time
        return [TimeWindow(time, ladd(time, self.gap))]

    def __repr__(self) -> str:
        return f"{self.name}.withGap({self.gap})"


#: The gap extractors a case names (`window_contract.case.GapExtractor`): `SessionWindowTimeGapExtractor.extract`
#: of an element's value.
GAP_EXTRACTORS: dict[str, Callable[[int], int]] = {"value": lambda value: value}


@models(case.DynamicSession)
class DynamicSessionWindows(SessionWindows):
    """`DynamicEventTimeSessionWindows` / `DynamicProcessingTimeSessionWindows` (`withDynamicGap`):
    `[t, t + gap)` with the gap the extractor gives each element, merged as session windows are. Its
    constructor checks nothing; `assignWindows` throws `IllegalArgumentException` for a gap <= 0, which
    fails the job at that element."""

    @classmethod
    def from_kind(cls, kind: case.DynamicSession, window_start: WindowStart) -> DynamicSessionWindows:
        return cls(kind.gap_extractor, kind.time == "event")

    def __init__(self, gap_extractor: str, event_time: bool) -> None:
        self.is_event_time = event_time
        self.gap_extractor, self.extract = gap_extractor, GAP_EXTRACTORS[gap_extractor]
        self.name = "EventTimeSessionWindows" if event_time else "ProcessingTimeSessionWindows"

    def assign_windows(self, timestamp: int, current_processing_time: int, value: int = 0) -> list[Window]:
        gap = self.extract(value)
        if gap <= 0:
            raise JobFailure(DYNAMIC_GAP_MESSAGE, "session.dynamic_gap")
        time = timestamp if self.is_event_time else current_processing_time
        return [TimeWindow(time, ladd(time, gap))]

    def __repr__(self) -> str:
        return f"{self.name}.withDynamicGap({self.gap_extractor})"


@models(case.Global, case.Count)
class GlobalWindows(WindowAssigner):
    """`GlobalWindows`: every element in the one `GlobalWindow`; default trigger `NeverTrigger`.

    `isEventTime()` is false: the global window is never late and has no cleanup timer.
    """

    @classmethod
    def from_kind(cls, kind: case.Global | case.Count, window_start: WindowStart) -> GlobalWindows:
        """`countWindow` is `GlobalWindows` too: `build_operator` sets its trigger and evictor."""
        return cls()

    is_event_time = False

    def assign_windows(self, timestamp: int, current_processing_time: int, value: int = 0) -> list[Window]:
        return [GLOBAL_WINDOW]

    def default_trigger(self):
        from reference.triggers import NeverTrigger

        return NeverTrigger()

    def __repr__(self) -> str:
        return "GlobalWindows.create()"

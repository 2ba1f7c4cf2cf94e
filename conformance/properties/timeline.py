"""What the input stream alone says: the watermark and processing time at each position, where each
record arrived, and Flink's window formulas the properties state their rules with.

Written from Flink's classes (not taken from any implementation) in Python integers, with Java's
wrap-around only where Flink's result depends on it; the invariants use them on cases whose times
stay far from the ends of the `long` range (`strategies.cases`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from window_contract.case import (
    Case,
    Count,
    Cumulative,
    EventTimeTrigger,
    Global,
    ProcessingTime,
    PurgingTrigger,
    Record,
    Sliding,
    Tumbling,
    Watermark,
    innermost_trigger,
)
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.observation import Firing, GlobalWindow, TimeWindow


def java_add(a: int, b: int) -> int:
    """`a + b` in Java `long` (wraps around)."""
    return (a + b - LONG_MIN) % 2**64 + LONG_MIN


@dataclass(frozen=True)
class Arrival:
    """A record and what the operator knew when it arrived."""

    at: int
    record: Record
    watermark: int  # the current watermark when the record arrived
    processing_time: int


class Timeline:
    """The watermark and processing time at each position of a case's events.

    `watermark_at(at)` is the operator's current watermark during event `at` (after it, for a
    watermark): watermarks that do not increase are ignored, the first one is `Long.MIN_VALUE`, and
    `at == len(events)` is the end of input (`Long.MAX_VALUE`, when the input is bounded).
    """

    def __init__(self, case: Case) -> None:
        self.case = case
        self.watermarks: list[int] = []
        self.processing_times: list[int] = []
        self.arrivals: list[Arrival] = []
        watermark, now = LONG_MIN, 0
        for at, event in enumerate(case.events):
            if isinstance(event, Record):
                self.arrivals.append(Arrival(at, event, watermark, now))
            elif isinstance(event, Watermark):
                watermark = max(watermark, event.timestamp)
            elif isinstance(event, ProcessingTime):
                now = max(now, event.time)
            self.watermarks.append(watermark)
            self.processing_times.append(now)
        self.watermarks.append(LONG_MAX if case.end_of_input else watermark)
        self.processing_times.append(now)

    def watermark_at(self, at: int) -> int:
        return self.watermarks[at]

    def first_position_with_watermark_at_least(self, time: int, start: int) -> int | None:
        """The first position from `start` on at which the watermark is `>= time`."""
        return next((at for at in range(start, len(self.watermarks)) if self.watermarks[at] >= time), None)

    def by_value(self) -> dict[int, Arrival]:
        """Arrivals by record value; `relabelled` cases have one record per value."""
        return {a.record.value: a for a in self.arrivals}


def relabelled(case: Case) -> Case:
    """`case` with record values 1, 2, 3, ... in arrival order, so a fired value names its record.
    Values are opaque to the window operator: this changes nothing else."""
    events, n = [], 0
    for event in case.events:
        if isinstance(event, Record):
            n += 1
            event = replace(event, value=n)
        events.append(event)
    return replace(case, events=tuple(events))


# --- windows ----------------------------------------------------------------------------------


def is_event_time(case: Case) -> bool:
    """Event-time assigners: tumbling, sliding and session in event time (`isEventTime()`)."""
    return not isinstance(case.window, Global | Count) and case.time == "event"


def has_event_time_trigger(case: Case) -> bool:
    """The trigger is `EventTimeTrigger` (the event-time default, explicit, or inside purging ones; not inside a
    `ProcessingTimeoutTrigger`, whose own timer fires the window too)."""
    trigger = innermost_trigger(case.trigger, through=(PurgingTrigger,))
    if trigger is None:
        return is_event_time(case)
    return isinstance(trigger, EventTimeTrigger) and not isinstance(case.window, Global | Count)


def max_timestamp(window: TimeWindow | GlobalWindow) -> int:
    """`maxTimestamp()`: `end - 1` (wrapping), `Long.MAX_VALUE` for the global window."""
    return LONG_MAX if isinstance(window, GlobalWindow) else java_add(window.end, -1)


def cleanup_time(case: Case, window: TimeWindow) -> int:
    """`WindowOperator.cleanupTime` for event time: `maxTimestamp + allowedLateness`, or
    `Long.MAX_VALUE` when that overflows."""
    end = max_timestamp(window)
    t = java_add(end, case.lateness_in_effect)
    return t if t >= end else LONG_MAX


def is_element_late(case: Case, arrival: Arrival) -> bool:
    """`WindowOperator.isElementLate`: event time and `ts + allowedLateness <= watermark` (wrapping)."""
    return is_event_time(case) and java_add(arrival.record.ts, case.lateness_in_effect) <= arrival.watermark


def assigned_windows(case: Case, arrival: Arrival) -> list[TimeWindow] | None:
    """The windows a tumbling, sliding or cumulative assigner puts the record in (`None` for other assigners):
    `[N * slide + offset, N * slide + offset + size)` for every N whose window holds the time, the
    record's timestamp or, in processing time, the clock at arrival; for a cumulative window, the period's
    start `[M * size + offset` to every step's end `N * step + offset)` after the time, up to the period's end.
    Floor alignment (FLINK-26334)."""
    w = case.window
    t = arrival.record.ts if case.time == "event" else arrival.processing_time
    if isinstance(w, Tumbling):
        start = t - (t - w.offset) % w.size
        return [TimeWindow(start, start + w.size)]
    if isinstance(w, Sliding):
        start, windows = t - (t - w.offset) % w.slide, []
        while start > t - w.size:
            windows.append(TimeWindow(start, start + w.size))
            start -= w.slide
        return windows
    if isinstance(w, Cumulative):
        start, first_end = t - (t - w.offset) % w.size, t - (t - w.offset) % w.step + w.step
        return [TimeWindow(start, end) for end in range(first_end, start + w.size + 1, w.step)]
    return None


def firings_of(firings: tuple[Firing, ...], key: str, window: TimeWindow) -> list[Firing]:
    return [f for f in firings if f.key == key and f.window == window]

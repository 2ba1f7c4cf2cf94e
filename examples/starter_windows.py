"""A starter plug-in: tumbling and sliding event-time windows with allowed lateness and the late-data side output,
as Flink's `WindowOperator` runs them with its default `EventTimeTrigger`. It passes the suite as it is:

    python -m conformance run --impl examples.starter_windows:StarterWindows --profile ci

Copy it and put your engine where `run_case` is, or read it beside docs/plugin.md, which gives each rule it
follows: a window's start (floor alignment), its last timestamp (`end - 1`), when a window is late and when
it is cleaned up, when a record goes to the side output, Flink's messages for a specification it rejects,
and the contract's stop at 10,000 windows for one element (`TOO_MANY_WINDOWS`).

It declares only what it supports (`FEATURES`): the suite sends it nothing else (no triggers, evictors,
processing time, watermark generators, channels, or sums that wrap around Java's `long`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from window_contract.case import Case, Record, Sliding, Watermark
from window_contract.facts import (
    LONG_MAX,
    LONG_MIN,
    MAX_WINDOW_NUM,
    NEGATIVE_LATENESS_MESSAGE,
    TOO_MANY_WINDOWS,
    WINDOWS_PER_ELEMENT_LIMIT,
)
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow

FEATURES = frozenset({"assigner.tumbling", "assigner.sliding", "offset", "allowed_lateness", "late_side_output",
                      "negative_timestamps", "unbounded_input"})


class StarterWindows:
    name = "starter-windows"
    features = FEATURES

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return [run_case(case, Operator(case.allowed_lateness, case.late_side_output)) for case in cases]


def rejected(case: Case) -> str | None:
    """Flink's message for a specification it rejects when the job is built, in Flink's order: the assigner's
    constructor, then `WindowOperatorBuilder.allowedLateness`."""
    w = case.window
    if isinstance(w, Sliding):
        if not abs(w.offset) < w.slide or w.size <= 0:
            return "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0"
        if w.size // w.slide > MAX_WINDOW_NUM:
            return f"SlidingEventTimeWindows parameters must satisfy size / slide <= {MAX_WINDOW_NUM}"
    elif not abs(w.offset) < w.size:
        return "TumblingEventTimeWindows parameters must satisfy abs(offset) < size"
    if case.allowed_lateness < 0:
        return NEGATIVE_LATENESS_MESSAGE
    return None


class TooManyWindows(Exception):
    """An element would belong to more windows than the contract compares: the case stops there."""


def assign_windows(case: Case, ts: int) -> list[TimeWindow]:
    """The windows of an element at `ts`, in the order Flink's assigner gives them (the latest first). The start is
    `ts - (ts - offset) % slide` with a remainder that floors (Python's `%` does; Java's truncates)."""
    w = case.window
    slide = w.slide if isinstance(w, Sliding) else w.size
    starts = range(ts - (ts - w.offset) % slide, ts - w.size, -slide)
    if len(starts) > WINDOWS_PER_ELEMENT_LIMIT:
        raise TooManyWindows
    return [TimeWindow(start, start + w.size) for start in starts]


@dataclass
class Operator:
    """One case's window operator: the contents of each (key, window), the event-time timers, the watermark."""

    lateness: int
    side_output: bool
    watermark: int = LONG_MIN
    contents: dict[tuple[str, TimeWindow], list[int]] = field(default_factory=dict)
    timers: set[tuple[int, str, TimeWindow]] = field(default_factory=set)
    firings: list[Firing] = field(default_factory=list)
    late: list[LateRecord] = field(default_factory=list)
    dropped: list[LateRecord] = field(default_factory=list)

    def max_timestamp(self, window: TimeWindow) -> int:
        """`TimeWindow.maxTimestamp()`: the window's last timestamp, `end - 1`."""
        return window.end - 1

    def cleanup_time(self, window: TimeWindow) -> int:
        """`maxTimestamp + allowedLateness`: past it the window is late, and its state is cleared."""
        return self.max_timestamp(window) + self.lateness

    def element(self, at: int, record: Record, windows: list[TimeWindow]) -> None:
        """A record: added to each of its windows that is not late; a window the watermark has passed fires at once
        (a late firing); a record whose every window is late goes to the side output once `ts + allowedLateness`
        is behind the watermark too."""
        skipped = True
        for window in windows:
            if self.cleanup_time(window) <= self.watermark:
                continue  # a late window: the record is not added to it
            skipped = False
            self.contents.setdefault((record.key, window), []).append(record.value)
            if self.max_timestamp(window) <= self.watermark:
                self.fire(at, record.key, window)
            else:
                self.timers.add((self.max_timestamp(window), record.key, window))
            if self.cleanup_time(window) < LONG_MAX:  # no cleanup timer for the end of time
                self.timers.add((self.cleanup_time(window), record.key, window))
        if skipped and record.ts + self.lateness <= self.watermark:
            output = self.late if self.side_output else self.dropped
            output.append(LateRecord(at, record.key, record.value, record.ts))

    def advance(self, at: int, watermark: int) -> None:
        """A watermark that is higher than the current one: every timer up to it, in timestamp order. A timer at a
        window's `maxTimestamp` fires it (its contents stay); one at its cleanup time clears it."""
        if watermark <= self.watermark:
            return
        self.watermark = watermark
        for timestamp, key, window in sorted((t for t in self.timers if t[0] <= watermark),
                                             key=lambda t: (t[0], t[1], t[2].start)):
            self.timers.discard((timestamp, key, window))
            if timestamp == self.max_timestamp(window):
                self.fire(at, key, window)
            if timestamp == self.cleanup_time(window):
                self.contents.pop((key, window), None)

    def fire(self, at: int, key: str, window: TimeWindow) -> None:
        values = self.contents.get((key, window))
        if values:
            self.firings.append(Firing(at, key, window, self.max_timestamp(window), tuple(sorted(values)),
                                       self.watermark))


def run_case(case: Case, operator: Operator) -> Observation:
    """The observation of `case`, whose events `operator` (empty) processes."""
    problem = rejected(case)
    if problem is not None:
        return Observation.invalid_spec(problem)
    error = None
    try:
        for at, event in enumerate(case.events):
            if isinstance(event, Record):
                operator.element(at, event, assign_windows(case, event.ts))
            elif isinstance(event, Watermark):
                operator.advance(at, event.timestamp)
            # Other events (a processing-time clock) mean nothing to event-time windows.
        if case.end_of_input:
            operator.advance(len(case.events), LONG_MAX)
    except TooManyWindows:
        error = Error("runtime", TOO_MANY_WINDOWS)
    return Observation(tuple(operator.firings), tuple(operator.late), tuple(operator.dropped), error)

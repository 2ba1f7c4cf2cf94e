"""The situations a case exercises, read from the reference model's trace of it: the labels of the
suite's generated examples (their names and what the strategies do with them: `strategies.situations`).

`observed_situations(case)` runs the reference on the case once and names what happened (a late
firing, a record sent to the side output, a sliding element that was late for some of its windows
only, a session merge that rescued a late element, a cleanup, an eviction, ...), with the
observation the run gave.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from reference.implementation import simulate
from reference.trace import Step, StepRecorder, TraceStep
from strategies.situations import (
    BRIDGE,
    CLEANUP,
    DROPPED,
    EMPTY_FIRING,
    END_FIRING,
    EVICTION,
    EXACT_CLEANUP,
    EXACT_WATERMARK,
    IGNORED_WATERMARK,
    INVALID_SPEC,
    LATE_FIRING,
    MANY_KEYS,
    MERGE,
    NEGATIVE,
    NO_OUTPUT,
    NO_WINDOW,
    PARTLY_LATE,
    PROCESSING_FIRING,
    PURGE,
    REFIRING,
    RESCUE,
    RUNTIME_ERROR,
    SIDE_OUTPUT,
    WINDOW_LATE,
)
from window_contract.case import MERGING_ASSIGNERS, Case, Count, Global, ProcessingTime, Record, Sliding, Watermark
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.features import required_features
from window_contract.observation import Observation


class _Observer:
    """Follows the reference's trace steps and counts the situations."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.event_time = not isinstance(case.window, Global | Count) and case.time == "event"
        self.found: Counter[str] = Counter()
        self.watermark = LONG_MIN
        self.current: object = None
        self.assigned: list = []
        self.late_windows = 0
        self.skipped = False
        self.fired_windows: Counter = Counter()
        self.keys_fired_here: set[str] = set()

    def cleanup_time(self, window) -> int:
        return min(window.max_timestamp() + self.case.lateness_in_effect, LONG_MAX)

    def finish_element(self) -> None:
        """What the previous element's steps add up to."""
        if isinstance(self.current, Record) and self.assigned is not None:
            if len(self.assigned) > 1 and 0 < self.late_windows < len(self.assigned) and not self.skipped:
                self.found[PARTLY_LATE] += 1
            merging = isinstance(self.case.window, MERGING_ASSIGNERS) and self.event_time
            if merging and self.assigned and not self.late_windows:
                own = self.assigned[0]
                if self.cleanup_time(own) <= self.watermark:
                    self.found[RESCUE] += 1
        if len(self.keys_fired_here) > 1:
            self.found[MANY_KEYS] += 1
        self.assigned, self.late_windows, self.skipped = [], 0, False
        self.keys_fired_here = set()

    def __call__(self, step: Step) -> None:
        match step.kind:
            case TraceStep.EVENT | TraceStep.END_OF_INPUT:
                self.finish_element()
                self.current = step.event if step.kind is TraceStep.EVENT else "end"
                if isinstance(self.current, Watermark):
                    self.watermark = max(self.watermark, self.current.timestamp)
                elif step.kind is TraceStep.END_OF_INPUT:
                    self.watermark = LONG_MAX
            case TraceStep.ASSIGNED:
                self.assigned = list(step.windows)
                if not self.assigned and isinstance(self.case.window, Sliding):
                    self.found[NO_WINDOW] += 1
            case TraceStep.WINDOW_LATE:
                self.late_windows += 1
                self.found[WINDOW_LATE] += 1
            case TraceStep.SIDE_OUTPUT | TraceStep.DROPPED:
                self.skipped = True
                self.found[SIDE_OUTPUT if step.kind is TraceStep.SIDE_OUTPUT else DROPPED] += 1
            case TraceStep.FIRED:
                self.fired(step.key, step.window, step.values)
            case TraceStep.MERGED:
                self.found[MERGE] += 1
                if len(step.windows) > 1:
                    self.found[BRIDGE] += 1
            case TraceStep.CLEARED:
                self.found[CLEANUP] += 1
                if self.event_time and self.watermark == self.cleanup_time(step.window):
                    self.found[EXACT_CLEANUP] += 1
            case TraceStep.EVICTED:
                self.found[EVICTION] += 1
            case TraceStep.PURGED:
                self.found[PURGE] += 1
            case TraceStep.WATERMARK_IGNORED:
                self.found[IGNORED_WATERMARK] += 1

    def fired(self, key: str, window, values: Iterable[int]) -> None:
        self.keys_fired_here.add(key)
        self.fired_windows[(key, window)] += 1
        if self.fired_windows[(key, window)] == 2:
            self.found[REFIRING] += 1
        if not list(values):
            self.found[EMPTY_FIRING] += 1
        if isinstance(self.current, Record):
            if self.event_time and window.max_timestamp() <= self.watermark:
                self.found[LATE_FIRING] += 1
        elif isinstance(self.current, Watermark):
            if window.max_timestamp() == self.current.timestamp:
                self.found[EXACT_WATERMARK] += 1
        elif isinstance(self.current, ProcessingTime):
            self.found[PROCESSING_FIRING] += 1
        else:
            self.found[END_FIRING] += 1


def observed_situations(case: Case) -> tuple[Observation, Counter[str]]:
    """The reference's observation of `case`, and how often each situation occurred meanwhile."""
    observer = _Observer(case)
    observation = simulate(case, StepRecorder(observer))
    observer.finish_element()
    found = observer.found
    if observation.error is not None:
        found[RUNTIME_ERROR if observation.error.kind == "runtime" else INVALID_SPEC] += 1
    elif not (observation.firings or observation.late or observation.dropped):
        found[NO_OUTPUT] += 1
    if "negative_timestamps" in required_features(case):
        found[NEGATIVE] += 1
    return observation, found


def situations(case: Case) -> Counter[str]:
    """How often each situation occurred when the reference ran `case`."""
    return observed_situations(case)[1]

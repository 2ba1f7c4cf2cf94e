"""The situations a case exercises, read from the reference model's trace of it: the suite's labels
for its generated examples.

`situations(case)` names what happened when the reference ran the case (a late firing, a record
sent to the side output, a sliding element that was late for some of its windows only, a session
merge that rescued a late element, a cleanup, an eviction, ...). `label(case)` reports them with
`hypothesis.event()` so that `--hypothesis-show-statistics` shows how often the suite reached each
one; `aim(found)` steers generation towards the rarer ones with `hypothesis.target()`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from hypothesis import event, target

from reference.trace import Step, StepRecorder, TraceStep  # the vocabulary only: no model is loaded
from window_contract.case import (
    MERGING_ASSIGNERS,
    Case,
    Count,
    Global,
    ProcessingTime,
    Record,
    Sliding,
    Watermark,
)
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.features import required_features

LATE_FIRING = "late firing: an element fired a window the watermark had passed"
SIDE_OUTPUT = "late record sent to the side output"
DROPPED = "late record dropped"
PARTLY_LATE = "sliding element late for some of its windows only"
NO_WINDOW = "element in no window (sliding with size < slide)"
MERGE = "session windows merged"
BRIDGE = "an element bridged two sessions into one"
RESCUE = "merge rescued an element whose own window was late"
WINDOW_LATE = "window late on arrival: element skipped"
CLEANUP = "window state cleaned up"
EXACT_CLEANUP = "cleanup at exactly maxTimestamp + allowedLateness"
EVICTION = "evictor removed elements"
EMPTY_FIRING = "firing with no values (the evictor emptied the window)"
PURGE = "window contents purged"
IGNORED_WATERMARK = "repeated or lower watermark ignored"
EXACT_WATERMARK = "fired by a watermark exactly at maxTimestamp"
REFIRING = "a window fired more than once"
MANY_KEYS = "several keys fired at one event"
END_FIRING = "firing at the end of input"
PROCESSING_FIRING = "firing on a processing-time advance"
RUNTIME_ERROR = "runtime error"
INVALID_SPEC = "invalid specification"
NEGATIVE = "negative timestamps"
NO_OUTPUT = "no output at all"


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
        return min(window.max_timestamp() + self.case.allowed_lateness, LONG_MAX)

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


def situations(case: Case) -> Counter[str]:
    """How often each situation occurred when the reference ran `case`."""
    from reference.implementation import simulate  # the model is loaded when first needed

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
    return found


def label(case: Case) -> Counter[str]:
    """Report `case`'s situations to Hypothesis with `event()` (any number of times per example)."""
    found = situations(case)
    for name in found:
        event(name)
    return found


def aim(found: Counter[str]) -> None:
    """Steer generation towards the rarer situations; `target()` may be called once per example and
    label, so a batch aims with the sum of its cases' situations."""
    target(float(found[LATE_FIRING] + found[SIDE_OUTPUT] + found[DROPPED]), label="late records and firings")
    target(float(found[BRIDGE] + found[RESCUE] + found[PARTLY_LATE]), label="merges and partly late elements")

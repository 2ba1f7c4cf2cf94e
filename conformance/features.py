"""Feature names, and which of them a case needs.

An implementation declares the features it supports; the suite sends it only the cases whose
needed features it declares, and reports the rest as unsupported. Every case needs at least its
assigner's feature.
"""

from __future__ import annotations

from conformance.case import (
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountEvictor,
    CountTrigger,
    EventTimeTrigger,
    Global,
    NeverTrigger,
    ProcessingTime,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TimeEvictor,
    TriggerSpec,
    Tumbling,
    Watermark,
)
from conformance.facts import EXTREME, LONG_MAX

FEATURES: dict[str, str] = {
    "assigner.tumbling": "tumbling windows",
    "assigner.sliding": "sliding windows",
    "assigner.session": "session windows (merging)",
    "assigner.global": "the global window",
    "assigner.count": "count windows (countWindow)",
    "time.processing": "processing-time assigners or triggers",
    "offset": "a window offset other than 0",
    "trigger.event_time": "an explicit EventTimeTrigger",
    "trigger.processing_time": "an explicit ProcessingTimeTrigger",
    "trigger.count": "CountTrigger",
    "trigger.continuous_event_time": "ContinuousEventTimeTrigger",
    "trigger.continuous_processing_time": "ContinuousProcessingTimeTrigger",
    "trigger.purging": "PurgingTrigger",
    "trigger.never": "NeverTrigger",
    "evictor.count": "CountEvictor",
    "evictor.time": "TimeEvictor",
    "evictor.after": "evicting after the window function",
    "allowed_lateness": "allowed lateness above 0",
    "late_side_output": "the late-data side output",
    "negative_timestamps": "negative timestamps or watermarks",
    "unbounded_input": "a case without end of input",
    "extreme_values": "times or window parameters of magnitude >= 2^62 (Java long overflow)",
}

_TRIGGER_FEATURES = {
    EventTimeTrigger: "trigger.event_time",
    ProcessingTimeTrigger: "trigger.processing_time",
    CountTrigger: "trigger.count",
    ContinuousEventTimeTrigger: "trigger.continuous_event_time",
    ContinuousProcessingTimeTrigger: "trigger.continuous_processing_time",
    PurgingTrigger: "trigger.purging",
    NeverTrigger: "trigger.never",
}

_ASSIGNER_FEATURES = {Tumbling: "assigner.tumbling", Sliding: "assigner.sliding", Session: "assigner.session",
                      Global: "assigner.global", Count: "assigner.count"}


def _trigger_chain(trigger: TriggerSpec | None) -> list[TriggerSpec]:
    chain = []
    while trigger is not None:
        chain.append(trigger)
        trigger = trigger.inner if isinstance(trigger, PurgingTrigger) else None
    return chain


def required_features(case: Case) -> frozenset[str]:
    """The features an implementation must support to be held to this case."""
    w = case.window
    needed = {_ASSIGNER_FEATURES[type(w)]}
    triggers = _trigger_chain(case.trigger)
    needed |= {_TRIGGER_FEATURES[type(t)] for t in triggers}
    if case.time == "processing" or any(
            isinstance(t, ProcessingTimeTrigger | ContinuousProcessingTimeTrigger) for t in triggers):
        needed.add("time.processing")
    if getattr(w, "offset", 0) != 0:
        needed.add("offset")
    if isinstance(case.evictor, CountEvictor):
        needed.add("evictor.count")
    if isinstance(case.evictor, TimeEvictor):
        needed.add("evictor.time")
    if case.evictor is not None and case.evictor.after:
        needed.add("evictor.after")
    if case.allowed_lateness > 0:
        needed.add("allowed_lateness")
    if case.late_side_output:
        needed.add("late_side_output")
    if not case.end_of_input:
        needed.add("unbounded_input")
    times = [e.ts for e in case.events if isinstance(e, Record)]
    times += [e.timestamp for e in case.events if isinstance(e, Watermark) and e.timestamp != LONG_MAX]
    if any(t < 0 for t in times):
        needed.add("negative_timestamps")
    times += [e.time for e in case.events if isinstance(e, ProcessingTime)]
    params = [getattr(w, name, 0) for name in ("size", "slide", "offset", "gap")]
    params += [getattr(t, name, 0) for t in triggers for name in ("count", "interval")]
    params += [getattr(case.evictor, name, 0) for name in ("max_count", "size")]
    if any(abs(v or 0) >= EXTREME for v in times + params):
        needed.add("extreme_values")
    return frozenset(needed)


ALL_FEATURES = frozenset(FEATURES)

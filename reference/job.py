"""Building the window operator for a case, as `WindowedStream` and `WindowOperatorBuilder` do.

The explicit trigger replaces the assigner's default one; `countWindow(size[, slide])` is
`GlobalWindows` with `PurgingTrigger(CountTrigger(size))`, or `CountTrigger(slide)` and
`CountEvictor(size)`, and a case's `.trigger(...)` / `.evictor(...)` after it replaces only its own
part, as `WindowOperatorBuilder.trigger` / `.evictor` do. Flink's job-time rejections raise
`InvalidSpec` with Flink's message.
"""

from __future__ import annotations

from reference import evictors, triggers
from reference.assigners import (
    DynamicSessionWindows,
    GlobalWindows,
    SessionWindows,
    SlidingWindows,
    TumblingWindows,
    WindowAssigner,
)
from reference.errors import InvalidSpec
from reference.operator import EvictingWindowOperator, WindowOperator, WindowOutput
from reference.trace import NO_TRACE, TraceListener
from reference.windows import WindowStart, get_window_start_with_offset
from window_contract import case as spec
from window_contract.facts import MERGING_TRIGGER_MESSAGE, NEGATIVE_LATENESS_MESSAGE


def build_assigner(window: spec.WindowSpec, window_start: WindowStart) -> WindowAssigner:
    """The assigner of `window`; `countWindow` is `GlobalWindows` (its trigger and evictor are set by
    `build_operator`)."""
    try:
        match window:
            case spec.Tumbling(size, offset, time):
                return TumblingWindows(size, offset, time == "event", window_start)
            case spec.Sliding(size, slide, offset, time):
                return SlidingWindows(size, slide, offset, time == "event", window_start)
            case spec.Session(gap, time):
                return SessionWindows(gap, time == "event")
            case spec.DynamicSession(gap_extractor, time):
                return DynamicSessionWindows(gap_extractor, time == "event")
            case spec.Global() | spec.Count():
                return GlobalWindows()
    except ArithmeticError as e:  # e.g. `size / slide` with slide 0, reachable with offset Long.MIN_VALUE
        raise InvalidSpec(str(e)) from None
    raise TypeError(f"not a window assigner: {window!r}")


def build_trigger(trigger: spec.TriggerSpec) -> triggers.Trigger:
    match trigger:
        case spec.EventTimeTrigger():
            return triggers.EventTimeTrigger()
        case spec.ProcessingTimeTrigger():
            return triggers.ProcessingTimeTrigger()
        case spec.CountTrigger(count):
            return triggers.CountTrigger(count)
        case spec.ContinuousEventTimeTrigger(interval):
            return triggers.ContinuousEventTimeTrigger(interval)
        case spec.ContinuousProcessingTimeTrigger(interval):
            return triggers.ContinuousProcessingTimeTrigger(interval)
        case spec.PurgingTrigger(inner):
            return triggers.PurgingTrigger(build_trigger(inner))
        case spec.NeverTrigger():
            return triggers.NeverTrigger()
        case spec.DeltaTrigger(threshold, delta_function):
            return triggers.DeltaTrigger(threshold, delta_function)
        case spec.ProcessingTimeoutTrigger(inner, timeout, reset_timer_on_new_record, should_clear_on_timeout):
            return triggers.ProcessingTimeoutTrigger(build_trigger(inner), timeout, reset_timer_on_new_record,
                                                     should_clear_on_timeout)
    raise TypeError(f"not a trigger: {trigger!r}")


def build_evictor(evictor: spec.EvictorSpec) -> evictors.Evictor:
    match evictor:
        case spec.CountEvictor(max_count, after):
            return evictors.CountEvictor(max_count, after)
        case spec.TimeEvictor(size, after):
            return evictors.TimeEvictor(size, after)
        case spec.DeltaEvictor(threshold, delta_function, after):
            return evictors.DeltaEvictor(threshold, delta_function, after)
    raise TypeError(f"not an evictor: {evictor!r}")


def build_operator(case: spec.Case, output: WindowOutput, listener: TraceListener = NO_TRACE,
                   window_start: WindowStart = get_window_start_with_offset) -> WindowOperator:
    """The operator Flink would run for `case`; raises `InvalidSpec` where Flink rejects the job."""
    assigner = build_assigner(case.window, window_start)
    trigger, evictor = assigner.default_trigger(), None
    match case.window:  # KeyedStream.countWindow sets these before the case's .trigger / .evictor
        case spec.Count(size, None):
            trigger = triggers.PurgingTrigger(triggers.CountTrigger(size))
        case spec.Count(size, slide):
            trigger, evictor = triggers.CountTrigger(slide), evictors.CountEvictor(size, False)
    if case.trigger is not None:  # WindowedStream.trigger replaces the trigger, keeps the evictor
        trigger = build_trigger(case.trigger)
    if case.evictor is not None:  # WindowedStream.evictor replaces the evictor, keeps the trigger
        evictor = build_evictor(case.evictor)
    if assigner.is_merging and not trigger.can_merge:
        raise InvalidSpec(MERGING_TRIGGER_MESSAGE)
    if case.allowed_lateness < 0:  # WindowOperatorBuilder.allowedLateness, after the assigner and trigger
        raise InvalidSpec(NEGATIVE_LATENESS_MESSAGE)
    if evictor is not None:
        return EvictingWindowOperator(assigner, trigger, evictor, case.allowed_lateness,
                                      case.late_side_output, output, listener)
    return WindowOperator(assigner, trigger, case.allowed_lateness, case.late_side_output, output, listener)

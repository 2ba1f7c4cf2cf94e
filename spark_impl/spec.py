"""What Flink makes of a case's window specification before any record arrives.

`invalid_spec_message` applies the checks Flink runs while the job is built (the assigners'
constructors and `WindowOperatorBuilder`), with Flink's messages. `OperatorSpec` is the window
operator Flink would build: the assigner, the trigger (the assigner's default when none is given) and
the evictor, with `countWindow` unfolded into `GlobalWindows` + `CountTrigger` (+ `CountEvictor`) as
`KeyedStream.countWindow` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from spark_impl.javalong import div, java_abs
from spark_impl.triggers import decisions
from spark_impl.watermarks import api_time_message, job_start_message
from window_contract.case import (
    MERGING_ASSIGNERS,
    AfterEndOfWindowTrigger,
    Case,
    Count,
    CountEvictor,
    CountTrigger,
    Cumulative,
    DynamicSession,
    EventTimeTrigger,
    EvictorSpec,
    Global,
    NeverTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Session,
    Sliding,
    TriggerSpec,
    Tumbling,
)
from window_contract.facts import (
    AFTER_WATERMARK_MESSAGE,
    EARLY_DELAY_MESSAGE,
    LATE_DELAY_MESSAGE,
    MAX_WINDOW_NUM,
    MERGING_TRIGGER_MESSAGE,
    NEGATIVE_LATENESS_MESSAGE,
    SESSION_EMIT_MESSAGE,
    cumulate_multiple_message,
    cumulate_positive_message,
    late_delay_message,
)


def _time_name(time: str) -> str:
    return "EventTime" if time == "event" else "ProcessingTime"


def invalid_spec_message(case: Case) -> str | None:
    """Flink's message when it rejects the case's specification, else None: in the order Flink meets
    them, the watermark strategy as the job is written, the window assigner, then what fails when the
    job starts (`spark_impl.watermarks`)."""
    return api_time_message(case) or window_message(case) or job_start_message(case)


def window_message(case: Case) -> str | None:
    """Flink's message when it rejects the case's window specification at job build, else None: Flink SQL's emit
    strategy first (the planner checks it before it builds the assigner), then the assigner, the trigger and the
    lateness (`WindowOperatorBuilder`)."""
    w = case.window
    if isinstance(case.trigger, AfterEndOfWindowTrigger) and (message := emit_message(case)):
        return message
    if isinstance(w, Tumbling) and java_abs(w.offset) >= w.size:
        return f"Tumbling{_time_name(w.time)}Windows parameters must satisfy abs(offset) < size"
    if isinstance(w, Sliding):
        if java_abs(w.offset) >= w.slide or w.size <= 0:
            return (f"Sliding{_time_name(w.time)}Windows parameters must satisfy abs(offset) < slide "
                    "and size > 0")
        # Only the event-time assigner checks the window count (SlidingProcessingTimeWindows does not).
        if w.time == "event":
            try:
                too_many = div(w.size, w.slide) > MAX_WINDOW_NUM
            except ArithmeticError as e:  # slide 0 passes the first check only with offset Long.MIN_VALUE
                return str(e)
            if too_many:
                return ("SlidingEventTimeWindows parameters must satisfy size / slide <= "
                        f"{MAX_WINDOW_NUM}")
    if isinstance(w, Cumulative):  # Flink SQL's planner (WindowUtil): positive first, then the multiple
        if w.step <= 0 or w.size <= 0:
            return cumulate_positive_message(w.size, w.step)
        if w.size % w.step:
            return cumulate_multiple_message(w.size, w.step)
    if isinstance(w, Session) and w.gap <= 0:
        return f"{_time_name(w.time)}SessionWindows parameters must satisfy 0 < size"
    if isinstance(w, MERGING_ASSIGNERS):  # withDynamicGap checks its gaps only as records arrive
        if not decisions(case.trigger or default_trigger(w)).can_merge:  # Trigger.canMerge()
            return MERGING_TRIGGER_MESSAGE
    if case.lateness_in_effect < 0:  # WindowOperatorBuilder.allowedLateness, after the assigner and trigger
        return NEGATIVE_LATENESS_MESSAGE
    return None


def emit_message(case: Case) -> str | None:
    """The planner's `WindowEmitStrategy.checkValidation`, in its order: no early or late firing on a session
    window; late firing on event time needs an allowed lateness above 0; no negative delay; no late delay above
    the lateness (0 for a session window, or without late firing: `parseAllowLateness`)."""
    early, late = case.trigger.early_firing_delay, case.trigger.late_firing_delay
    if isinstance(case.window, MERGING_ASSIGNERS) and (early is not None or late is not None):
        return SESSION_EMIT_MESSAGE
    if case.time == "event" and late is not None and case.lateness_in_effect <= 0:
        return AFTER_WATERMARK_MESSAGE
    if early is not None and early < 0:
        return EARLY_DELAY_MESSAGE
    if late is not None and late < 0:
        return LATE_DELAY_MESSAGE
    if late is not None and late > case.lateness_in_effect:
        return late_delay_message(case.lateness_in_effect, late)
    return None


def default_trigger(window) -> TriggerSpec:
    """`WindowAssigner.getDefaultTrigger()`."""
    if isinstance(window, Global):
        return NeverTrigger()
    return EventTimeTrigger() if window.time == "event" else ProcessingTimeTrigger()


@dataclass(frozen=True)
class OperatorSpec:
    """The window operator of one case, as Flink builds it, plus how its input ends."""

    assigner: Tumbling | Sliding | Cumulative | Session | DynamicSession | Global
    trigger: TriggerSpec
    evictor: EvictorSpec | None
    allowed_lateness: int
    late_side_output: bool
    end_of_input: bool
    #: `len(case.events)`: the `at` of the end of input.
    end_at: int

    @property
    def is_event_time(self) -> bool:
        """`WindowAssigner.isEventTime()`: `GlobalWindows` says false, so it is never late."""
        return not isinstance(self.assigner, Global) and self.assigner.time == "event"

    @property
    def is_merging(self) -> bool:
        return isinstance(self.assigner, MERGING_ASSIGNERS)

    @property
    def produce_updates(self) -> bool:
        """Whether a firing emits only a result that changed: the table runtime's `AggregateWindowOperator` under an
        emit strategy that fires early, or late on event time (`WindowEmitStrategy.produceUpdates`)."""
        t = self.trigger
        return isinstance(t, AfterEndOfWindowTrigger) and (
            t.early_firing_delay is not None or t.late_firing_delay is not None and self.is_event_time)


def operator_spec(case: Case) -> OperatorSpec:
    """The operator `case` describes (assumes `invalid_spec_message(case)` is None)."""
    w, trigger, evictor = case.window, None, None
    if isinstance(w, Count):
        # KeyedStream.countWindow(size[, slide]); the case's .trigger / .evictor replace one part each
        w, trigger, evictor = (
            (Global(), PurgingTrigger(CountTrigger(w.size)), None) if w.slide is None
            else (Global(), CountTrigger(w.slide), CountEvictor(w.size)))
    return OperatorSpec(w, case.trigger or trigger or default_trigger(w), case.evictor or evictor,
                        case.lateness_in_effect, case.late_side_output, case.end_of_input, len(case.events))

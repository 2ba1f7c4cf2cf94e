"""Flink SQL's emit strategy of a legacy group window: what `table.exec.emit.*` make of its trigger and lateness.

Models the planner's `WindowEmitStrategy` (`flink-table-planner/.../plan/utils/WindowEmitStrategy.scala`, Flink
2.x), which a case asks for with the trigger `after_end_of_window` (`window_contract.case.AfterEndOfWindowTrigger`):
its checks and messages, in its order, the allowed lateness it keeps, the trigger it builds of the table runtime's
(`reference.table_triggers`), and whether the window operator produces updates (`AggregateWindowOperator`'s
`produceUpdates`: a firing emits its result only when it changed, `reference.operator.UpdatingWindowOperator`).
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.errors import InvalidSpec
from reference.table_triggers import (
    AfterEndOfWindow,
    AfterEndOfWindowEarlyAndLate,
    AfterEndOfWindowNoLate,
    AfterFirstElementPeriodic,
    EveryElement,
    ProcessingTimeAfterEndOfWindow,
)
from reference.triggers import Trigger
from window_contract import case as spec
from window_contract.facts import (
    AFTER_WATERMARK_MESSAGE,
    EARLY_DELAY_MESSAGE,
    LATE_DELAY_MESSAGE,
    SESSION_EMIT_MESSAGE,
    late_delay_message,
)


@dataclass(frozen=True)
class WindowEmitStrategy:
    """`WindowEmitStrategy(isEventTime, isSessionWindow, earlyFireDelay, ..., allowLateness)` of a case whose
    trigger is `after_end_of_window`; `of` checks it as the constructor does (`checkValidation`)."""

    event_time: bool
    early_firing_delay: int | None
    late_firing_delay: int | None
    #: `parseAllowLateness`: a session window's, or any window's without late firing, is 0 ("ignore allow lateness
    #: if disable late-fire delay"); otherwise `table.exec.emit.allow-lateness`, the case's allowed lateness.
    allow_lateness: int

    @classmethod
    def of(cls, case: spec.Case) -> WindowEmitStrategy:
        trigger = case.trigger
        assert isinstance(trigger, spec.AfterEndOfWindowTrigger)
        early, late = trigger.early_firing_delay, trigger.late_firing_delay
        session = isinstance(case.window, spec.MERGING_ASSIGNERS)
        event_time = getattr(case.window, "time", "event") == "event"
        lateness = case.allowed_lateness if late is not None and not session else 0
        if session and (early is not None or late is not None):
            raise InvalidSpec(SESSION_EMIT_MESSAGE, "sql.session_emit")
        if event_time and late is not None and lateness <= 0:
            raise InvalidSpec(AFTER_WATERMARK_MESSAGE, "sql.emit_lateness")
        if early is not None and early < 0:
            raise InvalidSpec(EARLY_DELAY_MESSAGE, "sql.emit_delay")
        if late is not None and late < 0:
            raise InvalidSpec(LATE_DELAY_MESSAGE, "sql.emit_delay")
        if late is not None and late > lateness:
            raise InvalidSpec(late_delay_message(lateness, late), "sql.emit_late_delay")
        return cls(event_time, early, late, lateness)

    @property
    def produce_updates(self) -> bool:
        """`produceUpdates`: event time, either firing on; processing time, early firing on."""
        late = self.late_firing_delay is not None and self.event_time
        return self.early_firing_delay is not None or late

    def trigger(self) -> Trigger:
        """`getTrigger`: `afterEndOfWindow()`, `.withEarlyFirings(early)`, `.withLateFirings(late)`; a processing-time
        window's takes no late trigger ("no late element in processing time")."""
        early, late = self.delay_trigger(self.early_firing_delay), self.delay_trigger(self.late_firing_delay)
        if not self.event_time:
            return ProcessingTimeAfterEndOfWindow(early)
        if late is None or isinstance(late, EveryElement):  # "every-element late firing can be ignored"
            return AfterEndOfWindow() if early is None else AfterEndOfWindowNoLate(early)
        return AfterEndOfWindowEarlyAndLate(early, late)

    @staticmethod
    def delay_trigger(delay: int | None) -> Trigger | None:
        """`createTriggerFromFireDelay`: off, `ProcessingTimeTriggers.every(delay)` above 0, else
        `ElementTriggers.every()`."""
        if delay is None:
            return None
        return AfterFirstElementPeriodic(delay) if delay > 0 else EveryElement()

"""`ProcessingTimeoutTrigger` and `withDynamicGap` in the reference: the rules of Flink 2.3's
`ProcessingTimeoutTrigger` and `DynamicEventTimeSessionWindows` (as `javap` shows them) through the
trigger harness of `test_reference_triggers`, and what the loader and `build_operator` refuse.
The case files `cases/processing_timeout/` and `cases/sessions/dynamic_gap.json` hold the same rules
as real Flink's observations."""

from __future__ import annotations

import pytest
from test_reference_triggers import CONTINUE, FIRE, FIRE_AND_PURGE, Harness

from reference.assigners import DynamicSessionWindows
from reference.errors import InvalidSpec, JobFailure
from reference.implementation import ReferenceImplementation
from reference.job import build_operator
from reference.triggers import CountTrigger, PurgingTrigger
from reference.triggers import EventTimeTrigger as EventTimeTriggerModel
from reference.triggers import ProcessingTimeoutTrigger as Timeout
from reference.windows import TimeWindow
from window_contract.case import (
    Case,
    DynamicSession,
    EventTimeTrigger,
    ProcessingTimeoutTrigger,
    case_to_json,
    global_window,
    record,
    watermark,
)
from window_contract.case_json import case_from_json
from window_contract.facts import DYNAMIC_GAP_MESSAGE, LONG_MAX, MERGING_TRIGGER_MESSAGE
from window_contract.observation import Error
from window_contract.observation import TimeWindow as ObservedWindow
from window_contract.validation import CaseFormatError

W = TimeWindow(0, 100)


def test_the_first_element_sets_the_timeout_and_later_ones_leave_it():
    h = Harness(Timeout(CountTrigger(10), 5, False, True))
    h.processing_time = 3
    assert h.element(W) == CONTINUE
    h.processing_time = 4
    assert h.element(W) == CONTINUE
    assert h.processing_timers_of(W) == [8]
    assert h.advance_processing_time(8) == [(W, 8, FIRE)]
    assert h.state == {}, "shouldClearOnTimeout clears the timeout and the nested count"


def test_reset_timer_on_new_record_moves_the_timeout_to_the_last_element():
    h = Harness(Timeout(CountTrigger(10), 5, True, True))
    h.element(W)
    h.processing_time = 4
    h.element(W)
    assert h.processing_timers_of(W) == [9]


def test_a_nested_firing_clears_the_timeout_and_the_nested_trigger():
    h = Harness(Timeout(EventTimeTriggerModel(), 5, False, True))
    h.element(W)
    assert (h.processing_timers_of(W), h.event_timers_of(W)) == ([5], [99])
    h.watermark = 99
    assert h.element(W) == FIRE, "a late element: the nested EventTimeTrigger fires at once"
    assert (h.processing_timers_of(W), h.event_timers_of(W)) == ([], [])


def test_without_clear_on_timeout_the_spent_timeout_stays_and_no_element_sets_another():
    h = Harness(Timeout(CountTrigger(10), 5, False, False))
    h.element(W)
    assert h.advance_processing_time(5) == [(W, 5, FIRE)]
    h.element(W)
    assert h.processing_timers_of(W) == []
    assert h.state[(W, "timeout")] == 5


def test_every_timer_fires_and_a_purging_nested_answer_purges():
    h = Harness(Timeout(PurgingTrigger(EventTimeTriggerModel()), 1000, False, True))
    h.element(W)
    assert h.advance_watermark(99) == [(W, 99, FIRE_AND_PURGE)]
    h = Harness(Timeout(CountTrigger(10), 1000, False, True))
    assert h.trigger.on_event_time(150, W, h.ctx(W)) == FIRE, "any event-time timer: the cleanup timer's too"


def test_the_timeout_is_long_arithmetic():
    h = Harness(Timeout(CountTrigger(10), LONG_MAX, False, True))
    h.processing_time = 10
    h.element(W)
    assert h.processing_timers_of(W) == [10 + LONG_MAX - 2**64]


def test_the_timeout_trigger_cannot_merge():
    case = Case(window=DynamicSession("value"), trigger=ProcessingTimeoutTrigger(EventTimeTrigger(), 10))
    with pytest.raises(InvalidSpec, match=MERGING_TRIGGER_MESSAGE):
        build_operator(case, output=None)


def test_the_loader_gives_the_timeout_trigger_its_nested_triggers_window_type():
    doc = case_to_json(Case(window=global_window(), trigger=ProcessingTimeoutTrigger(EventTimeTrigger(), 10)))
    with pytest.raises(CaseFormatError, match=r"\$\.trigger: EventTimeTrigger and ProcessingTimeTrigger need"):
        case_from_json(doc)


@pytest.mark.parametrize("gap", [0, -1])
def test_a_dynamic_gap_of_zero_or_less_fails_the_job_at_that_record(gap):
    assigner = DynamicSessionWindows("value", event_time=True)
    assert assigner.assign_windows(5, 0, value=3) == [TimeWindow(5, 8)]
    with pytest.raises(JobFailure, match=DYNAMIC_GAP_MESSAGE):
        assigner.assign_windows(5, 0, value=gap)


def test_what_fired_before_a_dynamic_gap_failure_stays_and_nothing_after():
    case = Case(window=DynamicSession("value"),
                events=[record("a", 2, ts=0), watermark(5), record("a", 0, ts=6), watermark(100)])
    observation = ReferenceImplementation().run([case])[0]
    assert [(f.at, f.window, f.values) for f in observation.firings] == [(1, ObservedWindow(0, 2), (2,))]
    assert observation.error == Error("runtime", DYNAMIC_GAP_MESSAGE)

"""`reference.job`: the operator Flink builds for a case (`WindowedStream`, `WindowOperatorBuilder`,
`KeyedStream.countWindow`)."""

import pytest

from reference import evictors, triggers
from reference.assigners import GlobalWindows, SessionWindows, SlidingWindows, TumblingWindows
from reference.errors import InvalidSpec
from reference.job import build_operator
from reference.operator import EvictingWindowOperator, WindowOperator
from reference.output import Collector
from reference.windows import get_window_start_with_offset_flink_1_12
from window_contract import (
    LONG_MIN,
    Case,
    ContinuousProcessingTimeTrigger,
    CountEvictor,
    CountTrigger,
    NeverTrigger,
    TimeEvictor,
    count_window,
    global_window,
    purging,
    session,
    sliding,
    tumbling,
)
from window_contract.facts import MERGING_TRIGGER_MESSAGE


def build(case, **kw):
    return build_operator(case, Collector(), **kw)


def test_default_triggers_come_from_the_assigner():
    op = build(Case(window=tumbling(10)))
    assert type(op) is WindowOperator
    assert isinstance(op.assigner, TumblingWindows) and isinstance(op.trigger, triggers.EventTimeTrigger)
    op = build(Case(window=sliding(10, 5, time="processing")))
    assert isinstance(op.assigner, SlidingWindows) and isinstance(op.trigger, triggers.ProcessingTimeTrigger)
    op = build(Case(window=global_window()))
    assert isinstance(op.assigner, GlobalWindows) and isinstance(op.trigger, triggers.NeverTrigger)


def test_explicit_trigger_replaces_the_default_and_nests():
    op = build(Case(window=tumbling(10), trigger=purging(CountTrigger(3))))
    assert isinstance(op.trigger, triggers.PurgingTrigger)
    assert isinstance(op.trigger.nested, triggers.CountTrigger) and op.trigger.nested.max_count == 3


def test_count_window_is_global_with_purging_count_trigger():
    op = build(Case(window=count_window(5)))
    assert type(op) is WindowOperator and isinstance(op.assigner, GlobalWindows)
    assert isinstance(op.trigger, triggers.PurgingTrigger) and op.trigger.nested.max_count == 5


def test_sliding_count_window_is_count_trigger_and_count_evictor():
    op = build(Case(window=count_window(5, 2)))
    assert isinstance(op, EvictingWindowOperator) and isinstance(op.assigner, GlobalWindows)
    assert isinstance(op.trigger, triggers.CountTrigger) and op.trigger.max_count == 2
    assert isinstance(op.evictor, evictors.CountEvictor) and op.evictor.max_count == 5
    assert not op.evictor.do_evict_after


def test_an_evictor_makes_an_evicting_operator():
    op = build(Case(window=tumbling(10), evictor=TimeEvictor(3, after=True)))
    assert isinstance(op, EvictingWindowOperator)
    assert isinstance(op.evictor, evictors.TimeEvictor) and op.evictor.do_evict_after
    op = build(Case(window=global_window(), evictor=CountEvictor(2)))
    assert isinstance(op.evictor, evictors.CountEvictor)


def test_lateness_and_side_output_are_passed_on():
    op = build(Case(window=tumbling(10), allowed_lateness=7, late_side_output=True))
    assert op.allowed_lateness == 7 and op.late_data_output


@pytest.mark.parametrize("trigger", [NeverTrigger(), purging(NeverTrigger())])
def test_merging_assigner_with_non_merging_trigger_is_rejected(trigger):
    with pytest.raises(InvalidSpec) as e:
        build(Case(window=session(10), trigger=trigger))
    assert str(e.value) == MERGING_TRIGGER_MESSAGE
    assert MERGING_TRIGGER_MESSAGE == (
        "A merging window assigner cannot be used with a trigger that does not support merging."
    )


def test_merging_assigner_with_merging_triggers_is_built():
    for trigger in (CountTrigger(2), ContinuousProcessingTimeTrigger(5), purging(CountTrigger(2))):
        op = build(Case(window=session(10), trigger=trigger))
        assert isinstance(op.assigner, SessionWindows)


def test_assigner_precondition_is_an_invalid_spec():
    with pytest.raises(InvalidSpec, match="abs\\(offset\\) < slide and size > 0"):
        build(Case(window=sliding(10, 0)))


def test_slide_zero_with_offset_long_min_divides_by_zero_at_build_time():
    """abs(Long.MIN_VALUE) < 0 holds, so `size / slide` is evaluated with slide 0: an
    ArithmeticException from the constructor, reported as an invalid spec."""
    with pytest.raises(InvalidSpec, match="/ by zero"):
        build(Case(window=sliding(10, 0, offset=LONG_MIN)))


def test_window_start_variant_reaches_the_assigner():
    op = build(Case(window=tumbling(5)), window_start=get_window_start_with_offset_flink_1_12)
    assert op.assigner.window_start is get_window_start_with_offset_flink_1_12


def test_a_specification_that_is_not_the_contracts_is_a_type_error():
    with pytest.raises(TypeError, match="not a kind of the format that the model knows: 'tumbling'"):
        build(Case(window="tumbling"))
    with pytest.raises(TypeError, match="not a kind of the format that the model knows: 'count'"):
        build(Case(window=tumbling(10), evictor="count"))

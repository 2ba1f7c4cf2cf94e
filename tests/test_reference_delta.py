"""`DeltaTrigger` and `DeltaEvictor` with the delta functions a case names, in the reference (and the
delta functions of Spark, written apart, against the same values).

Rules from Flink 2.3's `DeltaTrigger` and `DeltaEvictor` (`javap -c`): the trigger fires when
`getDelta(last, element) > threshold` (`dcmpl; ifle`), the evictor removes when
`getDelta(element, last) >= threshold` (`dcmpl; iflt`); both in `double`, after each `long` value became a
`double` (`l2d`, round to nearest even).
"""

from __future__ import annotations

import pytest

from reference.delta import absolute_difference, difference
from reference.evictors import DeltaEvictor
from reference.triggers import DeltaTrigger, TriggerResult
from reference.windows import GLOBAL_WINDOW
from spark_impl.delta import get_delta
from window_contract.facts import LONG_MAX, LONG_MIN

EDGES = [(0, 1), (1, 0), (2**53, 2**53 + 1), (2**53 + 1, 2**53 + 3), (LONG_MIN, LONG_MAX), (LONG_MAX, LONG_MIN),
         (-(2**53) - 1, -(2**53)), (2**62, 2**62 + 511), (2**62, 2**62 + 513)]


@pytest.mark.parametrize("old, new", EDGES)
def test_delta_functions_subtract_in_double_after_converting_each_long(old, new):
    assert difference(old, new) == float(new) - float(old)
    assert absolute_difference(old, new) == abs(float(old) - float(new))
    assert (get_delta("difference", old, new), get_delta("absolute_difference", old, new)) == (
        difference(old, new), absolute_difference(old, new))


def test_values_beyond_2_to_the_53_lose_their_difference():
    assert absolute_difference(2**53, 2**53 + 1) == 0.0  # 2^53 + 1 rounds to 2^53 (ties to even)
    assert absolute_difference(2**53 + 1, 2**53 + 3) == 4.0  # 2^53 and 2^53 + 4
    assert difference(LONG_MIN, LONG_MAX) == 2.0**64


class _Context:
    """What `DeltaTrigger` uses of the operator's context: the element and one window's state."""

    def __init__(self) -> None:
        self.state: dict[str, int] = {}
        self.element = 0

    def get_state(self, name):
        return self.state.get(name)

    def set_state(self, name, value):
        if value is None:
            self.state.pop(name, None)
        else:
            self.state[name] = value


def _fired(trigger, values):
    ctx = _Context()
    results = []
    for v in values:
        ctx.element = v
        results.append(trigger.on_element(0, GLOBAL_WINDOW, ctx) is TriggerResult.FIRE)
    return results, ctx


def test_delta_trigger_remembers_the_first_element_and_fires_strictly_above_the_threshold():
    fired, ctx = _fired(DeltaTrigger(2.0, "absolute_difference"), [0, 1, 2, 3, 5, 4, 10])
    assert fired == [False, False, False, True, False, False, True]
    assert ctx.state == {DeltaTrigger.STATE: 10}


def test_delta_trigger_with_a_negative_threshold_fires_on_every_element_but_the_first():
    assert _fired(DeltaTrigger(-0.5, "absolute_difference"), [7, 7, 7])[0] == [False, True, True]


def test_delta_trigger_clear_forgets_the_last_element_and_it_cannot_merge():
    trigger = DeltaTrigger(1.0, "difference")
    _, ctx = _fired(trigger, [5])
    trigger.clear(GLOBAL_WINDOW, ctx)
    assert ctx.state == {} and not trigger.can_merge


@pytest.mark.parametrize("threshold, kept", [(3.0, [10, 12, 11]), (3.5, [10, 12, 8, 11]), (1.0, [11]), (0.0, [])])
def test_delta_evictor_removes_elements_at_least_threshold_from_the_last(threshold, kept):
    elements = [(10, 0), (12, 1), (8, 2), (11, 3)]
    DeltaEvictor(threshold, "absolute_difference", False).evict_before(elements, len(elements))
    assert [v for v, _ in elements] == kept


def test_delta_evictor_compares_element_to_last_in_that_order_and_evicts_after_when_asked():
    elements = [(1, 0), (9, 1), (5, 2)]  # difference(e, last) = last - e: 4, -4, 0
    evictor = DeltaEvictor(4.0, "difference", True)
    evictor.evict_before(elements, 3)
    assert [v for v, _ in elements] == [1, 9, 5]
    evictor.evict_after(elements, 3)
    assert [v for v, _ in elements] == [9, 5]

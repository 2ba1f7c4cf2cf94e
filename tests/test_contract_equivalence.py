"""Equivalence of observations (docs/format.md): multisets per `at`, errors must match; and the
difference in the domain's words when they are not equivalent."""

import pytest

from window_contract import Firing, LateRecord, Observation, TimeWindow, difference, equivalent
from window_contract.facts import NEVER_ENDS, TOO_MANY_OUTPUTS
from window_contract.observation import Error

A = Firing(1, "a", TimeWindow(0, 10), 9, (1, 2), 9)
B = Firing(1, "b", TimeWindow(0, 10), 9, (3,), 9)


def test_order_within_the_same_at_does_not_matter():
    assert equivalent(Observation(firings=(A, B)), Observation(firings=(B, A)))
    assert difference(Observation(firings=(A, B)), Observation(firings=(B, A))) == ""


def test_a_firing_at_another_position_is_a_difference():
    moved = Firing(2, "a", TimeWindow(0, 10), 9, (1, 2), 9)
    assert not equivalent(Observation(firings=(A,)), Observation(firings=(moved,)))
    assert difference(Observation(firings=(A,)), Observation(firings=(moved,)), events=2) == \
        "firing of [0, 10) for key a comes at the end of input instead of at position 1"


def test_multiplicity_counts():
    assert not equivalent(Observation(firings=(A, A)), Observation(firings=(A,)))
    assert difference(Observation(firings=(A,)), Observation(firings=(A, A))) == \
        "extra firing of [0, 10) for key a at position 1 (values [1, 2])"


def test_late_and_dropped_are_not_interchangeable():
    r = LateRecord(3, "a", 5, 1)
    assert not equivalent(Observation(late=(r,)), Observation(dropped=(r,)))


def test_errors_must_match_in_kind_and_message():
    e1, e2 = Error("runtime", "x"), Error("invalid_spec", "x")
    assert not equivalent(Observation(error=e1), Observation(error=e2))
    assert not equivalent(Observation(error=e1), Observation())
    assert equivalent(Observation(error=e1), Observation(error=Error("runtime", "x")))


def test_difference_names_what_changed():
    other = Firing(1, "a", TimeWindow(0, 10), 9, (1, 3), 9)
    assert difference(Observation(firings=(A,)), Observation(firings=(other,))) == \
        "firing of [0, 10) for key a at position 1 has values [1, 3] instead of [1, 2]"
    r = LateRecord(3, "a", 5, 1)
    assert difference(Observation(late=(r,)), Observation(dropped=(r,)), events=4) == \
        "record a=5 @ 1 at position 3 is dropped instead of going to the side output"


@pytest.mark.parametrize("message", [NEVER_ENDS, TOO_MANY_OUTPUTS])
def test_two_stops_within_an_event_compare_before_where_they_stopped(message):
    stop = Error("runtime", message)
    late_a = Firing(5, "a", TimeWindow(0, 10), 9, (1,), 9)
    a = Observation(firings=(A, late_a, late_a), error=stop)
    b = Observation(firings=(A, late_a), error=stop)
    assert equivalent(a, b)
    assert not equivalent(a, Observation(firings=(late_a,), error=stop))  # A, at 1, is missing
    assert not equivalent(Observation(firings=(A, late_a), error=Error("runtime", "x")),
                          Observation(firings=(A,), error=Error("runtime", "x")))

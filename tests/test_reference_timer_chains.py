"""`reference.timer_chains`: a continuous trigger's periodic timers over an empty window, stepped over in
one move, and the chains that never end (issue 48); the contract's limit on one key's outputs.

The arithmetic is checked against stepping: `first_multiple_in` on small moduli, `chain_end` on chains that
end or wrap within a few thousand steps. The move itself is checked against firing each timer: the same
cases, the reference as it is and with the move switched off, give the same observations.
"""

from __future__ import annotations

import time
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import output
from reference.explain import explain_case
from reference.implementation import ReferenceImplementation
from reference.javalong import LONG_MAX, LONG_MIN, wrap
from reference.operator import WindowOperator
from reference.timer_chains import chain_end, first_multiple_in
from strategies.bursts import burst_cases
from window_contract import Case, record, watermark
from window_contract.case import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Global,
    ProcessingTime,
    ProcessingTimeoutTrigger,
    PurgingTrigger,
    Tumbling,
)
from window_contract.equivalence import equivalent
from window_contract.facts import NEVER_ENDS, TOO_MANY_OUTPUTS
from window_contract.observation import Error

REFERENCE = ReferenceImplementation()


def stepped(step: int, modulus: int, low: int, high: int) -> int | None:
    return next((k for k in range(modulus + 1) if low <= k * step % modulus <= high), None)


@given(st.integers(2, 80).flatmap(lambda m: st.tuples(
    st.just(m), st.integers(1, m - 1), st.integers(1, m - 1).flatmap(lambda lo: st.tuples(
        st.just(lo), st.integers(lo, m - 1))))))
def test_the_least_multiple_in_a_range_is_the_one_stepping_finds(drawn):
    modulus, step, (low, high) = drawn
    assert first_multiple_in(step, modulus, low, high) == stepped(step, modulus, low, high)


def chain_by_steps(time: int, interval: int, max_timestamp: int, bound: int, steps: int) -> tuple[int, int] | None:
    """`registerNextFireTimestamp` one firing at a time: where the chain stops, within `steps` firings."""
    threshold = min(max_timestamp, bound + 1)
    fire = time
    for k in range(1, steps + 1):
        fire = min(wrap(fire + interval), max_timestamp)
        if fire >= threshold:
            return k, fire
    return None


INTERVALS = st.one_of(st.integers(1, 7), st.integers(-7, -1), st.integers(2**62, LONG_MAX), st.just(LONG_MIN),
                      st.integers(LONG_MIN, -(2**62)))


@settings(max_examples=300)
@given(interval=INTERVALS, max_timestamp=st.sampled_from([LONG_MAX, LONG_MAX - 1, 100, 0, -50]),
       bound=st.sampled_from([LONG_MAX, LONG_MAX - 3, 200, 7, -1, LONG_MIN]), back=st.integers(1, 300))
def test_where_a_chain_stops_is_where_firing_each_timer_stops(interval, max_timestamp, bound, back):
    threshold = min(max_timestamp, bound + 1)
    time = threshold - back
    if time < LONG_MIN:
        return
    by_steps = chain_by_steps(time, interval, max_timestamp, bound, 5000)
    if by_steps is not None:
        assert chain_end(time, interval, max_timestamp, bound) == by_steps
    else:  # longer than stepping goes: at least that long, or never ending
        end = chain_end(time, interval, max_timestamp, bound)
        assert end is None or end[0] > 5000


@pytest.mark.parametrize("interval, ends", [(4, False), (2, False), (1000, False), (5, True), (1, True), (-3, True),
                                            (-2, False), (LONG_MIN, False)])
def test_at_the_end_of_time_a_chain_ends_only_if_it_lands_on_long_max_value(interval, ends):
    """On the global window at `Watermark(Long.MAX_VALUE)` the fire times `t + k * interval` (mod 2^64) from an
    aligned `t` stop only on `Long.MAX_VALUE` itself: an odd interval reaches every long, an even one only those
    of `t`'s parity, and `Long.MAX_VALUE` is odd."""
    time = 0 if interval > 0 else -interval  # a fire time aligned on the interval, below Long.MAX_VALUE
    end = chain_end(time, interval, LONG_MAX, LONG_MAX)
    assert (end is not None) == ends
    if ends:
        assert end[1] == LONG_MAX


def observe(case: Case):
    return REFERENCE.run([case])[0]


def burst(clock: int, domain: str = "processing", interval: int = 1) -> Case:
    """Issue 48's case: a record, a jump of `clock`, a record, two more ms."""
    if domain == "processing":
        trigger = ContinuousProcessingTimeTrigger(interval)
        events = [record("a", 1, ts=0), ProcessingTime(clock), record("a", 2, ts=0), ProcessingTime(clock + 2)]
    else:
        trigger = ContinuousEventTimeTrigger(interval)
        events = [record("a", 1, ts=0), watermark(clock), record("a", 2, ts=clock + 1), watermark(clock + 2)]
    return Case(window=Global(), trigger=PurgingTrigger(trigger), events=events, end_of_input=False)


@pytest.mark.parametrize("domain", ["processing", "event"])
def test_a_burst_of_a_billion_empty_timers_ends_in_milliseconds(domain):
    started = time.perf_counter()
    observation = observe(burst(10**9, domain))
    assert time.perf_counter() - started < 1
    assert [(f.at, f.values) for f in observation.firings] == [(1, (1,)), (3, (2,))] and observation.error is None


def test_the_empty_timers_are_stepped_over_in_one_move_and_explained():
    lines = list(explain_case(burst(100_500)))
    assert "the window is empty: it and the 100,497 periodic timers after it fire with nothing to emit, " \
           "stepped over in one move to the timer registered above" in [line.strip() for line in lines]


def test_a_chain_that_wraps_below_the_watermark_for_ever_never_ends():
    case = Case(window=Global(), trigger=PurgingTrigger(ContinuousEventTimeTrigger(4)), events=[record("a", 1, ts=1)])
    observation = observe(case)
    assert [(f.at, f.values) for f in observation.firings] == [(1, (1,))]
    assert observation.error == Error("runtime", NEVER_ENDS)


def test_without_clearing_a_processing_timeout_keeps_the_nested_chain_and_steps_over_it():
    # Every timer fires the timeout trigger; its nested continuous trigger chains as it does alone.
    nested = PurgingTrigger(ContinuousEventTimeTrigger(1))
    case = Case(window=Tumbling(10**9), trigger=ProcessingTimeoutTrigger(nested, 10**12, False, False),
                events=[record("a", 1, ts=0), watermark(10**8), record("a", 2, ts=10**8 + 1), watermark(10**8 + 3)],
                end_of_input=False)
    observation = observe(case)
    assert [(f.at, f.values) for f in observation.firings] == [(1, (1,)), (3, (2,))]


def test_a_key_past_the_output_limit_stops_the_case_other_keys_do_not_count(monkeypatch):
    monkeypatch.setattr(output, "OUTPUT_LIMIT", 3)
    case = Case(window=Global(), trigger=ContinuousEventTimeTrigger(1), end_of_input=False,
                events=[record("a", 1, ts=0), record("b", 1, ts=0), watermark(3), watermark(10)])
    observation = observe(case)
    # a and b fire 3 times each at Watermark(3): 3 outputs a key, none past the limit
    assert [f.key for f in observation.firings if f.at == 2] == ["a", "b"] * 3
    assert observation.error == Error("runtime", TOO_MANY_OUTPUTS)
    assert [f.at for f in observation.firings] == [2] * 6  # the first firing at Watermark(10) stops it


def without_the_move():
    """The operator without the move: every periodic timer fires, one by one."""
    return mock.patch.object(WindowOperator, "skipped_empty_firings", lambda self, *args: False)


@settings(max_examples=60, deadline=None)
@given(burst_cases(max_burst=300))
def test_stepping_over_empty_timers_observes_what_firing_each_observes(case):
    """The same observation, as the contract compares them: the move registers a chain's next timer
    before timers of other keys that firing each would have registered first, so timers with one
    timestamp may fire in another order, which Flink leaves open."""
    moved = observe(case)
    with without_the_move():
        each = observe(case)
    assert equivalent(moved, each)


@settings(max_examples=60, deadline=None)
@given(burst_cases(max_burst=300))
def test_a_chain_emitted_to_the_output_limit_in_one_move_observes_what_firing_each_observes(case):
    """With a limit of 8 outputs a key, a burst of a trigger that keeps its contents (up to 20 firings) passes it:
    emitted up to the limit at once, the same observation as firing each timer, up to the event the key stops in
    (whose outputs the contract does not compare)."""
    with mock.patch.object(output, "OUTPUT_LIMIT", 8):
        moved = observe(case)
        with mock.patch.object(WindowOperator, "stop_a_runaway_chain", lambda self, *args: None):
            each = observe(case)
    assert equivalent(moved, each)


def test_a_runaway_chain_emits_the_keys_last_outputs_at_once_and_stops_it():
    """The case of the committed `cases/triggers/continuous.json`: a chain round the long range, stopped
    after the key's 100,000th output, its firings alike: the same observation as firing each timer."""
    case = Case(window=Global(), trigger=ContinuousEventTimeTrigger(5), events=[record("a", 1, ts=1), watermark(12)])
    moved = observe(case)
    assert moved.error == Error("runtime", TOO_MANY_OUTPUTS)
    assert len(moved.firings) == 100_000 and {f.values for f in moved.firings} == {(1,)}
    assert [f.at for f in moved.firings].count(1) == 2  # Watermark(12) fires at 5 and 10; the end of input the rest
    with mock.patch.object(WindowOperator, "stop_a_runaway_chain", lambda self, *args: None):
        assert observe(case) == moved

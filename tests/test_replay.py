"""A test's examples kept in one pass and given back in another (`conformance/properties/replay.py`)."""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st
from hypothesis.internal import observability

from conformance.prefetch.replay import keeping, replaying
from conformance.runner.collector import ExampleCounting
from window_contract.implementation import CouldNotRun

#: What the bodies below saw, in order, and when they fail (`FAIL_FROM`: from which drawn number on).
SEEN: list[tuple] = []
FAIL_FROM = {"n": None}


@settings(derandomize=True, database=None, max_examples=40)
@given(data=st.data())
def numbers(data, fixture):
    n = data.draw(st.integers(0, 1000), label="n")
    if n % 3 == 0:
        event("a multiple of three")
    words = data.draw(st.lists(st.text(max_size=3), max_size=3).filter(lambda w: len(w) != 2), label="words")
    SEEN.append((fixture, n, tuple(words)))
    words.append("changed after the draw")
    if FAIL_FROM["n"] is not None and n >= FAIL_FROM["n"]:
        raise AssertionError(f"failed at {n}")


@contextlib.contextmanager
def profile_without_shrinking() -> Iterator[None]:
    """The loaded profile without its shrink phase, as the mutation check's are, meanwhile."""
    loaded = settings.get_current_profile_name()
    settings.register_profile("replay-without-shrinking", settings(
        settings.default, phases=[phase for phase in settings.default.phases if phase is not Phase.shrink]))
    settings.load_profile("replay-without-shrinking")
    try:
        yield
    finally:
        settings.load_profile(loaded)


@pytest.fixture(autouse=True)
def fresh():
    SEEN.clear()
    FAIL_FROM["n"] = None


def drawn_plainly() -> list[tuple]:
    numbers(fixture="f")
    seen = list(SEEN)
    SEEN.clear()
    return seen


def test_keeping_draws_the_very_examples_hypothesis_draws_and_keeps_them_as_drawn():
    plain = drawn_plainly()
    with keeping(numbers) as examples:
        numbers(fixture="f")
    assert SEEN == plain  # Hypothesis seeds a derandomized test with its body: unchanged
    assert len(examples) >= len(plain) > 10
    assert ("a multiple of three", "") in {e for kept in examples for e in kept.events}
    assert not hasattr(numbers.hypothesis.inner_test, "__wrapped__")  # given back when done


def test_a_replay_gives_the_body_the_kept_examples_in_order_without_drawing():
    plain = drawn_plainly()
    with keeping(numbers) as examples:
        numbers(fixture="f")
    SEEN.clear()
    handed_back = []
    replaying(numbers, tuple(examples), lambda: handed_back.append(1))(fixture="g")
    assert SEEN == [("g", *seen[1:]) for seen in plain]
    assert handed_back == []


def test_a_failing_example_hands_the_test_back_to_hypothesis_which_shrinks_it():
    with keeping(numbers) as examples:
        numbers(fixture="f")
    FAIL_FROM["n"] = 500
    handed_back = []
    with pytest.raises(AssertionError, match="failed at 500"):  # shrunk: not a kept number
        replaying(numbers, tuple(examples), lambda: handed_back.append(1))(fixture="f")
    assert handed_back == [1]


def test_under_a_profile_that_does_not_shrink_a_failing_example_stands_as_it_is():
    """The mutation check's profiles do not shrink: Hypothesis would draw the replayed examples again and stop on the
    same one, so the replay's failure is the test's (the first kept number from 500 on), and it is not handed back."""
    with keeping(numbers) as examples:
        numbers(fixture="f")
    FAIL_FROM["n"] = 500
    first = next(n for _, n, _ in SEEN if n >= 500)
    handed_back = []
    with profile_without_shrinking(), pytest.raises(AssertionError, match=rf"failed at {first}\b"):
        replaying(numbers, tuple(examples), lambda: handed_back.append(1))(fixture="f")
    assert handed_back == [] and first != 500


@pytest.mark.parametrize("profile", [contextlib.nullcontext, profile_without_shrinking], ids=["shrinks", "does not"])
def test_a_body_that_draws_otherwise_than_kept_hands_the_test_back(profile):
    with keeping(numbers) as examples:
        numbers(fixture="f")
    other = [type(kept)(tuple(("not n", value) for _, value in kept.draws), kept.events) for kept in examples]
    handed_back = []
    SEEN.clear()
    with profile():
        replaying(numbers, tuple(other), lambda: handed_back.append(1))(fixture="f")
    assert handed_back == [1]
    redrawn = list(SEEN)
    SEEN.clear()
    assert redrawn == drawn_plainly()  # Hypothesis's own run


def test_a_failure_to_run_stops_the_replay_at_once():
    @settings(database=None, max_examples=5)
    @given(data=st.data())
    def cannot_run(data):
        data.draw(st.integers(), label="n")
        raise CouldNotRun("the engine is gone")

    with keeping(cannot_run) as examples, pytest.raises(CouldNotRun):
        cannot_run()
    handed_back = []
    with pytest.raises(CouldNotRun):
        replaying(cannot_run, tuple(examples), lambda: handed_back.append(1))()
    assert handed_back == []


def test_the_run_counts_a_replayed_test_by_its_examples_and_events_and_one_handed_back_by_its_last_run():
    with keeping(numbers) as examples:
        numbers(fixture="f")
    collector = ExampleCounting(None)
    collector.pytest_runtest_logstart("t.py::test_x", ("t.py", 1, "test_x"))
    with observability.with_observability_callback(collector.observe):
        replaying(numbers, tuple(examples), lambda: None)(fixture="f")
    counter = collector.counter
    assert counter.examples + counter.invalid == len(examples)
    assert counter.events["a multiple of three"] == sum(("a multiple of three", "") in e.events for e in examples)
    FAIL_FROM["n"] = 500
    with observability.with_observability_callback(collector.observe), pytest.raises(AssertionError):
        replaying(numbers, tuple(examples), lambda: None)(fixture="f")
    alone = ExampleCounting(None)
    alone.pytest_runtest_logstart("t.py::test_x", ("t.py", 1, "test_x"))
    with observability.with_observability_callback(alone.observe), pytest.raises(AssertionError):
        numbers(fixture="f")
    handed_back, hypothesis_alone = collector.counter, alone.counter
    assert hypothesis_alone.shrinks > 0
    assert (handed_back.examples, handed_back.shrinks) == (hypothesis_alone.examples, hypothesis_alone.shrinks)


def test_every_property_test_draws_through_data_as_replay_needs():
    """Keeping and replaying a test's examples wraps its body's `data` (`@given(data=st.data())`)."""
    folder = Path(__file__).resolve().parents[1] / "conformance" / "properties"
    tests = [getattr(module, name) for path in sorted(folder.glob("test_*.py"))
             for module in [importlib.import_module(f"conformance.properties.{path.stem}")]
             for name in dir(module) if name.startswith("test_")]
    assert len(tests) >= 26
    for test in tests:
        assert "data" in inspect.signature(test.hypothesis.inner_test).parameters, test.__name__

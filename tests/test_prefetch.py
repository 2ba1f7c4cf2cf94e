"""Prefetching (`conformance.prefetch.cache.Prefetcher`): a run's cases are fetched in a few large
calls, batch-isolation requests round by round, and every answer is the implementation's own."""

from __future__ import annotations

import threading
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.evidence import FeatureTally
from conformance.prefetch.cache import Prefetcher, chunked
from conformance.properties.harness import Suite
from reference.implementation import ReferenceImplementation
from window_contract import Case, record, tumbling, watermark


def case(n: int) -> Case:
    return Case(window=tumbling(10), events=(record("k", n, ts=n), watermark(100)))


class CountingRuns(ReferenceImplementation):
    """The reference, counting its `run` calls; without `run_requests`, as Flink's implementation is."""

    costly_calls = True

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def run(self, cases):
        self.calls.append(len(cases))
        return super().run(cases)


class Counting(CountingRuns):
    """`CountingRuns` that also answers requests, counting those of its `run_requests` calls."""

    def __init__(self) -> None:
        super().__init__()
        self.request_calls: list[list[tuple[Case, ...]]] = []

    def run_requests(self, requests):
        self.request_calls.append(list(requests))
        return [ReferenceImplementation.run(self, list(r)) for r in requests]


def prefetched(impl, chunk: int = 1000) -> Prefetcher:
    """A prefetcher of a suite of `impl`, its engine started in the background as the plug-in starts it."""
    prefetcher = Prefetcher(Suite(impl, ReferenceImplementation()), chunk=chunk)
    prefetcher.start_engine()
    return prefetcher


def test_recorded_cases_cost_one_call_a_chunk_and_misses_a_call_each():
    impl, tally = Counting(), FeatureTally()
    prefetcher = prefetched(impl, chunk=4)
    suite = prefetcher.suite
    batches = [[case(n), case(n + 1)] for n in range(5)]  # 6 distinct cases
    with prefetcher.recording():
        for batch in batches:
            suite.run(batch, tally)
    assert impl.calls == []  # the recording pass asks only the reference
    prefetcher.fetch()
    assert impl.calls == [4, 2]
    with prefetcher.answering():
        answers = [suite.run(batch, tally) for batch in batches]
        suite.run([case(50)], tally)
    assert answers == [ReferenceImplementation().run(batch) for batch in batches]
    assert impl.calls == [4, 2, 1]
    assert (prefetcher.stats.hits, prefetcher.stats.misses, prefetcher.stats.calls) == (10, 1, 1)


def test_an_implementation_without_requests_is_fetched_by_run_calls_alone():
    impl, tally = CountingRuns(), FeatureTally()
    assert not hasattr(impl, "run_requests")
    prefetcher = prefetched(impl, chunk=2)
    suite = prefetcher.suite
    with prefetcher.recording():
        suite.run([case(1), case(2), case(3)], tally)
    prefetcher.fetch(keep_first_round=True)  # as a run that shares the drawing fetches first
    prefetcher.fetch()
    assert impl.calls == [2, 1]
    with prefetcher.answering():
        assert suite.run([case(3), case(1)], tally) == ReferenceImplementation().run([case(3), case(1)])
    assert impl.calls == [2, 1] and prefetcher.stats.misses == 0


def test_real_batches_are_fetched_as_requests_and_a_repeated_one_in_a_later_call():
    impl, tally = Counting(), FeatureTally()
    prefetcher = prefetched(impl)
    suite = prefetcher.suite
    batch = [case(1), case(2), case(3)]
    calls = [batch, batch[:1], batch[::-1], batch]  # the last: the same batch run again
    with prefetcher.recording(real_batches=True):
        for request in calls:
            suite.run(request, tally)
    prefetcher.fetch()
    assert impl.calls == []
    assert impl.request_calls == [[tuple(batch), tuple(batch[:1]), tuple(batch[::-1])], [tuple(batch)]]
    with prefetcher.answering(real_batches=True):
        answers = [suite.run(request, tally) for request in calls]
        again = suite.run(batch, tally)  # no third answer was fetched: a real call
    assert answers == [ReferenceImplementation().run(r) for r in calls]
    assert again == answers[0]
    assert impl.calls == [3]
    assert (prefetcher.stats.hits, prefetcher.stats.misses) == (10, 3)


def test_cases_ride_with_the_first_round_of_requests_each_a_request_of_its_own():
    impl, tally = Counting(), FeatureTally()
    prefetcher = prefetched(impl)
    suite = prefetcher.suite
    batch = [case(1), case(2)]
    with prefetcher.recording():
        suite.run([case(3), case(4)], tally)
    with prefetcher.recording(real_batches=True):
        suite.run(batch, tally)
        suite.run(batch, tally)
    prefetcher.fetch()
    assert impl.calls == []
    assert impl.request_calls == [[(case(3),), (case(4),), tuple(batch)], [tuple(batch)]]
    with prefetcher.answering():
        assert suite.run([case(4), case(3)], tally) == ReferenceImplementation().run([case(4), case(3)])
    with prefetcher.answering(real_batches=True):
        assert suite.run(batch, tally) == suite.run(batch, tally) == ReferenceImplementation().run(batch)
    assert impl.calls == [] and prefetcher.stats.misses == 0


def test_a_first_round_kept_for_the_next_fetch_takes_the_cases_queued_meanwhile_along():
    """A run that fetches while other runs still record: its cases go with the second round, and what the
    others write later goes with the first, in the next fetch."""
    impl, tally = Counting(), FeatureTally()
    prefetcher = prefetched(impl)
    suite = prefetcher.suite
    batch = [case(1), case(2)]
    with prefetcher.recording():
        suite.run([case(3)], tally)
    with prefetcher.recording(real_batches=True):
        suite.run(batch, tally)
        suite.run(batch, tally)
    prefetcher.fetch(keep_first_round=True)
    assert impl.request_calls == [[(case(3),), tuple(batch)]] and impl.calls == []
    with prefetcher.recording():  # written by another run meanwhile
        suite.run([case(5)], tally)
    prefetcher.fetch()
    assert impl.request_calls == [[(case(3),), tuple(batch)], [(case(5),), tuple(batch)]] and impl.calls == []
    with prefetcher.answering(real_batches=True):
        first, second = suite.run(batch, tally), suite.run(batch, tally)
    with prefetcher.answering():
        assert suite.run([case(5), case(3)], tally) == ReferenceImplementation().run([case(5), case(3)])
    assert first == second == ReferenceImplementation().run(batch)
    assert all(a is not b for a, b in zip(first, second, strict=True))  # answered by two jobs
    assert impl.calls == [] and prefetcher.stats.misses == 0


def test_a_request_sent_again_by_another_example_is_answered_by_the_same_rounds():
    """Rounds count a request's calls within one Hypothesis example: examples that send the same
    batch twice cost two jobs in all, not two each, and each example's two calls still get the
    answers of two separate jobs."""
    impl, tally = Counting(), FeatureTally()
    prefetcher = prefetched(impl)
    suite = prefetcher.suite
    batch = (case(1), case(2))
    sent: list[int] = []
    twice: list[tuple[list, list]] = []

    @settings(max_examples=5, database=None, derandomize=True)
    @given(st.integers(0, 4))
    def example(n):
        sent.append(n)
        # the same batch run twice, as test_same_observation_when_run_twice does
        twice.append((suite.run(list(batch), tally), suite.run(list(batch), tally)))
        assert suite.run([case(n)], tally) == ReferenceImplementation().run([case(n)])

    with prefetcher.recording(real_batches=True):
        example()
    prefetcher.fetch()
    assert len(sent) == 5
    assert impl.request_calls == [[batch, *((case(n),) for n in dict.fromkeys(sent))], [batch]]
    twice.clear()
    with prefetcher.answering(real_batches=True):
        example()
    assert impl.calls == []
    assert prefetcher.stats.misses == 0
    # each job computed its own observations: the two calls of an example were answered by two jobs
    assert twice and all(a is not b for first, second in twice for a, b in zip(first, second, strict=True))


def test_chunks_of_requests_hold_about_the_given_number_of_cases():
    one, three = (case(1),), (case(1), case(2), case(3))
    assert list(chunked([one, three, one, one, three], 4)) == [[one, three], [one, one], [three]]


def test_the_reference_answers_each_case_once_in_a_prefetched_run():
    reference = Counting()
    suite = Suite(Counting(), reference)
    suite.expected([case(1), case(2)])
    suite.expected([case(2), case(1), case(3)])
    assert reference.calls == [2, 1]


def test_a_case_the_strategies_labelled_costs_the_reference_no_second_run():
    """Labelling a case with its situations runs the reference on it: that observation is the expected one."""
    reference = Counting()
    suite = Suite(Counting(), reference)
    assert suite.situations(case(1))  # the situations, read from the reference's trace
    assert suite.expected([case(1)]) == ReferenceImplementation().run([case(1)]) and reference.calls == []


class Starting(Counting):
    """An engine that takes a while to start (`start()`), noting what happens in which thread."""

    def __init__(self, fails: bool = False) -> None:
        super().__init__()
        self.fails, self.events = fails, []

    def start(self):
        time.sleep(0.2)
        self.events.append(("start", threading.current_thread() is threading.main_thread()))
        if self.fails:
            raise RuntimeError("the engine did not start")

    def run(self, cases):
        self.events.append(("run", threading.current_thread() is threading.main_thread()))
        return super().run(cases)


def test_an_engine_starts_in_the_background_and_the_fetch_waits_for_it():
    impl = Starting()
    prefetcher = prefetched(impl)
    suite = prefetcher.suite
    with prefetcher.recording():
        suite.run([case(1)], FeatureTally())
    prefetcher.fetch()
    # started outside the main thread, and only then the fetch's call (itself in run_within's thread)
    assert impl.events == [("start", False), ("run", False)]
    assert not Prefetcher(Suite(Starting(), ReferenceImplementation()))._starting  # not told: nothing starts


def test_an_engine_that_fails_to_start_meets_it_in_its_first_call():
    impl = Starting(fails=True)
    prefetcher = prefetched(impl)
    suite = prefetcher.suite
    with prefetcher.recording():
        suite.run([case(1)], FeatureTally())
    prefetcher.fetch()  # the background failure is not raised here; the run call goes on
    assert impl.events == [("start", False), ("run", False)] and impl.calls == [1]

"""How a property sends cases to the implementation and reports a broken rule.

Every example is a batch: one `run` call for many cases. A rule is checked case by case, and the
first case that breaks it is reported alone (`PropertyViolation`), so Hypothesis, shrinking the
batch, ends with a batch of one minimal case.

An implementation that costs a job per call (Spark, Flink) is prefetched: its answers for all the
examples of the whole run are fetched in a few large calls (`Suite.fetch`), and the examples' own
calls are answered from them. Correctness does not depend on it: the cache holds only the
implementation's own observations of exactly those cases, and a case it lacks costs a real call.

A test about how one `run` call treats its batch (batch isolation) needs each of its calls answered
as that call alone. An implementation that can answer many `run` calls in one job declares
`run_requests(requests) -> [observations of each request]`, each request's observations as its own
`run` call would give them (Spark: `spark_impl.implementation`); such a test's calls are then fetched
as requests, a batch's n-th call within one example in the n-th round of requests, so a batch run
twice goes to two separate jobs. An example that sends the same requests as an earlier one (Hypothesis
draws some batches more than once) is answered by the same rounds: it costs no job of its own. Without
`run_requests`, such a test makes its real calls.

Every `run` call has a time limit (`REQUEST_TIMEOUT`, `--request-timeout`). When a call fails, the
harness tells apart (`window_contract.implementation`) a bug of the implementation, which breaks the
rule "run gives an observation for every case" for the case that raises alone, from a failure to
run (a timeout, a dead engine), which stops the test as `CouldNotRun`: no counterexample.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from hypothesis import HealthCheck, note, settings
from hypothesis.control import current_build_context
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import DataObject

from conformance.evidence import FeatureTally, PropertyViolation
from conformance.properties.recordings import Recording
from conformance.properties.timeline import relabelled
from strategies import case_batches
from window_contract.case import Case, dumps_case
from window_contract.difference import difference
from window_contract.features import required_features
from window_contract.implementation import REQUEST_TIMEOUT, CouldNotRun, Implementation, failure_to_run, run_within
from window_contract.observation import Observation

#: Cases per `run` call when prefetching: large enough that a job's fixed cost is shared by many
#: examples (the whole `ci` suite is about two such calls), small enough that one call stays well
#: within the request timeout on a loaded machine.
PREFETCH_CHUNK = 10_000

#: Many `run` calls answered by one job: `run_requests(requests)` gives each request's observations.
RunRequests = Callable[[list[tuple[Case, ...]]], list[list[Observation]]]

#: A rule's check of one case: `None` when it holds, else what is wrong, in one sentence.
Check = Callable[[Case, Observation], str | None]


def property_settings(share: float = 1.0) -> settings:
    """The loaded profile's settings, for a test whose examples cost `1 / share` of a plain one.

    The tally fixture lives across a test's examples on purpose, hence the suppressed health check.
    """
    base = settings.default
    return settings(
        parent=base,
        max_examples=max(10, round(base.max_examples * share)),
        suppress_health_check=[*base.suppress_health_check, HealthCheck.function_scoped_fixture],
    )


@dataclass
class CacheStats:
    """What prefetching did in one property test: cases fetched ahead, in how many `run` calls and
    seconds (the whole run's, counted in the test that fetched them), and how many tests' cases came
    from another run's recordings (`recordings.py`) and how long the test waited for them;
    cases answered from the cache (`hits`) and cases that cost a real call (`misses`, in `calls`)."""

    fetched: int = 0
    fetch_calls: int = 0
    fetch_seconds: float = 0.0
    loaded: int = 0
    waited: float = 0.0
    hits: int = 0
    misses: int = 0
    calls: int = 0

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def reset(self) -> None:
        self.__init__()


class Suite:
    """The implementation under test and the reference, as the properties use them.

    `run` is the only place that calls the implementation. For an implementation whose every call
    costs a job (`prefetching`), the property tests run in two passes (`conftest.pytest_pyfunc_call`):
    `recording()` answers with the reference and notes every case sent, by every test of the run,
    `fetch()` runs all of them through the implementation in a few large calls, and
    `answering_from_cache()` runs each test for real, answering `run` from those observations; a
    case not fetched (Hypothesis explores and shrinks differently once the implementation
    disagrees) costs a real call. An implementation with an engine to start (`start()`) starts it in
    the background meanwhile. The reference's answers are kept from the recording pass, so
    the real pass does not compute them again (`expected`). With `real_batches` set, `run` calls are recorded
    and answered as whole requests (the module's docstring).
    """

    def __init__(self, impl: Implementation, reference: Implementation, prefetching: bool = False,
                 chunk: int = PREFETCH_CHUNK, timeout: float = REQUEST_TIMEOUT) -> None:
        self.impl, self.reference = impl, reference
        self.prefetching, self.chunk, self.timeout = prefetching, chunk, timeout
        self._mode = "direct"
        self.real_batches = False
        #: Note what the direct calls send, for the runs that read this run's recordings (`recordings.py`).
        self.noting = False
        self._noted = _Sent()  # by the test that runs: `take_recording`
        self._queued = _Sent()  # to fetch
        self.recorded = Recording(impl.features, (), ())  # by the last recording pass
        self._cache: dict[Case, Observation] = {}
        self._answers: dict[tuple[Case, ...], dict[int, list[Observation]]] = defaultdict(dict)
        self._example: object = None
        self._occurrences: Counter[tuple[Case, ...]] = Counter()
        self._expected: dict[Case, Observation] = {}
        self.stats = CacheStats()
        self._starting = _started_in_background(impl) if prefetching else None

    @property
    def answers_requests(self) -> bool:
        """Whether the implementation answers many `run` calls in one job (`run_requests`)."""
        return callable(getattr(self.impl, "run_requests", None))

    @property
    def features(self) -> frozenset[str]:
        return self.impl.features

    def fits(self, case: Case) -> bool:
        """Only cases whose features the implementation declares are sent to it."""
        return required_features(case) <= self.impl.features

    def run(self, cases: Sequence[Case], tally: FeatureTally) -> list[Observation]:
        """One `run` call; an exception or a wrong number of observations breaks the interface."""
        cases = list(cases)
        unfit = [c for c in cases if not self.fits(c)]
        assert not unfit, f"the suite built a case the implementation does not support: {unfit[0]}"
        if self._mode == "recording":
            self._note(cases)
            return self.expected(cases)
        tally.add(cases)
        if self._mode == "direct":
            if self.noting:
                self._note(cases)
            return self._call(cases)
        if self.real_batches:
            return self._answer_request(cases)
        self.stats.hits += sum(c in self._cache for c in cases)
        missing = list(dict.fromkeys(c for c in cases if c not in self._cache))
        if missing:
            self.stats.misses += len(missing)
            self.stats.calls += 1
            self._cache.update(zip(missing, self._call(missing), strict=True))
        return [self._cache[c] for c in cases]

    def _note(self, cases: list[Case]) -> None:
        """Note a `run` call's cases to fetch, or with `real_batches` the call as a request, in the
        round of its occurrence in the example."""
        if self.real_batches:
            self._noted.add_request(self._occurrence(tuple(cases)), tuple(cases))
        else:
            self._noted.add_cases(cases)

    def _occurrence(self, request: tuple[Case, ...]) -> int:
        """How many times the current example sent `request` before (the example: Hypothesis's build
        context; outside Hypothesis, all calls are one example)."""
        try:
            example = current_build_context()
        except InvalidArgument:
            example = None
        if example is not self._example:
            self._example, self._occurrences = example, Counter()
        self._occurrences[request] += 1
        return self._occurrences[request] - 1

    def _answer_request(self, cases: list[Case]) -> list[Observation]:
        """The answer of the round that matches this request's occurrence in the example, or a real
        call when that round did not answer it."""
        answer = self._answers.get(tuple(cases), {}).get(self._occurrence(tuple(cases)))
        if answer is not None:
            self.stats.hits += len(cases)
            return list(answer)
        self.stats.misses += len(cases)
        self.stats.calls += 1
        return self._call(cases)

    def _call(self, cases: list[Case]) -> list[Observation]:
        """The implementation's observations; a failure to run stops the test (`CouldNotRun`), and
        a bug breaks the interface's rule for the case that raises on its own."""
        try:
            observations = self._request(cases)
        except Exception as e:
            culprit, error = self._culprit(cases, e)
            raise PropertyViolation("run(cases) gives an observation for every case without raising",
                                    culprit, detail=f"{type(error).__name__}: {error}") from error
        if len(observations) != len(cases):
            raise PropertyViolation("run(cases) gives one observation per case, in order", cases[0],
                                    detail=f"{len(cases)} cases, {len(observations)} observations")
        return list(observations)

    def _culprit(self, cases: list[Case], error: Exception) -> tuple[Case, Exception]:
        """The first case of the batch whose `run` raises on its own, and its error, so that the
        counterexample reproduces alone; the first case when only the batch raises."""
        for case in cases if len(cases) > 1 else ():
            try:
                self._request([case])
            except Exception as alone:
                return case, alone
        return cases[0], error

    def _request(self, cases: list, impl: Implementation | None = None) -> list:
        """One `run` call (of `impl`, by default the implementation) within `timeout` seconds; a
        failure to run raises `CouldNotRun`."""
        try:
            return run_within(impl or self.impl, cases, self.timeout)
        except Exception as e:
            reason = failure_to_run(e)
            if reason is not None:
                raise CouldNotRun(f"{self.impl.name} could not run: {reason}") from e
            raise

    def expected(self, cases: Sequence[Case]) -> list[Observation]:
        """The reference's observations, each case's computed once in the run (Hypothesis runs an
        example again as it generates and shrinks)."""
        missing = list(dict.fromkeys(c for c in cases if c not in self._expected))
        if missing:
            self._expected.update(zip(missing, self.reference.run(missing), strict=True))
        return [self._expected[c] for c in cases]

    # --- prefetching: batching across a test's examples ------------------------------------------

    @contextmanager
    def recording(self) -> Iterator[None]:
        """The first pass: the reference answers for the implementation; every case sent is noted.
        What the pass sent is then `recorded` (for the other runs: `recordings.py`) and queued for
        the next `fetch`."""
        self._mode, self._occurrences = "recording", Counter()
        try:
            yield
        finally:
            self._mode = "direct"
            self.recorded = self.take_recording()
            self.queue(self.recorded)

    def fetch(self) -> None:
        """Run the queued cases through the implementation, `chunk` cases per `run` call, and the
        queued requests through `run_requests`, round by round, about `chunk` cases per call.

        A call that fails is split in halves until the failing cases (or requests) stand alone;
        those stay unfetched, so the property meets the failure in the example's own `run` call.
        """
        if self._starting is not None:
            self._starting.join()
        started = time.monotonic()
        queued, self._queued = self._queued, _Sent()
        todo = [c for c in queued.cases if c not in self._cache]
        self.stats.fetched += len(todo) + sum(len(r) for round_ in queued.rounds for r in round_)
        for start in range(0, len(todo), self.chunk):
            self._fetch(todo[start:start + self.chunk], self._request, self._store_cases)
        requests = _Requests(self.impl) if queued.rounds else None
        for n, round_ in enumerate(queued.rounds):
            for part in chunked(list(round_), self.chunk):
                self._fetch(part, lambda part: self._request(part, requests),
                            lambda part, answers, n=n: self._store_answers(n, part, answers))
        self.stats.fetch_seconds += time.monotonic() - started

    def _fetch(self, items: list, call: Callable[[list], list], store: Callable[[list, list], None]) -> None:
        self.stats.fetch_calls += 1
        try:
            answers = call(items)
            if len(answers) != len(items):
                raise ValueError("wrong number of answers")
        except Exception:
            if len(items) > 1:
                half = len(items) // 2
                self._fetch(items[:half], call, store)
                self._fetch(items[half:], call, store)
            return
        store(items, answers)

    def _store_cases(self, cases: list[Case], observations: list[Observation]) -> None:
        self._cache.update(zip(cases, observations, strict=True))

    def _store_answers(self, round_: int, requests: list[tuple[Case, ...]],
                       answers: list[list[Observation]]) -> None:
        if any(len(a) != len(r) for r, a in zip(requests, answers, strict=True)):
            return  # a wrong answer is left to the request's own call, which reports it
        for request, observations in zip(requests, answers, strict=True):
            self._answers[request][round_] = list(observations)

    def take_recording(self) -> Recording:
        """What was noted since the last time: the recording of the test that just ran."""
        recording, self._noted, self._occurrences = self._noted.recording(self.features), _Sent(), Counter()
        return recording

    def queue(self, recording: Recording) -> None:
        """Fetch a test's cases and requests, as its recording pass sent them, at the next `fetch`."""
        self._queued.add(recording)

    def load(self, recording: Recording) -> None:
        """`queue` a test's recording made by another run."""
        self.stats.loaded += 1
        self.queue(recording)

    @contextmanager
    def answering_from_cache(self) -> Iterator[None]:
        """The second pass: `run` answers from the fetched observations, kept for the whole run."""
        self._mode, self._occurrences = "cached", Counter()
        try:
            yield
        finally:
            self._mode = "direct"


class _Sent:
    """Cases and requests sent, in order and without repeats (ordered sets); a request in the round
    of its occurrence in its example."""

    def __init__(self) -> None:
        self.cases: dict[Case, None] = {}
        self.rounds: list[dict[tuple[Case, ...], None]] = []

    def add_cases(self, cases: Sequence[Case]) -> None:
        self.cases.update(dict.fromkeys(cases))

    def add_request(self, round_: int, request: tuple[Case, ...]) -> None:
        while len(self.rounds) <= round_:
            self.rounds.append({})
        self.rounds[round_][request] = None

    def add(self, recording: Recording) -> None:
        self.add_cases(recording.cases)
        for n, round_ in enumerate(recording.rounds):
            for request in round_:
                self.add_request(n, request)

    def recording(self, features: frozenset[str]) -> Recording:
        return Recording(features, tuple(self.cases), tuple(tuple(round_) for round_ in self.rounds))


def _started_in_background(impl: Implementation) -> threading.Thread | None:
    """`impl.start()`, when the implementation has it (an engine to start before its first call: Spark's
    session, Flink's runner), in a thread of its own, so that the engine starts while the recording
    pass runs; `fetch` waits for it. A failure to start is not lost: the first `run` call starts it
    again and meets the failure itself."""
    start = getattr(impl, "start", None)
    if not callable(start):
        return None

    def starting() -> None:
        try:
            start()
        except Exception:
            pass  # the first run call meets it (see above)

    thread = threading.Thread(target=starting, name=f"starting {impl.name}", daemon=True)
    thread.start()
    return thread


class _Requests:
    """An implementation's `run_requests` as a `run` call, so that it keeps the request timeout."""

    def __init__(self, impl: Implementation) -> None:
        self.name, self.run = impl.name, impl.run_requests


def chunked(requests: list[tuple[Case, ...]], cases: int) -> Iterator[list[tuple[Case, ...]]]:
    """Consecutive runs of `requests` of about `cases` cases each (a larger request stands alone)."""
    part: list[tuple[Case, ...]] = []
    size = 0
    for request in requests:
        if part and size + len(request) > cases:
            yield part
            part, size = [], 0
        part.append(request)
        size += len(request)
    if part:
        yield part


def violation(rule: str, case: Case, actual: Observation | None, detail: str,
              expected: Observation | None = None) -> PropertyViolation:
    note(f"the case, as JSON:\n{dumps_case(case)}")
    return PropertyViolation(rule, case, actual, expected, detail)


def run_and_check(data: DataObject, suite: Suite, tally: FeatureTally, rule: str, check: Check) -> None:
    """Draw a batch of cases the implementation supports, run it, and check `rule` on each case."""
    batch = [relabelled(c) for c in data.draw(case_batches(suite.features, report=False), label="batch")]
    check_each(rule, batch, suite.run(batch, tally), check)


def check_each(rule: str, cases: Sequence[Case], observations: Sequence[Observation], check: Check) -> None:
    """Raise for the first case whose observation breaks `rule`."""
    for case, observation in zip(cases, observations, strict=True):
        problem = check(case, observation)
        if problem:
            raise violation(rule, case, observation, problem)


DIFFERENTIAL_RULE = "the implementation's observation is equivalent to the reference's"


def compare_with_reference(suite: Suite, tally: FeatureTally, batch: Sequence[Case]) -> None:
    """The differential rule: one `run` call for the batch; the first case whose observation is not
    equivalent to the reference's is reported alone, with both observations."""
    actual = suite.run(batch, tally)
    positions = not suite.impl.position_free
    for case, got, want in zip(batch, actual, suite.expected(batch), strict=True):
        detail = difference(want, got, positions=positions)
        if detail:
            raise violation(DIFFERENTIAL_RULE, case, got, detail, expected=want)

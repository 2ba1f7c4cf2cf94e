"""Where a prefetched test's `run` calls are answered: the reference while a test is recorded, the
implementation's observations fetched in a few large calls while it runs for real.

An implementation that costs a job per `run` call (Spark, Flink) is prefetched: its answers for all the
examples of the whole run are fetched in a few large calls (`Prefetcher.fetch`), and the examples' own
calls are answered from them. Correctness does not depend on it: the cache holds only the
implementation's own observations of exactly those cases, and a case it lacks costs a real call.

A test about how one `run` call treats its batch (batch isolation, marked `real_batches`) needs each of
its calls answered as that call alone. An implementation that can answer many `run` calls in one job
declares `run_requests(requests) -> [observations of each request]`, each request's observations as its
own `run` call would give them (Spark: `spark_impl.implementation`); such a test's calls are then fetched
as requests, a batch's n-th call within one example in the n-th round of requests, so a batch run twice
goes to two separate jobs. An example that sends the same requests as an earlier one (Hypothesis draws
some batches more than once) is answered by the same rounds: it costs no job of its own.

The `Prefetcher` lends the suite (`harness.Suite.answers`) the source of answers of each pass; the rules
never see it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from hypothesis.control import current_build_context
from hypothesis.errors import InvalidArgument

from conformance.prefetch.recordings import Recording, drawing_features
from conformance.properties.harness import Suite
from window_contract.case import Case
from window_contract.implementation import Implementation
from window_contract.observation import Observation

#: Cases per `run` call when prefetching: large enough that a job's fixed cost is shared by many
#: examples (the whole `ci` suite is about two such calls), small enough that one call stays well
#: within the request timeout on a loaded machine.
PREFETCH_CHUNK = 10_000

#: Many `run` calls answered by one job: `run_requests(requests)` gives each request's observations.
RunRequests = Callable[[list[tuple[Case, ...]]], list[list[Observation]]]


@dataclass
class CacheStats:
    """What prefetching did for one test: tests recorded (`drawn`, taking `drawing_seconds`: its own
    and those recorded ahead of their turn), cases fetched ahead (`fetched`, in `fetch_calls` calls
    taking `fetch_seconds`), tests whose cases came from another run's recordings (`loaded`,
    `recordings.py`) and how long the test waited for them; cases answered from the cache (`hits`)
    and cases that cost a real call (`misses`, in `calls`)."""

    drawn: int = 0
    drawing_seconds: float = 0.0
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


class Prefetcher:
    """The answers of a suite whose implementation is prefetched, and the cases to fetch.

    A prefetched test runs in two passes (`plugin.py`): `recording()` answers with the reference and
    notes every case sent (with `real_batches`, every call as a request), `fetch()` runs all of them
    through the implementation in a few large calls, and `answering()` answers `run` from those
    observations; a case not fetched (Hypothesis explores and shrinks differently once the implementation
    disagrees) costs a real call. `noting()` answers directly and notes what is sent, for the other runs
    that read this run's recordings. An implementation with an engine to start (`start()`) starts it in
    the background meanwhile.
    """

    def __init__(self, suite: Suite, chunk: int = PREFETCH_CHUNK) -> None:
        self.suite, self.chunk = suite, chunk
        self._noted = _Sent()  # by the test that runs: `take_recording`
        self._queued = _Sent()  # to fetch
        self.recorded = Recording(self.features, (), ())  # by the last recording pass
        self._cache: dict[Case, Observation] = {}
        self._answers: dict[tuple[Case, ...], dict[int, list[Observation]]] = defaultdict(dict)
        self._example: object = None
        self._occurrences: Counter[tuple[Case, ...]] = Counter()
        self.stats = CacheStats()
        self._starting: threading.Thread | None = None

    def start_engine(self) -> None:
        """Start the implementation's engine in the background (`_started_in_background`), while the
        recording pass runs; `fetch` waits for it."""
        self._starting = _started_in_background(self.suite.impl)

    @property
    def features(self) -> frozenset[str]:
        """What the suite's tests draw for, which keys their recordings (`recordings.drawing_features`)."""
        return drawing_features(self.suite.features)

    # --- the sources of answers of each pass ----------------------------------------------------

    @contextmanager
    def recording(self, real_batches: bool = False) -> Iterator[None]:
        """The first pass: the reference answers for the implementation; every case sent is noted.
        What the pass sent is then `recorded` (for the other runs: `recordings.py`) and queued for
        the next `fetch`."""
        def answer(cases: list[Case]) -> list[Observation]:
            self._note(cases, real_batches)
            return self.suite.expected(cases)

        started = time.monotonic()
        try:
            with self._answering_by(answer):
                yield
        finally:
            self.recorded = self.take_recording()
            self.queue(self.recorded)
            self.stats.drawn += 1
            self.stats.drawing_seconds += time.monotonic() - started

    @contextmanager
    def noting(self, real_batches: bool = False) -> Iterator[None]:
        """The implementation answers; every case sent is noted (`take_recording`)."""
        def answer(cases: list[Case]) -> list[Observation]:
            self._note(cases, real_batches)
            return self.suite.call(cases)

        with self._answering_by(answer):
            yield

    @contextmanager
    def answering(self, real_batches: bool = False) -> Iterator[None]:
        """The second pass: `run` answers from the fetched observations, kept for the whole run."""
        with self._answering_by(self._answer_request if real_batches else self._answer_cases):
            yield

    @contextmanager
    def _answering_by(self, answer: Callable[[list[Case]], list[Observation]]) -> Iterator[None]:
        self.suite.answers, self._occurrences = answer, Counter()
        try:
            yield
        finally:
            self.suite.answers = self.suite.call

    def _answer_cases(self, cases: list[Case]) -> list[Observation]:
        self.stats.hits += sum(c in self._cache for c in cases)
        missing = list(dict.fromkeys(c for c in cases if c not in self._cache))
        if missing:
            self.stats.misses += len(missing)
            self.stats.calls += 1
            self._cache.update(zip(missing, self.suite.call(missing), strict=True))
        return [self._cache[c] for c in cases]

    def _answer_request(self, cases: list[Case]) -> list[Observation]:
        """The answer of the round that matches this request's occurrence in the example, or a real
        call when that round did not answer it."""
        answer = self._answers.get(tuple(cases), {}).get(self._occurrence(tuple(cases)))
        if answer is not None:
            self.stats.hits += len(cases)
            return list(answer)
        self.stats.misses += len(cases)
        self.stats.calls += 1
        return self.suite.call(cases)

    def _note(self, cases: list[Case], real_batches: bool) -> None:
        """Note a `run` call's cases to fetch, or with `real_batches` the call as a request, in the
        round of its occurrence in the example."""
        if real_batches:
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

    # --- what to fetch, and fetching it -------------------------------------------------------

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

    def fetch(self, keep_first_round: bool = False) -> None:
        """Run the queued cases and requests through the implementation in as few jobs as it allows.

        Without requests, the cases go `chunk` per `run` call. With requests, each round goes to jobs of
        its own (two rounds never share one), about `chunk` cases per `run_requests` call, and the cases
        ride with the first round, each a request of its own: a case's observation alone is the one the
        cache holds for it in any batch. `keep_first_round` leaves the first round queued for the next
        fetch, the cases riding with the second round or going alone (the rounds' order is free: each is
        a job of its own, whichever runs first), so that a run fetching while other runs still record
        fetches what they write later with that round, not in a job of its own.

        A call that fails is split in halves until the failing cases (or requests) stand alone;
        those stay unfetched, so the property meets the failure in the example's own `run` call.
        """
        if self._starting is not None:
            self._starting.join()
        started = time.monotonic()
        queued, self._queued = self._queued, _Sent()
        todo = [c for c in queued.cases if c not in self._cache]
        rounds = list(enumerate(queued.rounds))
        if keep_first_round and rounds:
            self._queued.rounds.append(rounds.pop(0)[1])
        self.stats.fetched += len(todo) + sum(len(r) for _, round_ in rounds for r in round_)
        if not rounds:
            for start in range(0, len(todo), self.chunk):
                self._fetch(todo[start:start + self.chunk], self.suite.request, self._store_cases)
            todo = []
        requests = _Requests(self.suite.impl) if rounds else None
        for n, round_ in rounds:
            riding, todo = [(case,) for case in todo], []
            for part in chunked(list(dict.fromkeys([*riding, *round_])), self.chunk):
                self._fetch(part, lambda part: self.suite.request(part, requests),
                            lambda part, answers, n=n, round_=round_: self._store_answers(n, round_, part, answers))
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

    def _store_answers(self, n: int, round_: dict[tuple[Case, ...], None], requests: list[tuple[Case, ...]],
                       answers: list[list[Observation]]) -> None:
        """The answers of a job of requests: a request of `round_` (the `n`-th) for that round, and any
        request of one case (of the round, or a case that rode along) for the cache as well."""
        if any(len(a) != len(r) for r, a in zip(requests, answers, strict=True)):
            return  # a wrong answer is left to the request's own call, which reports it
        for request, observations in zip(requests, answers, strict=True):
            if request in round_:
                self._answers[request][n] = list(observations)
            if len(request) == 1:
                self._cache.setdefault(request[0], observations[0])


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

"""The property suite's pytest set-up: `--impl NAME`, `--prefetch`, the Hypothesis profiles, the
fixtures, and the two passes of a prefetched run."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import random
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import seed, settings

from conformance.evidence import NOT_APPLICABLE, FeatureTally
from conformance.profiles import register_profiles
from conformance.properties.harness import Suite
from conformance.properties.recordings import (
    RECORDINGS,
    Recording,
    claim,
    read_recording,
    wait_for_recording,
    write_recording,
)
from conformance.properties.replay import Example, keeping, replaying
from window_contract.implementation import REQUEST_TIMEOUT
from window_contract.registry import load_implementation

register_profiles()

#: A test marked so sends its batches to the implementation as they are, never from the prefetch
#: cache of single cases: what it checks is how the implementation treats one `run` call's batch.
#: Its calls are prefetched as whole requests when the implementation has `run_requests`.
REAL_BATCHES = "real_batches"

#: The parameters a test may take to be recorded ahead of its turn (any other fixture would need
#: pytest's set-up): such a test is recorded and fetched at its own turn instead.
RECORDABLE = frozenset({"suite", "tally"})
#: The tests recorded so far (in the config's stash).
RECORDED = pytest.StashKey[set[str]]()
#: The examples of the tests recorded so far, by test, for their real pass (`replay.py`; in the
#: config's stash): a test that did not pass in its recording has none.
EXAMPLES = pytest.StashKey[dict[str, tuple[Example, ...]]]()
#: The seed of a prefetched session's examples, when the session chose one (in the config's stash).
SEED = pytest.StashKey[int]()
#: A test marked so checks when outputs happen: it does not apply to a position-free implementation.
POSITIONS = "positions"

#: The prefetch and replay figures of the session's tests, summed (from their reports, so across xdist too).
_totals: dict[str, Counter[str]] = {"prefetch": Counter(), "replay": Counter()}
#: The seeds prefetched sessions chose (`_one_seed`), from the tests' reports.
_prefetch_seeds: set[int] = set()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--impl", default="reference",
                     help="the implementation under test: a registered name, package.module:factory or "
                          "exec:COMMAND (a process: docs/protocol.md) (default: reference)")
    parser.addoption("--prefetch", choices=("auto", "on", "off"), default="auto",
                     help="batch each property test's examples into a few run calls ahead of the test: "
                          "'auto' (default) when the implementation declares costly_calls = True")
    parser.addoption("--request-timeout", type=float, default=REQUEST_TIMEOUT, metavar="SECONDS",
                     help="how long one run call may take before its cases count as not run "
                          f"(default: {REQUEST_TIMEOUT:g})")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{REAL_BATCHES}: never answer this test's run calls from the "
                                       "prefetch cache")
    config.addinivalue_line("markers", f"{POSITIONS}: a rule about when outputs happen, not applicable to a "
                                       "position-free implementation")


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest) -> Suite:
    impl = load_implementation(request.config.getoption("--impl"))
    choice = request.config.getoption("--prefetch")
    prefetching = choice == "on" or (choice == "auto" and impl.costly_calls)
    return Suite(impl, load_implementation("reference"), prefetching=prefetching,
                 timeout=request.config.getoption("--request-timeout"))


@pytest.fixture(autouse=True)
def positions_known(request: pytest.FixtureRequest) -> None:
    """A rule about positions is not applicable to a position-free implementation: the test ends as
    skipped with `NOT_APPLICABLE`, which the run's report shows as such (not as a test that could
    not run)."""
    if request.node.get_closest_marker(POSITIONS) and request.getfixturevalue("suite").impl.position_free:
        pytest.skip(NOT_APPLICABLE)


@pytest.fixture
def tally(request: pytest.FixtureRequest):
    """The features of the cases a test sends; kept across its examples, stored even when it fails."""
    counts = FeatureTally()
    yield counts
    request.node.user_properties.append(("features", dict(counts)))


def _prefetched(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` runs from prefetched answers: a test of the suite, prefetching on, and for a
    test of real batches an implementation that answers requests."""
    return (isinstance(item, pytest.Function) and suite.prefetching
            and (not item.get_closest_marker(REAL_BATCHES) or suite.answers_requests))


def _parameters(item: pytest.Function) -> list[str]:
    # @given's wrapper takes exactly the test's fixtures: its signature leaves out the drawn arguments.
    return list(inspect.signature(item.obj).parameters)


def _arguments(item: pytest.Function, fixtures: dict) -> dict:
    """The test's arguments out of `fixtures` (its own, or those of a test recorded ahead)."""
    return {name: fixtures[name] for name in _parameters(item)}


def _runs_prefetched(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` will run from prefetched answers (not a rule about positions on a
    position-free implementation, which is skipped)."""
    return _prefetched(item, suite) and not (item.get_closest_marker(POSITIONS) and suite.impl.position_free)


def _recordable_ahead(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` can be recorded before its turn: it takes the suite and no fixture but the
    tally, and it will run prefetched."""
    return _runs_prefetched(item, suite) and "suite" in _parameters(item) and set(_parameters(item)) <= RECORDABLE


def _record(item: pytest.Function, suite: Suite, arguments: dict, shared: Path | None = None) -> None:
    """The recording pass of one test: the reference answers, the cases and requests are noted for
    the next fetch (and written to `shared` for the other runs), and the examples are kept for the
    real pass when the test passed."""
    suite.real_batches = item.get_closest_marker(REAL_BATCHES) is not None
    passed = False
    with suite.recording(), keeping(item.obj) as examples:
        with contextlib.suppress(Exception):  # the reference's failures show in the real pass
            item.obj(**arguments)
            passed = True
    if passed:
        item.config.stash.setdefault(EXAMPLES, {})[item.nodeid] = tuple(examples)
    if shared is not None:
        _publish(shared, item, suite.recorded, tuple(examples) if passed else None)


def _load(item: pytest.Item, suite: Suite, recording: Recording) -> None:
    """A test's cases to fetch, and its examples, as another run recorded them."""
    suite.load(recording)
    if recording.examples is not None:
        item.config.stash.setdefault(EXAMPLES, {})[item.nodeid] = recording.examples


def _publish(shared: Path, item: pytest.Item, recording: Recording, examples: tuple[Example, ...] | None) -> None:
    """Write a test's recording for the other runs. One that cannot be written is not this run's
    failure: the runs waiting for it draw the test themselves once this one has ended."""
    with contextlib.suppress(OSError):
        write_recording(shared, item.nodeid, dataclasses.replace(recording, examples=examples))


def _drawn_elsewhere(shared: Path, item: pytest.Item, features: frozenset[str]) -> Recording | None:
    """The test's recording when another run draws it (waiting for it); `None` when this run draws
    it: it claimed it, or the run that did ended without writing it (or the folder failed us)."""
    try:
        if claim(shared, item.nodeid, features):
            return None
        return wait_for_recording(shared, item.nodeid, features)
    except OSError:
        return None


def _claimed(shared: Path, item: pytest.Item, features: frozenset[str]) -> bool:
    """Whether this run claims the test (`recordings.claim`): not when the folder fails us."""
    try:
        return claim(shared, item.nodeid, features)
    except OSError:
        return False


@contextlib.contextmanager
def _replaying(item: pytest.Function, examples: tuple[Example, ...] | None) -> Iterator[None]:
    """`item` runs on `examples` meanwhile (`replay.py`), when there are some; the report counts it."""
    if examples is None:
        yield
        return
    test, handed_back = item.obj, []
    item.obj = replaying(test, examples, lambda: handed_back.append(True))
    try:
        yield
    finally:
        item.obj = test
        item.user_properties.append(("replay", {"replayed": 1, "handed_back": len(handed_back)}))


def _shared(config: pytest.Config) -> Path | None:
    """The recordings folder `run` gave (`conformance.runner.collector` declares the option)."""
    value = config.getoption(RECORDINGS, None)
    return Path(value) if value else None


def _ahead(item: pytest.Function) -> list[pytest.Item]:
    """The session's tests (a pytest-xdist worker, which does not know its share of them: none)."""
    return [] if hasattr(item.config, "workerinput") else item.session.items


def _one_seed(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under a profile that is not derandomized (`dev`, `thorough`) and without `--hypothesis-seed`
    (which `run` gives), every test would draw other examples in its real pass than in its recording
    pass, and nearly every case would cost a call of its own: the session draws one seed and gives it
    to the prefetched tests (Hypothesis's `seed`), and the terminal summary prints it."""
    if settings.default.derandomize or config.getoption("--hypothesis-seed", None) is not None:
        return
    chosen = config.stash.setdefault(SEED, random.randrange(2**32))
    for item in items:
        if isinstance(item, pytest.Function) and hasattr(item.obj, "hypothesis"):
            seed(chosen)(item.obj)


def _record_or_load(pyfuncitem: pytest.Function, suite: Suite, recorded: set[str]) -> None:
    """The cases to fetch for `pyfuncitem` and the tests after it. Alone: a recording pass of this test
    and of every test that can be recorded ahead. Sharing the drawing with other runs (`recordings.py`):
    a recording pass of each test no run has claimed, from the last backwards, fetched at once with
    every other run's recording written by then; then this test's (recorded here or waited for), and
    the recordings written meanwhile."""
    shared = _shared(pyfuncitem.config)
    fixtures = {"suite": suite, "tally": FeatureTally()}
    if shared is None:
        recorded.add(pyfuncitem.nodeid)
        _record(pyfuncitem, suite, _arguments(pyfuncitem, pyfuncitem.funcargs))
        for item in _ahead(pyfuncitem):
            if item.nodeid not in recorded and _recordable_ahead(item, suite):
                recorded.add(item.nodeid)
                _record(item, suite, _arguments(item, fixtures))
        return
    for item in reversed(_ahead(pyfuncitem)):
        if (item.nodeid not in recorded and item is not pyfuncitem and _recordable_ahead(item, suite)
                and _claimed(shared, item, suite.features)):
            recorded.add(item.nodeid)
            _record(item, suite, _arguments(item, fixtures), shared)
    _load_written(shared, pyfuncitem, suite, recorded)
    suite.fetch()  # what this run drew and the others wrote, in one job, while the others still draw
    if pyfuncitem.nodeid not in recorded:
        recorded.add(pyfuncitem.nodeid)
        started = time.monotonic()
        recording = _drawn_elsewhere(shared, pyfuncitem, suite.features)
        suite.stats.waited += time.monotonic() - started
        if recording is None:
            _record(pyfuncitem, suite, _arguments(pyfuncitem, pyfuncitem.funcargs), shared)
        else:
            _load(pyfuncitem, suite, recording)
    _load_written(shared, pyfuncitem, suite, recorded)


def _load_written(shared: Path, pyfuncitem: pytest.Function, suite: Suite, recorded: set[str]) -> None:
    """Every recording of this test and the tests after it that another run has written so far."""
    for item in _ahead(pyfuncitem):
        if item.nodeid not in recorded and _runs_prefetched(item, suite):
            ready = read_recording(shared, item.nodeid, suite.features)
            if ready is not None:
                recorded.add(item.nodeid)
                _load(item, suite, ready)


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A prefetched run runs each test twice. The first prefetched test records every test of the
    run (a pytest-xdist worker, which does not know its share of the tests, only its own), then
    fetches all their cases in a few large calls; each test then runs for real from the answers.
    With `derandomize` and no database (or one seed for the run, `--hypothesis-seed`, which `run`
    gives under the other profiles), Hypothesis generates the same examples both times as long as
    the implementation agrees with the reference, so the real pass finds its cases fetched (the hit
    and miss counts show it), and it replays the examples the recording pass kept instead of drawing
    them again (`replay.py`).

    When `run` gives a recordings folder (`recordings.py`), the runs in it draw each test once between
    them: a test another run claimed is waited for, then fetched (a prefetched run) and replayed; a
    test this run draws is written for the others.

    The recording pass runs before the inner wrappers: the run's collector observes Hypothesis
    only within them (its wrapper is `trylast`), so the recording pass's examples are not counted."""
    suite = pyfuncitem.funcargs.get("suite")
    if not isinstance(suite, Suite):
        return (yield)
    shared = _shared(pyfuncitem.config)
    if not _prefetched(pyfuncitem, suite):
        if shared is None:
            return (yield)
        recording = _drawn_elsewhere(shared, pyfuncitem, suite.features)
        if recording is not None:
            with _replaying(pyfuncitem, recording.examples):
                return (yield)
        suite.noting, suite.real_batches = True, pyfuncitem.get_closest_marker(REAL_BATCHES) is not None
        passed = False
        try:
            with keeping(pyfuncitem.obj) as examples:
                result = yield
            passed = True
            return result
        finally:
            suite.noting = suite.real_batches = False
            _publish(shared, pyfuncitem, suite.take_recording(), tuple(examples) if passed else None)
    suite.stats.reset()
    recorded = pyfuncitem.config.stash.setdefault(RECORDED, set())
    if pyfuncitem.nodeid not in recorded:
        _one_seed(pyfuncitem.config, [pyfuncitem, *_ahead(pyfuncitem)])
        _record_or_load(pyfuncitem, suite, recorded)
        suite.fetch()
    suite.real_batches = pyfuncitem.get_closest_marker(REAL_BATCHES) is not None
    try:
        with suite.answering_from_cache(), _replaying(pyfuncitem, pyfuncitem.config.stash.get(EXAMPLES, {})
                                                      .pop(pyfuncitem.nodeid, None)):
            return (yield)
    finally:
        suite.real_batches = False
        pyfuncitem.user_properties.append(("prefetch", suite.stats.as_dict()))
        if SEED in pyfuncitem.config.stash:
            pyfuncitem.user_properties.append(("prefetch_seed", pyfuncitem.config.stash[SEED]))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        for name, value in report.user_properties:
            if name in ("prefetch", "replay"):
                _totals[name].update(value)
            elif name == "prefetch_seed":
                _prefetch_seeds.add(value)


def pytest_terminal_summary(terminalreporter) -> None:
    for chosen in sorted(_prefetch_seeds):  # one a session (under pytest-xdist, one a worker)
        terminalreporter.write_line(f"prefetch: examples drawn with seed {chosen} (--hypothesis-seed={chosen} "
                                    "draws them again)")
    if _totals["prefetch"]:
        t = _totals["prefetch"]
        terminalreporter.write_line(
            f"prefetch: {t['fetched']} cases fetched in {t['fetch_calls']} run calls ({t['fetch_seconds']:.1f} s), "
            f"the cases of {t['loaded']} tests as another run recorded them (waited "
            f"{t['waited']:.1f} s for them); in the tests "
            f"{t['hits']} cases answered from the cache, {t['misses']} missed ({t['calls']} real calls)")
    if _totals["replay"]:
        t = _totals["replay"]
        terminalreporter.write_line(f"replay: {t['replayed']} tests ran on examples drawn before, {t['handed_back']} "
                                    "of them handed back to Hypothesis on a failing example")

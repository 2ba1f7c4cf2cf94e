"""The property suite's pytest set-up: `--impl NAME`, `--prefetch`, the Hypothesis profiles, the
fixtures, and the two passes of a prefetched run."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import random
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import seed, settings

from conformance.evidence import NOT_APPLICABLE, FeatureTally
from conformance.implementation import REQUEST_TIMEOUT, load_implementation
from conformance.profiles import register_profiles
from conformance.properties.harness import Suite
from conformance.properties.recordings import (
    RECORDINGS_IN,
    RECORDINGS_OUT,
    Recording,
    read_recording,
    wait_for_recording,
    write_recording,
)
from conformance.properties.replay import Example, keeping, replaying

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

#: The prefetch figures of the session's tests, summed (from their reports, so across xdist too).
_prefetch_totals: Counter[str] = Counter()
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


def _runs_prefetched(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` will run from prefetched answers (not a rule about positions on a
    position-free implementation, which is skipped)."""
    return _prefetched(item, suite) and not (item.get_closest_marker(POSITIONS) and suite.impl.position_free)


def _recordable_ahead(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` can be recorded before its turn: it takes the suite and no fixture but the
    tally, and it will run prefetched."""
    return _runs_prefetched(item, suite) and "suite" in _parameters(item) and set(_parameters(item)) <= RECORDABLE


def _record(item: pytest.Function, suite: Suite, arguments: dict) -> None:
    """The recording pass of one test: the reference answers, the cases and requests are noted, and
    the examples are kept for the real pass when the test passed."""
    suite.real_batches = item.get_closest_marker(REAL_BATCHES) is not None
    with suite.recording(), keeping(item.obj) as examples:
        try:
            item.obj(**arguments)
        except Exception:
            return  # the reference's own failures show in the real pass (and in the reference's suite)
    item.config.stash.setdefault(EXAMPLES, {})[item.nodeid] = tuple(examples)


def _load(item: pytest.Item, suite: Suite, recording: Recording) -> None:
    """A test's cases to fetch, and its examples, as the reference's run recorded them."""
    suite.load(recording)
    if recording.examples is not None:
        item.config.stash.setdefault(EXAMPLES, {})[item.nodeid] = recording.examples


def _folder(config: pytest.Config, option: str) -> Path | None:
    """A recordings folder `run` gave (`conformance.runner.collector` declares the options)."""
    value = config.getoption(option, None)
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
    """The cases to fetch for `pyfuncitem` and the tests after it: the reference's run's recordings
    (`recordings.py`) when `run` gives them, waiting for this test's; else a recording pass of this
    test and of every test that can be recorded ahead."""
    recorded.add(pyfuncitem.nodeid)
    folder = _folder(pyfuncitem.config, RECORDINGS_IN)
    started = time.monotonic()
    recording = wait_for_recording(folder, pyfuncitem.nodeid) if folder else None
    suite.stats.waited += time.monotonic() - started
    if recording is not None and recording.features == suite.features:
        _load(pyfuncitem, suite, recording)
        for item in _ahead(pyfuncitem):
            if item.nodeid not in recorded and _runs_prefetched(item, suite):
                ready = read_recording(folder, item.nodeid)
                if ready is not None and ready.features == suite.features:
                    recorded.add(item.nodeid)
                    _load(item, suite, ready)
        return
    _record(pyfuncitem, suite, {name: pyfuncitem.funcargs[name] for name in _parameters(pyfuncitem)})
    for item in _ahead(pyfuncitem):
        if item.nodeid not in recorded and _recordable_ahead(item, suite):
            recorded.add(item.nodeid)
            fixtures = {"suite": suite, "tally": FeatureTally()}
            _record(item, suite, {name: fixtures[name] for name in _parameters(item)})


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A prefetched run runs each test twice. The first prefetched test records every test of the
    run (a pytest-xdist worker, which does not know its share of the tests, only its own), then
    fetches all their cases in a few large calls; each test then runs for real from the answers.
    With `derandomize` and no database (or one seed for the run, `--hypothesis-seed`, which `run`
    gives under the other profiles), Hypothesis generates the same examples both times as long as
    the implementation agrees with the reference, so the real pass finds its cases fetched (the hit
    and miss counts show it), and it replays the examples the recording pass kept instead of drawing
    them again (`replay.py`). When `run` runs the reference beside it, its recordings replace the
    recording pass (`recordings.py`), and the reference's run writes them as its tests end.

    The recording pass runs before the inner wrappers: the run's collector observes Hypothesis
    only within them (its wrapper is `trylast`), so the recording pass's examples are not counted."""
    suite = pyfuncitem.funcargs.get("suite")
    if not isinstance(suite, Suite):
        return (yield)
    publish = _folder(pyfuncitem.config, RECORDINGS_OUT)
    if publish is not None and not suite.prefetching:
        suite.noting, suite.real_batches = True, pyfuncitem.get_closest_marker(REAL_BATCHES) is not None
        passed = False
        try:
            with keeping(pyfuncitem.obj) as examples:
                result = yield
            passed = True
            return result
        finally:
            suite.noting = suite.real_batches = False
            recording = dataclasses.replace(suite.take_recording(),
                                            examples=tuple(examples) if passed else None)
            # a recording that cannot be written is not the reference's failure: the runs that read
            # recordings record this test themselves once the reference's run has ended
            with contextlib.suppress(OSError):
                write_recording(publish, pyfuncitem.nodeid, recording)
    if not _prefetched(pyfuncitem, suite):
        return (yield)
    suite.stats.reset()
    recorded = pyfuncitem.config.stash.setdefault(RECORDED, set())
    if pyfuncitem.nodeid not in recorded:
        _one_seed(pyfuncitem.config, [pyfuncitem, *_ahead(pyfuncitem)])
        _record_or_load(pyfuncitem, suite, recorded)
        suite.fetch()
    suite.real_batches = pyfuncitem.get_closest_marker(REAL_BATCHES) is not None
    test = pyfuncitem.obj
    examples = pyfuncitem.config.stash.get(EXAMPLES, {}).pop(pyfuncitem.nodeid, None)
    if examples is not None:
        suite.stats.replayed += 1
        pyfuncitem.obj = replaying(test, examples, handed_back=suite.stats.hand_back)
    try:
        with suite.answering_from_cache():
            return (yield)
    finally:
        pyfuncitem.obj = test
        suite.real_batches = False
        pyfuncitem.user_properties.append(("prefetch", suite.stats.as_dict()))
        if SEED in pyfuncitem.config.stash:
            pyfuncitem.user_properties.append(("prefetch_seed", pyfuncitem.config.stash[SEED]))



def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        for name, value in report.user_properties:
            if name == "prefetch":
                _prefetch_totals.update(value)
            elif name == "prefetch_seed":
                _prefetch_seeds.add(value)


def pytest_terminal_summary(terminalreporter) -> None:
    for chosen in sorted(_prefetch_seeds):  # one a session (under pytest-xdist, one a worker)
        terminalreporter.write_line(f"prefetch: examples drawn with seed {chosen} (--hypothesis-seed={chosen} "
                                    "draws them again)")
    if _prefetch_totals:
        t = _prefetch_totals
        terminalreporter.write_line(
            f"prefetch: {t['fetched']} cases fetched in {t['fetch_calls']} run calls ({t['fetch_seconds']:.1f} s), "
            f"the cases of {t['loaded']} tests as the reference's run recorded them (waited "
            f"{t['waited']:.1f} s for them); in the tests "
            f"{t['hits']} cases answered from the cache, {t['misses']} missed ({t['calls']} real calls)")
        terminalreporter.write_line(f"prefetch: {t['replayed']} tests replayed the examples their recording kept, "
                                    f"{t['handed_back']} of them handed back to Hypothesis on a failing example")

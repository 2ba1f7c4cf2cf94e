"""The property suite's pytest set-up: `--impl NAME`, `--prefetch`, the Hypothesis profiles, the
fixtures, and the two passes of a prefetched run."""

from __future__ import annotations

import inspect
from collections import Counter

import pytest

from conformance.evidence import NOT_APPLICABLE, FeatureTally
from conformance.implementation import REQUEST_TIMEOUT, load_implementation
from conformance.profiles import register_profiles
from conformance.properties.harness import Suite

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
#: A test marked so checks when outputs happen: it does not apply to a position-free implementation.
POSITIONS = "positions"

#: The prefetch figures of the session's tests, summed (from their reports, so across xdist too).
_prefetch_totals: Counter[str] = Counter()


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


def _recordable_ahead(item: pytest.Item, suite: Suite) -> bool:
    """Whether `item` can be recorded before its turn: it takes the suite and no fixture but the
    tally, and it will run (not a rule about positions on a position-free implementation)."""
    return (_prefetched(item, suite) and "suite" in _parameters(item) and set(_parameters(item)) <= RECORDABLE
            and not (item.get_closest_marker(POSITIONS) and suite.impl.position_free))


def _record(item: pytest.Function, suite: Suite, arguments: dict) -> None:
    """The recording pass of one test: the reference answers, the cases and requests are noted."""
    suite.real_batches = item.get_closest_marker(REAL_BATCHES) is not None
    with suite.recording():
        try:
            item.obj(**arguments)
        except Exception:
            pass  # the reference's own failures show in the real pass (and in the reference's suite)


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A prefetched run runs each test twice. The first prefetched test records every test of the
    run (a pytest-xdist worker, which does not know its share of the tests, only its own), then
    fetches all their cases in a few large calls; each test then runs for real from the answers.
    With `derandomize` and no database, Hypothesis generates the same examples both times as long
    as the implementation agrees with the reference, so the real pass finds its cases fetched (the
    hit and miss counts show it).

    The recording pass runs before the inner wrappers: the run's collector observes Hypothesis
    only within them (its wrapper is `trylast`), so the recording pass's examples are not counted."""
    suite = pyfuncitem.funcargs.get("suite")
    if not isinstance(suite, Suite) or not _prefetched(pyfuncitem, suite):
        return (yield)
    suite.stats.reset()
    recorded = pyfuncitem.config.stash.setdefault(RECORDED, set())
    if pyfuncitem.nodeid not in recorded:
        recorded.add(pyfuncitem.nodeid)
        _record(pyfuncitem, suite, {name: pyfuncitem.funcargs[name] for name in _parameters(pyfuncitem)})
        ahead = [] if hasattr(pyfuncitem.config, "workerinput") else pyfuncitem.session.items
        for item in ahead:
            if item.nodeid not in recorded and _recordable_ahead(item, suite):
                recorded.add(item.nodeid)
                fixtures = {"suite": suite, "tally": FeatureTally()}
                _record(item, suite, {name: fixtures[name] for name in _parameters(item)})
        suite.fetch()
    suite.real_batches = pyfuncitem.get_closest_marker(REAL_BATCHES) is not None
    try:
        with suite.answering_from_cache():
            return (yield)
    finally:
        suite.real_batches = False
        pyfuncitem.user_properties.append(("prefetch", suite.stats.as_dict()))



def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        for name, value in report.user_properties:
            if name == "prefetch":
                _prefetch_totals.update(value)


def pytest_terminal_summary(terminalreporter) -> None:
    if _prefetch_totals:
        t = _prefetch_totals
        terminalreporter.write_line(
            f"prefetch: {t['fetched']} cases fetched in {t['fetch_calls']} run calls; in the tests "
            f"{t['hits']} cases answered from the cache, {t['misses']} missed ({t['calls']} real calls)")

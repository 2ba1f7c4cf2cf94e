"""The property suite's fixtures: the suite (the implementation under test and the reference), the
tally of the features each test's cases exercise, the rules about positions that a position-free
implementation is not held to, and the tests that could not run once the implementation has broken
down. The suite's options are `conformance.pytest_plugin`'s."""

from __future__ import annotations

import pytest

from conformance.evidence import NOT_APPLICABLE, FeatureTally
from conformance.prefetch.plugin import POSITIONS, shared_join_drawing
from conformance.profiles import register_profiles, shrink_budget, shrinking_within
from conformance.properties.harness import Suite
from conformance.properties.joins import JoinSuite, session_join_suite
from conformance.pytest_plugin import DEFAULT_IMPLEMENTATION
from conformance.usage import guard_limits
from strategies.situations import read_situations_with
from window_contract.implementation import ImplementationFailure
from window_contract.registry import load_implementation

register_profiles()


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest) -> Suite:
    """The suite; the strategies read what a case exercises through it (`strategies.situations`)."""
    config = request.config
    timeout = config.getoption("window_request_timeout")
    limits = guard_limits(config.getoption("window_case_timeout"), config.getoption("window_memory_limit"))
    suite = Suite(load_implementation(config.getoption("window_impl") or DEFAULT_IMPLEMENTATION, timeout, limits),
                  load_implementation("reference"), timeout=timeout)
    read_situations_with(suite.situations)
    yield suite
    read_situations_with(None)


@pytest.fixture(scope="session")
def join_suite(request: pytest.FixtureRequest) -> JoinSuite:
    """The suite's joins (`joins.py`): the implementation's `run_joins` and the reference's."""
    return session_join_suite(request, shared_join_drawing(request.config))


@pytest.fixture(scope="session", autouse=True)
def shrinking_budget() -> None:
    """No property shrinks its failures past the profile's budget (`conformance.profiles.SHRINK_SECONDS`)."""
    with shrinking_within(shrink_budget()):
        yield


@pytest.fixture(autouse=True)
def positions_known(request: pytest.FixtureRequest) -> None:
    """A rule about positions is not applicable to a position-free implementation: the test ends as
    skipped with `NOT_APPLICABLE`, which the run's report shows as such (not as a test that could
    not run)."""
    if request.node.get_closest_marker(POSITIONS) and request.getfixturevalue("suite").position_free:
        pytest.skip(NOT_APPLICABLE)


@pytest.fixture(autouse=True)
def not_broken_down(request: pytest.FixtureRequest) -> None:
    """A test of an implementation that has broken down in this session (`harness.Breakdown`: it timed
    out, or its process died twice) could not run, and does not wait for it again."""
    if "suite" in request.fixturenames:
        suite = request.getfixturevalue("suite")
        suite.breakdown.check(suite.impl.name, ImplementationFailure)  # an Exception: pytest's own set-up goes on


@pytest.fixture
def tally(request: pytest.FixtureRequest):
    """The features of the cases a test sends; kept across its examples, stored even when it fails."""
    counts = FeatureTally()
    yield counts
    request.node.user_properties.append(("features", dict(counts)))

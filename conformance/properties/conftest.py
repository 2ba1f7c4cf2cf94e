"""The property suite's fixtures: the suite (the implementation under test and the reference), the
tally of the features each test's cases exercise, and the rules about positions that a position-free
implementation is not held to. The suite's options are `conformance.pytest_plugin`'s."""

from __future__ import annotations

import pytest

from conformance.evidence import NOT_APPLICABLE, FeatureTally
from conformance.prefetch.plugin import POSITIONS
from conformance.profiles import register_profiles
from conformance.properties.harness import Suite
from conformance.pytest_plugin import DEFAULT_IMPLEMENTATION
from strategies.situations import read_situations_with
from window_contract.registry import load_implementation

register_profiles()


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest) -> Suite:
    """The suite; the strategies read what a case exercises through it (`strategies.situations`)."""
    spec = request.config.getoption("window_impl") or DEFAULT_IMPLEMENTATION
    suite = Suite(load_implementation(spec), load_implementation("reference"),
                  timeout=request.config.getoption("window_request_timeout"))
    read_situations_with(suite.situations)
    yield suite
    read_situations_with(None)


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

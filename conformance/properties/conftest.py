"""The property suite's pytest set-up: `--impl NAME`, the Hypothesis profiles, and the fixtures."""

from __future__ import annotations

import pytest

from conformance.evidence import FeatureTally
from conformance.implementation import load_implementation
from conformance.profiles import register_profiles
from conformance.properties.harness import Suite

register_profiles()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--impl", default="reference",
                     help="the implementation under test: a registered name or package.module:factory "
                          "(default: reference)")


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest) -> Suite:
    return Suite(load_implementation(request.config.getoption("--impl")), load_implementation("reference"))


@pytest.fixture
def tally(request: pytest.FixtureRequest):
    """The features of the cases a test sends; kept across its examples, stored even when it fails."""
    counts = FeatureTally()
    yield counts
    request.node.user_properties.append(("features", dict(counts)))

"""A stand-in property suite with the real suite's interface, for testing `run` and the reports.

Like `conformance/properties/`: option `--window-impl NAME` (`conformance.pytest_plugin`), tests named
`test_<rule>`, failures raise `PropertyViolation`, each test leaves `("features", counts)` in its
`user_properties` and reports situations with `hypothesis.event()`. Its modules are named `props_*.py`
so that the project's own test run does not collect them; `run --suite FILE` names them explicitly.
"""

from __future__ import annotations

import pytest

from conformance.evidence import FeatureTally
from window_contract.registry import load_implementation


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest):
    return load_implementation(request.config.getoption("window_impl"))


@pytest.fixture(scope="session")
def reference():
    return load_implementation("reference")


@pytest.fixture
def tally(request: pytest.FixtureRequest):
    """The features of the cases a test sends; stored even when the test fails."""
    counts = FeatureTally()
    yield counts
    request.node.user_properties.append(("features", dict(counts)))

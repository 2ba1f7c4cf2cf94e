"""The pytest plug-in of the window-conformance suite (the entry point `pytest11`): the suite's options,
its markers, and the prefetch plug-in (`conformance.prefetch.plugin`).

    pytest conformance/properties --window-impl NAME [--window-prefetch auto|on|off]
"""

from __future__ import annotations

import pytest

from conformance.prefetch.plugin import POSITIONS, REAL_BATCHES
from conformance.usage import seconds
from window_contract.implementation import REQUEST_TIMEOUT

pytest_plugins = ["conformance.prefetch.plugin"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("window-conformance", "the window-conformance property suite")
    group.addoption("--window-impl", default="reference", metavar="NAME",
                    help="the implementation under test: a registered name, package.module:factory or "
                         "exec:COMMAND (a process: docs/protocol.md) (default: reference)")
    group.addoption("--window-prefetch", choices=("auto", "on", "off"), default="auto",
                    help="batch each property test's examples into a few run calls ahead of the test: "
                         "'auto' (default) when the implementation declares costly_calls = True")
    group.addoption("--window-request-timeout", type=seconds, default=REQUEST_TIMEOUT, metavar="SECONDS",
                    help="how long one run call may take before its cases count as not run "
                         f"(default: {REQUEST_TIMEOUT:g})")
    group.addoption("--window-recordings", default=None, metavar="DIR",
                    help="a folder where the runs of one `python -m conformance run` share the drawing "
                         "of each test (conformance/prefetch/recordings.py)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{REAL_BATCHES}: never answer this test's run calls from the "
                                       "prefetch cache")
    config.addinivalue_line("markers", f"{POSITIONS}: a rule about when outputs happen, not applicable to a "
                                       "position-free implementation")

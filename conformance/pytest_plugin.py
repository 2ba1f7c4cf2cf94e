"""The pytest plug-in of the window-conformance suite (the entry point `pytest11`): in any project where the
distribution is installed,

    pytest --window-impl NAME [--window-out DIR] [-n 2] [--hypothesis-profile ci] [--hypothesis-show-statistics]

runs the property suite against NAME (a registered name, `package.module:factory` found from the current
folder, or `exec:COMMAND`). Given no path, pytest collects the suite's own folder (`SUITE`), whatever the
project's own `testpaths`, `python_files` or conftest files say (a project whose `python_functions` leaves out
`test_*` adds `-o python_functions=test_*`); given paths, it collects those (this
repository runs `pytest conformance/properties --window-impl NAME`). A NAME that names no implementation (a
module that does not import, a missing factory, an object that is no implementation) is pytest's usage error,
in one line, before any test. It writes the report and the counterexamples as `python -m conformance run` does
(`conformance.runner.pytest_report`), into `--window-out DIR` or else pytest's cache, and ends the terminal
summary with the verdict, the properties that do not apply and the counterexamples' files; a property that sent
the implementation no case ends as skipped with the reason (`conformance.runner.collector`), never as passed.

It also declares the suite's markers and loads the prefetch plug-in (`conformance.prefetch.plugin`). Without
`--window-impl`, it changes nothing in a project's own test run.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

from conformance.installation import PackageClash, prepare
from conformance.prefetch import plugin as prefetch
from conformance.prefetch.plugin import POSITIONS, REAL_BATCHES
from conformance.usage import add_guard_options, seconds
from window_contract.implementation import REQUEST_TIMEOUT, ImplementationFailure, ImplementationNotFound
from window_contract.process import ProcessImplementation
from window_contract.registry import load_implementation

#: The property suite's folder.
SUITE = Path(__file__).resolve().parent / "properties"
#: The implementation the suite's conftest tests when `--window-impl` is not given.
DEFAULT_IMPLEMENTATION = "reference"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("window-conformance", "the window-conformance property suite")
    group.addoption("--window-impl", default=None, metavar="NAME",
                    help="run the window-conformance property suite against this implementation: a registered "
                         "name, package.module:factory (found from the current folder) or exec:COMMAND (a process: "
                         "docs/protocol.md); without paths, pytest collects the suite's own modules")
    group.addoption("--window-out", default=None, metavar="DIR",
                    help="write the report (report.json, index.html, report.md, junit.xml) and every "
                         "counterexample as a case file there, as `python -m conformance run --out DIR --force` "
                         "does: the folder must be empty or hold an earlier report")
    group.addoption("--window-prefetch", choices=("auto", "on", "off"), default="auto",
                    help="batch each property test's examples into a few run calls ahead of the test: "
                         "'auto' (default) when the implementation declares costly_calls = True")
    group.addoption("--window-request-timeout", type=seconds, default=REQUEST_TIMEOUT, metavar="SECONDS",
                    help="how long one run call may take before its cases count as not run "
                         f"(default: {REQUEST_TIMEOUT:g})")
    add_guard_options(group.addoption, prefix="window-")
    group.addoption("--window-recordings", default=None, metavar="DIR",
                    help="a folder where the runs of one `python -m conformance run` share the drawing "
                         "of each test (conformance/prefetch/recordings.py)")


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """`--window-impl` without paths: the suite's folder, and only the suite's conftest (a project's own conftest
    files are not the suite's)."""
    known = early_config.known_args_namespace
    if getattr(known, "window_impl", None) is None or known.file_or_dir:
        return
    args.append(str(SUITE))
    known.file_or_dir = [str(SUITE)]
    known.confcutdir = str(SUITE)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    """A module of the suite that a project's `python_files` leaves out is collected all the same."""
    config = parent.config
    if (config.getoption("window_impl") is None or file_path.parent != SUITE or not fnmatch(file_path.name, "test_*.py")
            or any(fnmatch(file_path.name, pattern) for pattern in config.getini("python_files"))):
        return None  # not the suite's, or pytest's own collection takes it
    return pytest.Module.from_parent(parent, path=file_path)


def pytest_configure(config: pytest.Config) -> None:
    # registered, not named in `pytest_plugins`: this module imported it already, and pytest would warn that it
    # cannot rewrite its asserts
    if not config.pluginmanager.is_registered(prefetch):
        config.pluginmanager.register(prefetch, "conformance.prefetch.plugin")
    config.addinivalue_line("markers", f"{REAL_BATCHES}: never answer this test's run calls from the "
                                       "prefetch cache")
    config.addinivalue_line("markers", f"{POSITIONS}: a rule about when outputs happen, not applicable to a "
                                       "position-free implementation")
    spec = config.getoption("window_impl")
    if spec is None or config.getoption("run_events_fd", None) is not None:
        return  # not asked for, or `run`'s own session: the run checked the name and makes the report
    try:
        prepare(config.invocation_params.dir)
        if not hasattr(config, "workerinput"):  # a pytest-xdist worker's controller checked it
            check_implementation(spec, config.getoption("window_request_timeout"))
    except (PackageClash, ImplementationNotFound) as e:
        raise pytest.UsageError(str(e)) from None
    if not config.option.collectonly:
        from conformance.runner.pytest_report import start_report  # the runner, only when the suite runs

        out = config.getoption("window_out")
        start_report(config, None if out is None else Path(out))


def check_implementation(spec: str, timeout: float) -> None:
    """`spec` names an implementation: a plug-in that does not import, has no such factory or is not an
    implementation is a usage error here, in one line, as under `run`, not an error of every test. An engine that
    could not start is left to the tests, which report it as could not run."""
    try:
        impl = load_implementation(spec, timeout)
    except ImplementationFailure:
        return
    if isinstance(impl, ProcessImplementation):  # it said hello; each test session starts its own
        impl.close()

"""The pytest plug-in of `python -m conformance run`: what happened in one run of the property suite.

`run` starts pytest on the suite once per implementation (`session.py`) with `-p
conformance.runner.collector --run-events-fd N`. This plug-in writes the run's events (`events.py`),
one JSON object a line, to that file descriptor.

Examples and statistics come from Hypothesis's observability callbacks (one observation per test
case; Hypothesis documents `add_observability_callback` and its relatives in
`hypothesis.internal.observability` as public API): the `hypothesis.event()`s of the generated
examples are the situations the suite covered, and the `shrink` phase's test cases say that
Hypothesis is shrinking a failure.

A test that raised is told apart here: a `PropertyViolation` (or any other exception of the test or
the implementation) is a difference (`failed`); a failure to run (`window_contract.implementation.
failure_to_run`: a timeout, a dead or missing engine) is an `error` with its one-line reason.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import IO, Any

import pytest
from hypothesis.internal import observability

from conformance.evidence import NOT_APPLICABLE, PropertyViolation
from conformance.exits import interrupt_on_signals, stop_when_orphaned
from conformance.profiles import register_profiles
from conformance.runner.events import (
    CollectError,
    Examples,
    Finished,
    RunEvent,
    SessionFinished,
    Started,
    dumps_event,
)
from conformance.runner.results import MESSAGE_LIMIT, Failure, PropertyResult, Statistics
from window_contract.implementation import failure_to_run

#: Phases whose test cases count as examples (Hypothesis gives an explicit example's no phase, `None`:
#: a replayed test's, `properties/replay.py`); `shrink` attempts are counted apart.
EXAMPLE_PHASES = ("explicit", "reuse", "generate", "target", None)
PROGRESS_INTERVAL = 0.1

# The suite's own conftest may register the profiles too; registering is idempotent, and doing it
# here lets `HYPOTHESIS_PROFILE` name one before Hypothesis's plug-in loads it.
register_profiles()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-events-fd",
        type=int,
        default=None,
        help="write the run's events, one JSON object a line, to this file descriptor",
    )


def pytest_configure(config: pytest.Config) -> None:
    fd = config.getoption("--run-events-fd")
    if fd is not None:
        # A run that is stopped stops this process with SIGTERM, and one that dies leaves it behind: either
        # way it stops as on Ctrl-C, and ends the processes it started (conformance.exits).
        interrupt_on_signals()
        stop_when_orphaned()
        # Observability would otherwise trace line coverage of every example (sys.settrace before
        # Python 3.12), which slows the suite several times; Hypothesis documents this switch.
        observability.OBSERVABILITY_COLLECT_COVERAGE = False
        config.pluginmanager.register(RunCollector(os.fdopen(fd, "w", encoding="utf-8")), "conformance-run")


def violations_in(error: BaseException) -> list[PropertyViolation]:
    """The `PropertyViolation`s raised by a test; Hypothesis groups distinct failures together."""
    if isinstance(error, PropertyViolation):
        return [error]
    if isinstance(error, BaseExceptionGroup):
        return [v for inner in error.exceptions for v in violations_in(inner)]
    return []


def property_name(test_name: str) -> str:
    """`test_<rule>` is the property `<rule>`."""
    return test_name.removeprefix("test_")


class ExampleCounter:
    """Counts one test's Hypothesis test cases and the events (`hypothesis.event`) they raised."""

    def __init__(self) -> None:
        self.examples = self.invalid = self.shrinks = 0
        self.events: Counter[str] = Counter()
        self.statistics_text = ""

    def observe(self, observation: Any) -> None:
        if observation.type == "info" and observation.title == "Hypothesis Statistics":
            self.statistics_text = str(observation.content)
            return
        if observation.type != "test_case":
            return
        phase = observation.metadata.phase
        if phase == "shrink":
            self.shrinks += 1
        elif observation.status == "gave_up":
            self.invalid += 1
        else:
            self.examples += 1
            # Like Hypothesis's own statistics: what share of the generated examples met each event.
            self.events.update(
                _event_label(k, v)
                for k, v in observation.features.items()
                if not k.startswith("target:") and phase in EXAMPLE_PHASES
            )


def _event_label(name: str, payload: Any) -> str:
    return name if payload in ("", None) else f"{name}: {payload}"


class RunCollector:
    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.counter = ExampleCounter()
        self.run_start: float | None = None
        self.current: str | None = None
        self.last_progress = 0.0
        self.outcome: dict[str, Any] = {}

    def emit(self, event: RunEvent) -> None:
        self.stream.write(dumps_event(event) + "\n")
        self.stream.flush()

    # --- Hypothesis ---------------------------------------------------------------------------

    def observe(self, observation: Any) -> None:
        if observation.run_start != self.run_start:
            # A test that runs Hypothesis again (a replay handed back, `properties/replay.py`) is
            # counted as its last run: the one that drew, found and shrank.
            self.counter, self.run_start = ExampleCounter(), observation.run_start
        self.counter.observe(observation)
        now = time.monotonic()
        if self.current is not None and now - self.last_progress >= PROGRESS_INTERVAL:
            self.last_progress = now
            self.emit(Examples(self.current, self.counter.examples, self.counter.shrinks))

    # --- pytest -------------------------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid: str, location: tuple) -> None:
        self.current, self.counter, self.run_start = nodeid, ExampleCounter(), None
        self.outcome = {"outcome": "passed", "duration": 0.0, "message": "", "not_run": None}
        self.emit(Started(nodeid, property_name(location[2].split(".")[-1])))

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function):
        # The innermost wrapper: a prefetched test's recording pass (conftest.py) runs outside it,
        # so only the real pass's examples are counted.
        with observability.with_observability_callback(self.observe):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        report = yield
        if call.excinfo is not None:
            reason = failure_to_run(call.excinfo.value)
            if reason is not None:
                self.outcome["not_run"] = reason
                return report
            # Stored in user_properties (not only here) so the evidence also crosses pytest-xdist.
            for violation in violations_in(call.excinfo.value):
                entry = ("violation", violation.to_json())
                item.user_properties.append(entry)
                report.user_properties.append(entry)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.outcome["duration"] += report.duration
        self.outcome["user_properties"] = report.user_properties
        if report.failed:
            not_run = self.outcome["not_run"]
            if not_run is not None:
                self.outcome["outcome"], self.outcome["message"] = "error", not_run
            else:
                # A failing setup or teardown is an error of the test, not a violation of the property.
                self.outcome["outcome"] = "failed" if report.when == "call" else "error"
                self.outcome["message"] = report.longreprtext[-MESSAGE_LIMIT:]
        elif report.skipped and self.outcome["outcome"] == "passed":
            message = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
            self.outcome["outcome"] = "not_applicable" if message.endswith(NOT_APPLICABLE) else "skipped"
            self.outcome["message"] = message
        if report.when == "teardown":
            self.emit_result(report)

    def emit_result(self, report: pytest.TestReport) -> None:
        properties = self.outcome.pop("user_properties", [])
        features: Counter[str] = Counter()
        for key, value in properties:
            if key == "features":
                features.update(value)
        failures = tuple(Failure.from_json(value) for key, value in properties if key == "violation")
        counter = self.counter
        self.emit(Finished(PropertyResult(
            property=property_name(report.location[2].split(".")[-1]),
            nodeid=report.nodeid,
            outcome=self.outcome["outcome"],
            duration=round(self.outcome["duration"], 3),
            examples=counter.examples,
            invalid_examples=counter.invalid,
            shrinks=counter.shrinks,
            statistics=Statistics(dict(counter.events.most_common()), counter.statistics_text),
            features=dict(sorted(features.items())),
            failures=failures,
            # A violation explains itself; anything else needs its message.
            message="" if failures else self.outcome["message"],
        )))
        self.current = None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.emit(CollectError(report.nodeid, report.longreprtext[-MESSAGE_LIMIT:]))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.emit(SessionFinished(int(exitstatus)))
        self.stream.close()

"""The pytest plug-in of `python -m conformance run` (and of `pytest --window-out`): what happened in one
run of the property suite.

`run` starts pytest on the suite once per implementation (`session.py`) with `-p
conformance.runner.collector --run-events-fd N`. This plug-in writes the run's events (`events.py`),
one JSON object a line, to that file descriptor. Under `pytest --window-impl NAME --window-out DIR`
(`conformance.pytest_plugin`) the same two halves gather the results in the user's own pytest session,
pytest-xdist's workers included, and `conformance.runner.pytest_report` writes the report.

It has two halves, because under pytest-xdist a test runs in a worker and its reports reach the
controller:

- `ExampleCounting`, where the test runs: examples and statistics come from Hypothesis's observability
  callbacks (one observation per test case; Hypothesis documents `add_observability_callback` and its
  relatives in `hypothesis.internal.observability` as public API): the `hypothesis.event()`s of the
  generated examples are the situations the suite covered, and the `shrink` phase's test cases say that
  Hypothesis is shrinking a failure. A test that raised is told apart here: a `PropertyViolation` (or any
  other exception of the test or the implementation) is a difference; a failure to run
  (`window_contract.implementation.failure_to_run`: a timeout, a dead or missing engine) is an error with
  its one-line reason. All of it goes into the test's `user_properties`, which cross pytest-xdist. A test
  that passed without sending a single case to the implementation (its `tally` fixture counts no `cases`:
  every example fell outside the implementation's features) ends as skipped, with the reason: pytest shows
  `s`, never a pass.
- `ResultAssembly`, where the reports arrive: each test's `PropertyResult`. A test skipped for one of the
  reasons of `NOT_APPLICABLE_REASONS` (it sent no case, or it is a rule about positions that a position-free
  implementation skips) is `not_applicable`; neither is a pass.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis.internal import observability

from conformance.evidence import NO_CASE_SENT, NOT_APPLICABLE, PropertyViolation
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
from window_contract.case import Case, case_to_json, violates_to_json
from window_contract.implementation import CouldNotRun, failure_to_run

#: Phases whose test cases count as examples (Hypothesis gives an explicit example's no phase, `None`:
#: a replayed test's, `properties/replay.py`); `shrink` attempts are counted apart.
EXAMPLE_PHASES = ("explicit", "reuse", "generate", "target", None)
PROGRESS_INTERVAL = 0.1
#: The `user_properties` a test's run leaves for its result: its examples, why it could not run, and the case a
#: guard stopped.
EXAMPLES, NOT_RUN, CASE_NOT_RUN = "examples", "not_run", "case_not_run"
#: Why a skipped test is not applicable rather than skipped.
NOT_APPLICABLE_REASONS = (NOT_APPLICABLE, NO_CASE_SENT)

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
        stream = os.fdopen(fd, "w", encoding="utf-8")

        def emit(event: RunEvent) -> None:
            stream.write(dumps_event(event) + "\n")
            stream.flush()

        register(config, emit, closing=stream.close)


def register(config: pytest.Config, emit: Callable[[RunEvent], None], closing: Callable[[], None] = lambda: None,
             progress: bool = True) -> None:
    """Both halves in this process (a pytest-xdist worker takes only `ExampleCounting`, the controller
    only `ResultAssembly`); `emit` gets the run's events, with the examples so far when `progress`."""
    # Observability would otherwise trace line coverage of every example (sys.settrace before
    # Python 3.12), which slows the suite several times; Hypothesis documents this switch.
    observability.OBSERVABILITY_COLLECT_COVERAGE = False
    worker = hasattr(config, "workerinput")
    distributed = not worker and getattr(config.option, "dist", "no") != "no"
    if not distributed:
        config.pluginmanager.register(ExampleCounting(emit if progress and not worker else None),
                                      "conformance-examples")
    if not worker:
        config.pluginmanager.register(ResultAssembly(emit, closing), "conformance-run")


def violations_in(error: BaseException) -> list[PropertyViolation]:
    """The `PropertyViolation`s raised by a test; Hypothesis groups distinct failures together."""
    if isinstance(error, PropertyViolation):
        return [error]
    if isinstance(error, BaseExceptionGroup):
        return [v for inner in error.exceptions for v in violations_in(inner)]
    return []


def case_not_run(error: BaseException) -> Case | None:
    """The case a guard stopped (`CouldNotRun.case`, `window_contract.guards`), in what a test raised."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, CouldNotRun) and cause.case is not None:
            return cause.case
        cause = cause.__cause__ or cause.__context__
    return None


def violation_json(violation: PropertyViolation, name: str) -> dict[str, Any]:
    """A violation of property `name` as the report holds it, with what `replay --check` needs to check the
    property again: the batch or the original case its rule compared the case with (`violates`)."""
    from conformance.properties.recheck import violates  # the suite's rules, loaded once one is broken

    return violation.to_json() | {"violates": violates_to_json(violates(name, violation.case, violation.calls))}


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

    def to_json(self) -> dict[str, Any]:
        return {"examples": self.examples, "invalid": self.invalid, "shrinks": self.shrinks,
                "events": dict(self.events.most_common()), "text": self.statistics_text}


def _event_label(name: str, payload: Any) -> str:
    return name if payload in ("", None) else f"{name}: {payload}"


class ExampleCounting:
    """Where a test runs: its examples, and what it raised, into its `user_properties`."""

    def __init__(self, progress: Callable[[RunEvent], None] | None) -> None:
        self.progress = progress
        self.counter = ExampleCounter()
        self.run_start: float | None = None
        self.current: str | None = None
        self.last_progress = 0.0

    def observe(self, observation: Any) -> None:
        if observation.run_start != self.run_start:
            # A test that runs Hypothesis again (a replay handed back, `properties/replay.py`) is
            # counted as its last run: the one that drew, found and shrank.
            self.counter, self.run_start = ExampleCounter(), observation.run_start
        self.counter.observe(observation)
        now = time.monotonic()
        if self.progress and self.current is not None and now - self.last_progress >= PROGRESS_INTERVAL:
            self.last_progress = now
            self.progress(Examples(self.current, self.counter.examples, self.counter.shrinks))

    def pytest_runtest_logstart(self, nodeid: str, location: tuple) -> None:
        self.current, self.counter, self.run_start = nodeid, ExampleCounter(), None

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function):
        # The innermost wrapper: a prefetched test's recording pass (conformance/prefetch) runs outside it,
        # so only the real pass's examples are counted.
        with observability.with_observability_callback(self.observe):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        if call.when == "call":
            item.user_properties.append((EXAMPLES, self.counter.to_json()))
        report = yield
        if call.when == "call" and report.passed and not sent_a_case(item):
            path, line = item.reportinfo()[:2]
            report.outcome, report.longrepr = "skipped", (os.fspath(path), (line or 0) + 1, f"Skipped: {NO_CASE_SENT}")
        if call.excinfo is not None:
            reason = failure_to_run(call.excinfo.value)
            if reason is not None:
                case = case_not_run(call.excinfo.value)
                found = [(NOT_RUN, reason)] + ([(CASE_NOT_RUN, case_to_json(case))] if case is not None else [])
            else:
                found = [("violation", violation_json(v, property_name(item.name)))
                         for v in violations_in(call.excinfo.value)]
            item.user_properties.extend(found)
            report.user_properties.extend(found)
        if call.when == "teardown":
            self.current = None
        return report


def sent_a_case(item: pytest.Item) -> bool:
    """Whether the test sent the implementation a case, as its `tally` fixture counts (a test without one: yes)."""
    tally = getattr(item, "funcargs", {}).get("tally")
    return tally is None or tally["cases"] > 0


def fresh_outcome() -> dict[str, Any]:
    return {"outcome": "passed", "duration": 0.0, "message": ""}


class ResultAssembly:
    """Where a test's reports arrive: its `PropertyResult`, and the run's events, to `emit`."""

    def __init__(self, emit: Callable[[RunEvent], None], closing: Callable[[], None]) -> None:
        self.emit, self.closing = emit, closing
        #: Each running test's outcome so far, by node id: under pytest-xdist the reports of tests that run at
        #: once in different workers arrive interleaved.
        self.outcomes: dict[str, dict[str, Any]] = {}

    def pytest_runtest_logstart(self, nodeid: str, location: tuple) -> None:
        self.outcomes[nodeid] = fresh_outcome()
        self.emit(Started(nodeid, property_name(location[2].split(".")[-1])))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = self.outcomes.setdefault(report.nodeid, fresh_outcome())  # a crashed worker's test may not have begun
        outcome["duration"] += report.duration
        if report.failed:
            not_run = [value for key, value in report.user_properties if key == NOT_RUN]
            if not_run:
                outcome["outcome"], outcome["message"] = "error", not_run[0]
            else:
                # A failing setup or teardown is an error of the test, not a violation of the property.
                outcome["outcome"] = "failed" if report.when == "call" else "error"
                outcome["message"] = report.longreprtext[-MESSAGE_LIMIT:]
        elif report.skipped and outcome["outcome"] == "passed":
            message = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
            message = message.removeprefix("Skipped: ")
            outcome["outcome"] = "not_applicable" if message in NOT_APPLICABLE_REASONS else "skipped"
            outcome["message"] = message
        if report.when == "teardown":
            self.emit_result(report)

    def emit_result(self, report: pytest.TestReport) -> None:
        properties = report.user_properties
        features: Counter[str] = Counter()
        examples = {"examples": 0, "invalid": 0, "shrinks": 0, "events": {}, "text": ""}
        for key, value in properties:
            if key == "features":
                features.update(value)
            elif key == EXAMPLES:
                examples = value
        failures = tuple(Failure.from_json(value) for key, value in properties if key == "violation")
        not_run = [value for key, value in properties if key == CASE_NOT_RUN]
        ended = self.outcomes.pop(report.nodeid)
        outcome, message = ended["outcome"], ended["message"]
        self.emit(Finished(PropertyResult(
            property=property_name(report.location[2].split(".")[-1]),
            nodeid=report.nodeid,
            outcome=outcome,
            duration=round(ended["duration"], 3),
            examples=examples["examples"],
            invalid_examples=examples["invalid"],
            shrinks=examples["shrinks"],
            statistics=Statistics(examples["events"], examples["text"]),
            features=dict(sorted(features.items())),
            failures=failures,
            # A violation explains itself; anything else needs its message.
            message="" if failures else message,
            case_not_run=not_run[0] if not_run else None,
        )))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.emit(CollectError(report.nodeid, report.longreprtext[-MESSAGE_LIMIT:]))

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.emit(SessionFinished(int(exitstatus)))
        self.closing()

"""The pytest plug-in of `python -m conformance run`: what happened in one run of the property suite.

`run` starts pytest on the suite once per implementation (`session.py`) with `-p
conformance.runner.collector --run-events-fd N`. This plug-in writes one JSON object per line to that
file descriptor:

- `{"event": "start", "nodeid", "property"}` when a property test begins;
- `{"event": "examples", "nodeid", "examples"}` as Hypothesis runs examples (at most ten a second);
- `{"event": "result", ...}` when a test is over: outcome, duration, examples, Hypothesis statistics,
  the feature tally the test left in `user_properties` and its violations (`PropertyViolation.to_json()`);
- `{"event": "collect_error", "nodeid", "message"}` for a module that does not import;
- `{"event": "finish", "exitstatus"}` at the end.

Examples and statistics come from Hypothesis's observability callbacks (one observation per test
case): the `hypothesis.event()`s of the generated examples are the situations the suite covered.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from typing import IO, Any

import pytest

from conformance.evidence import PropertyViolation
from conformance.profiles import register_profiles

#: Phases whose test cases count as examples; `shrink` attempts are counted apart.
EXAMPLE_PHASES = ("explicit", "reuse", "generate", "target")
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
        from hypothesis.internal import observability

        # Observability would otherwise trace line coverage of every example (sys.settrace before
        # Python 3.12), which slows the suite several times; the environment variable that turns this
        # off also writes every observation to .hypothesis/observed/, so set the switch itself.
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
        self.current: str | None = None
        self.last_progress = 0.0
        self.outcome: dict[str, Any] = {}

    def emit(self, event: str, **fields: Any) -> None:
        self.stream.write(json.dumps({"event": event} | fields) + "\n")
        self.stream.flush()

    # --- Hypothesis ---------------------------------------------------------------------------

    def observe(self, observation: Any) -> None:
        self.counter.observe(observation)
        now = time.monotonic()
        if self.current is not None and now - self.last_progress >= PROGRESS_INTERVAL:
            self.last_progress = now
            self.emit("examples", nodeid=self.current, examples=self.counter.examples)

    # --- pytest -------------------------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid: str, location: tuple) -> None:
        self.current, self.counter = nodeid, ExampleCounter()
        self.outcome = {"outcome": "passed", "duration": 0.0, "message": ""}
        self.emit("start", nodeid=nodeid, property=property_name(location[2].split(".")[-1]))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        from hypothesis.internal.observability import with_observability_callback

        with with_observability_callback(self.observe):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        report = yield
        if call.excinfo is not None:
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
            # A failing setup or teardown is an error of the test, not a violation of the property.
            self.outcome["outcome"] = "failed" if report.when == "call" else "error"
            self.outcome["message"] = report.longreprtext
        elif report.skipped and self.outcome["outcome"] == "passed":
            self.outcome["outcome"] = "skipped"
            self.outcome["message"] = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
        if report.when == "teardown":
            self.emit_result(report)

    def emit_result(self, report: pytest.TestReport) -> None:
        properties = self.outcome.pop("user_properties", [])
        features: Counter[str] = Counter()
        for key, value in properties:
            if key == "features":
                features.update(value)
        counter = self.counter
        self.emit(
            "result",
            nodeid=report.nodeid,
            property=property_name(report.location[2].split(".")[-1]),
            **self.outcome,
            examples=counter.examples,
            invalid_examples=counter.invalid,
            shrinks=counter.shrinks,
            statistics={"events": dict(counter.events.most_common()), "text": counter.statistics_text},
            features=dict(sorted(features.items())),
            violations=[value for key, value in properties if key == "violation"],
        )
        self.current = None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.emit("collect_error", nodeid=report.nodeid, message=report.longreprtext)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.emit("finish", exitstatus=int(exitstatus))
        self.stream.close()

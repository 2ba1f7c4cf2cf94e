"""What `run` shows meanwhile: examples counted in words, shrinking said, and the verdict decided
by the runner (conforms, differs, could not run) with its matrix and exit status."""

from __future__ import annotations

import io

import pytest

from conformance.runner import progress as progress_module
from conformance.runner.events import Examples, Finished, Started, dumps_event, loads_event
from conformance.runner.matrix import conformance_matrix
from conformance.runner.progress import Progress
from conformance.runner.results import ImplementationResult, PropertyResult, Statistics, SuiteError
from conformance.runner.verdict import implementation_outcome, verdict


def prop(name, outcome="passed", examples=100, message=""):
    return PropertyResult(name, f"suite.py::test_{name}", outcome, 0.5, examples, 0, 0,
                          Statistics({"late record": 25}), {"cases": examples, "assigner.tumbling": examples},
                          (), message)


def impl(name, properties, errors=(), exit_status=0):
    outcome, problems = implementation_outcome(properties, errors, exit_status)
    return ImplementationResult(name, name, ("assigner.tumbling", "offset"), tuple(properties), tuple(errors),
                                exit_status, "", 1.0, outcome, problems)


@pytest.fixture
def log(monkeypatch):
    monkeypatch.setattr(progress_module, "LOG_INTERVAL", 0.0)
    return io.StringIO()


def test_progress_says_when_hypothesis_is_shrinking(log):
    progress = Progress(log)
    for event in (Started("s::test_p", "p"), Examples("s::test_p", 40, 0), Examples("s::test_p", 41, 7)):
        progress.event(event)
    lines = log.getvalue().splitlines()
    assert "p  40 examples so far" in lines[-2]
    assert "p  shrinking a failure: 7 attempts" in lines[-1]


def test_progress_counts_one_example_in_the_singular(log):
    progress = Progress(log)
    progress.event(Finished(prop("p", examples=1)))
    progress.event(Finished(prop("q", outcome="error", examples=0, message="spark could not run: its JVM died")))
    first, second = log.getvalue().splitlines()
    assert first.startswith("  ok    p  1 example  0.5s")
    assert second.startswith("  ERROR q  0 examples  0.5s  spark could not run: its JVM died")


def test_progress_says_an_engine_is_starting(log):
    Progress(log).implementation("spark", "spark", costly=True)
    assert log.getvalue() == ("spark\n  starting spark's engine; the first property also records the run's tests "
                              "and fetches their cases\n")


def test_events_cross_the_pipe_typed():
    event = Finished(prop("p"))
    assert loads_event(dumps_event(event)) == event
    assert loads_event(dumps_event(Examples("n", 3, 1))) == Examples("n", 3, 1)


GOOD = impl("good", [prop("agrees")])
DIFFERS = impl("bad", [prop("agrees", "failed"), prop("crash", "error", message="JVM died")], exit_status=1)
NOT_RUN = impl("erred", [prop("agrees", "error", message="JVM died")], exit_status=1)


def test_three_outcomes_and_their_exit_statuses():
    assert (verdict([GOOD]).outcome, verdict([GOOD]).exit_status) == ("conforms", 0)
    assert (verdict([GOOD, NOT_RUN]).outcome, verdict([GOOD, NOT_RUN]).exit_status) == ("could_not_run", 3)
    both = verdict([GOOD, NOT_RUN, DIFFERS])
    assert (both.outcome, both.exit_status) == ("differs", 1)  # a difference found is true regardless
    assert both.failing == ("bad",) and both.could_not_run == ("erred", "bad")
    assert both.text == ("Does not conform: erred (agrees could not run); "
                         "bad (agrees fails, crash could not run).")


def test_what_could_not_run_is_never_a_conformance():
    assert impl("empty", []).problems == ("no property ran",)
    died = impl("died", [prop("agrees")], exit_status=-9)
    assert died.outcome == "could_not_run"
    assert died.problems == ("the suite ended abnormally (pytest exit status -9)",)
    unloaded = impl("unloaded", [prop("agrees")], errors=[SuiteError("props.py", "ImportError while importing")])
    assert unloaded.problems == ("props.py could not run: ImportError while importing",)
    skipped = impl("skipped", [prop("agrees", "skipped")])
    assert skipped.outcome == "could_not_run" and skipped.problems == ("agrees was skipped",)


def test_the_matrix_shows_error_where_something_could_not_run():
    features = {"assigner.tumbling": "tumbling windows", "offset": "an offset", "assigner.session": "sessions"}
    rows = {row.feature: row.cells for row in conformance_matrix(features, [GOOD, NOT_RUN])}
    assert rows["assigner.tumbling"]["good"].status == "pass"
    assert rows["assigner.tumbling"]["erred"].status == "error"
    assert rows["offset"]["good"].status == "untested"
    assert rows["assigner.session"]["erred"].status == "unsupported"

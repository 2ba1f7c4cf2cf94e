"""Guards that name the case (issue 45): a plug-in's `run` call has a time a case and a memory limit; one that
runs past either could not run, the suite names the case to blame and the run saves it, in seconds instead of
the ten minutes of a call that never ends (`window_contract.guards`)."""

from __future__ import annotations

import json
import shlex
import sys
import time

import pytest
from processes import PEER
from report_fixture_suite.running import HERE, conformance, run_once

from conformance.properties.harness import Suite
from window_contract import Case, record, session, sliding, tumbling
from window_contract.case_json import load_cases
from window_contract.guards import Guarded, Limits
from window_contract.implementation import CouldNotRun, ImplementationFailure, OverLimit, ProcessDied, run_within
from window_contract.registry import load_implementation

TUMBLING = Case(window=tumbling(10), events=(record("a", 1, 5),))
SLIDING = Case(window=sliding(10, 5), events=(record("a", 1, 5),))
SESSION = Case(window=session(10), events=(record("a", 1, 5),))
LIMITS = Limits(case_seconds=1.0, memory_bytes=300 * 2**20)


def plugin(name: str, limits: Limits = LIMITS):
    sys.path.insert(0, str(HERE))
    try:
        return load_implementation(f"fixture_impls:{name}", limits=limits)
    finally:
        sys.path.remove(str(HERE))


def timed(call):
    begun = time.monotonic()
    try:
        return call(), time.monotonic() - begun
    except BaseException as e:
        return e, time.monotonic() - begun


def test_a_call_past_its_time_a_case_is_stopped_and_the_next_call_is_answered():
    impl = plugin("SlowOnSliding")
    assert isinstance(impl, Guarded)
    stopped, took = timed(lambda: run_within(impl, [TUMBLING, SLIDING, TUMBLING], 600))
    assert isinstance(stopped, OverLimit) and 3 <= took < 6  # three cases, a second each
    assert str(stopped) == "a run call of 3 case(s) did not return within 3 s (1 s a case, --case-timeout)"
    answered, took = timed(lambda: run_within(impl, [TUMBLING], 600))
    assert len(answered) == 1 and took < 5
    # The request timeout, when it is the shorter, is what stops the call: the implementation timed out.
    timed_out, _ = timed(lambda: run_within(impl, [SLIDING, SLIDING], 1.5))
    assert type(timed_out).__name__ == "TimedOut" and "did not return within 1.5 s" in str(timed_out)


def test_a_call_past_its_memory_is_stopped_with_a_memory_error_of_the_plugin():
    # a time a case that the hoarding never reaches first, even on a loaded machine (it zeroes 300 MiB)
    impl = plugin("HungryOnSessions", Limits(case_seconds=30.0, memory_bytes=300 * 2**20))
    stopped, took = timed(lambda: run_within(impl, [SESSION], 600))
    assert isinstance(stopped, OverLimit) and took < 30
    assert str(stopped) == "a run call of 1 case(s) needed more than 300 MiB of memory (--memory-limit)"
    assert len(run_within(impl, [TUMBLING], 600)) == 1


def test_a_plugin_keeps_its_state_across_calls_and_its_own_errors_are_its_own():
    counting = plugin("FailsOnItsSecondCall")
    assert len(run_within(counting, [TUMBLING], 600)) == 1
    second, _ = timed(lambda: run_within(counting, [TUMBLING], 600))
    assert str(second) == "the second call"  # its worker kept the count of the first
    raising = plugin("Raising")
    error, _ = timed(lambda: run_within(raising, [TUMBLING], 600))
    assert type(error) is RuntimeError and str(error) == "the engine is not started"  # a bug: it differs
    no_java, _ = timed(lambda: run_within(plugin("NoJava"), [TUMBLING], 600))
    assert isinstance(no_java, ImplementationFailure) and "FileNotFoundError" in str(no_java)  # could not run


def test_a_plugin_that_ends_its_worker_could_not_run_and_the_next_call_starts_another():
    impl = plugin("ExitsAtOnce")
    ended, _ = timed(lambda: run_within(impl, [TUMBLING], 600))
    assert isinstance(ended, ProcessDied) and "ended its process (exit status 0) before it finished" in str(ended)
    again, _ = timed(lambda: run_within(impl, [TUMBLING], 600))
    assert isinstance(again, ProcessDied)


def test_the_projects_own_implementations_and_costly_plugins_are_not_guarded():
    assert not isinstance(load_implementation("reference"), Guarded)
    assert not isinstance(plugin("Costly"), Guarded)
    assert not isinstance(plugin("SlowOnSliding", limits=None), Guarded)


def test_the_suite_names_the_case_of_a_batch_a_guard_stopped():
    suite = Suite(plugin("SlowOnSliding"), load_implementation("reference"))
    with pytest.raises(CouldNotRun) as stopped:
        suite.call([TUMBLING, SLIDING, TUMBLING])
    assert stopped.value.case == SLIDING
    assert "did not return within 1 s (1 s a case, --case-timeout), in a batch of 3 run again case by case" in str(
        stopped.value)


def peer(fault: str, tmp_path) -> str:
    return "exec:" + shlex.join([sys.executable, str(PEER), fault, str(tmp_path / "once")])


@pytest.mark.parametrize("fault, said", [
    ("hang", "a run call of 2 case(s) did not return within 2 s (1 s a case, --case-timeout)"),
    ("hungry", "a run call of 2 case(s) used more than 300 MiB of memory (--memory-limit)"),
])
def test_a_process_past_its_limits_is_killed_and_started_again(fault, said, tmp_path):
    impl = load_implementation(peer(fault, tmp_path), limits=LIMITS)
    stopped, took = timed(lambda: run_within(impl, [TUMBLING, TUMBLING], 600))
    assert isinstance(stopped, OverLimit) and said in str(stopped) and took < 30
    assert len(run_within(impl, [TUMBLING], 600)) == 1  # the fault was once: the process started again behaves
    impl.close()


GUARDED_RUNS = {
    "slow": ("SlowOnSliding", ("--case-timeout", "2"), "did not return within", "sliding"),
    "hungry": ("HungryOnSessions", ("--memory-limit", "300"), "needed more than 300 MiB of memory", "session"),
}


@pytest.mark.parametrize("kind", GUARDED_RUNS)
def test_run_saves_the_case_a_guard_stopped_and_replay_checks_it_again(kind):
    name, options, said, assigner = GUARDED_RUNS[kind]
    begun = time.monotonic()
    run = run_once("--impl", f"fixture_impls:{name}", "--profile", "ci", "--property", "matches_reference",
                   *options, pythonpath=(str(HERE),))
    assert time.monotonic() - begun < 120
    assert run.status == 3, run.stderr
    [prop] = [p for p in run.report["implementations"][0]["properties"] if p["property"] == "matches_reference"]
    assert prop["outcome"] == "error" and said in prop["message"] and not prop["failures"]
    saved = run.out / prop["case_not_run_file"]
    assert f"(the case: {prop['case_not_run_file']})" in prop["message"]
    [case] = load_cases(saved)
    assert case.window.__class__.__name__.lower() == assigner and case.expected is not None
    assert json.loads(saved.read_text())["window"] == prop["case_not_run"]["window"]
    again = conformance("replay", str(saved), "--impl", f"fixture_impls:{name}", "--check", *options,
                        pythonpath=(str(HERE),), timeout=120)
    assert again.returncode == 3 and said in again.stderr, again.stderr

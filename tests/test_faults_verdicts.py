"""A plug-in's fault is never a pass, nor a difference with nothing to show (issue 32, "A verdict that is
wrong"): a plug-in that ends the process, answers with the wrong types or raises `KeyboardInterrupt` could
not run (exit 3, one line, no traceback) under `replay` and `run`; too few observations differ, in words."""

from __future__ import annotations

import dataclasses
import json

import pytest
from report_fixture_suite.running import HERE, conformance, run_once

from window_contract import Case, record, tumbling, watermark
from window_contract.case import case_to_json
from window_contract.registry import load_implementation

CASE = Case(window=tumbling(10), events=[record("a", 1, ts=3), watermark(9)])


@pytest.fixture(scope="module")
def case_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("cases") / "case.json"
    checked = dataclasses.replace(CASE, expected=load_implementation("reference").run([CASE])[0])
    path.write_text(json.dumps(case_to_json(checked)))
    return path


def replay(case_file, plugin, *env):
    return conformance("replay", str(case_file), "--impl", f"fixture_impls:{plugin}", "--check",
                       pythonpath=(str(HERE),), env=env, timeout=120)


@pytest.mark.parametrize("plugin, env, said", [
    ("ExitsCleanly", (), "run raised SystemExit(0) instead of answering"),
    ("ExitsCleanly", (("EXIT_STATUS", "5"),), "run raised SystemExit(5) instead of answering"),
    ("ExitsAtOnce", (), "ended its process (exit status 0) before it finished"),
    ("Interrupts", (), "run raised KeyboardInterrupt instead of answering"),
    ("ReturnsNone", (), "run returned NoneType None, not a list of observations"),
    ("ReturnsStrings", (), "run(cases)[0]: must be an Observation, not str 'no firings'"),
    ("StringPositions", (), "run(cases)[0].firings[0].at: must be an int, not str '1'"),
])
def test_replay_of_a_plugin_that_does_not_answer_could_not_run_in_one_line(case_file, plugin, env, said):
    done = replay(case_file, plugin, *env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "agree" not in done.stdout


def test_replay_of_too_few_observations_differs_saying_how_many(case_file):
    done = replay(case_file, "AnswersNothing")
    assert done.returncode == 1, done.stderr
    assert "DIFFERS" in done.stdout and "run gave 0 observations for 1 case (one observation per case, in order)" \
        in done.stdout
    assert "unpack" not in done.stdout + done.stderr


def plugin_run(plugin):
    return run_once("--impl", f"fixture_impls:{plugin}", "--profile", "dev", "--property", "fired_values_lie",
                    pythonpath=(str(HERE),))


@pytest.mark.parametrize("plugin, name, said", [
    ("ReturnsNone", "returns-none", "run returned NoneType None, not a list of observations"),
    ("StringPositions", "string-positions", "firings[0].at: must be an int, not str"),
    ("ExitsCleanly", "exits-cleanly", "run raised SystemExit(0) instead of answering"),
])
def test_run_of_a_plugin_that_does_not_answer_could_not_run_with_what_was_wrong(plugin, name, said):
    run = plugin_run(plugin)
    assert run.status == 3, run.stderr
    impl = run.implementation(name)
    [prop] = impl["properties"]
    assert impl["outcome"] == "could_not_run" and prop["outcome"] == "error" and not prop["failures"]
    assert said in prop["message"] and "Traceback" not in prop["message"]
    assert not (run.out / "counterexamples").exists()

"""`python -m conformance run`: exit status, progress, summary, counterexample files, robustness.

These run the stand-in suite of `report_fixture_suite/` (the real suite has its own tests): the
machinery is the same, and a run takes seconds.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree as ET

import pytest
from report_fixture_suite.running import FIXTURE_SUITE, HERE, mixed_run, run_once

from conformance.cli import main
from window_contract.case_json import load_cases
from window_contract.observation_json import observation_to_json
from window_contract.registry import load_implementation


def test_exit_status_is_1_when_an_implementation_does_not_conform():
    run = mixed_run()
    assert run.status == 1, run.stderr
    assert run.implementation("reference")["conforms"]
    assert not run.implementation("reference-flink-1.12")["conforms"]


def test_exit_status_is_0_when_every_implementation_conforms():
    run = run_once("--impl", "reference", "--profile", "dev", "--property", "agrees", *FIXTURE_SUITE)
    assert run.status == 0, run.stdout + run.stderr
    [prop] = run.implementation("reference")["properties"]
    assert prop["property"] == "agrees_with_reference" and prop["outcome"] == "passed"
    assert prop["examples"] == 30  # the dev profile's max_examples


def test_progress_shows_implementation_property_and_examples():
    progress = mixed_run().stderr
    assert "reference-flink-1.12\n" in progress
    assert "FAIL  agrees_with_reference" in progress
    assert "ok    firing_timestamp_is_max_timestamp  30 examples" in progress


def test_summary_names_the_failure_and_its_case_file():
    run = mixed_run()
    assert "reference: conforms (3 properties, 90 examples" in run.stdout
    assert "reference-flink-1.12: DOES NOT CONFORM" in run.stdout
    assert (
        f"minimal case: {run.out}/counterexamples/reference-flink-1.12--agrees_with_reference.json"
        in run.stdout
    )
    assert run.stdout.rstrip().endswith("(and report.md, report.json, junit.xml)")
    # what differs, under the property: the reference fires a window the older formula does not
    assert re.search(r"agrees_with_reference: .*\n +first difference: (extra )?firing of \[-?\d+, -?\d+\) for key a ",
                     run.stdout), run.stdout


def test_every_report_file_is_written():
    run = mixed_run()
    for name in (
        "report.json",
        "index.html",
        "report.md",
        "junit.xml",
        "logs/reference.log",
        "timelines/reference-flink-1.12--agrees_with_reference.svg",
    ):
        assert (run.out / name).stat().st_size > 0, name


def test_the_counterexample_is_minimal_and_replays(capsys):
    run = mixed_run()
    [prop] = [p for p in run.implementation("reference-flink-1.12")["properties"] if p["failures"]]
    [failure] = prop["failures"]
    # Hypothesis shrinks to one record more than one window below 0: [-2, 0) instead of [-4, -2).
    assert [e for e in failure["case"]["events"]] == [{"record": {"key": "a", "value": 0, "ts": -3}}]
    assert "negative_timestamps" in failure["features"]
    path = run.out / failure["case_file"]
    [case] = load_cases(path)
    assert observation_to_json(case.expected) == failure["reference"]
    assert case.expected == load_implementation("reference").run([case])[0]
    assert main(["replay", str(path), "--impl", "reference-flink-1.12", "--check"]) == 1
    assert "DIFFERS" in capsys.readouterr().out
    assert main(["replay", str(path), "--impl", "reference", "--check"]) == 0


def test_feature_counts_come_from_the_suite():
    impl = mixed_run().implementation("reference")
    tallies = [p["features"] for p in impl["properties"]]
    assert all(t["cases"] == t["assigner.tumbling"] > 0 for t in tallies)
    events = impl["properties"][0]["statistics"]["events"]
    assert set(events) == {"negative timestamps", "timestamps >= 0"}
    assert sum(events.values()) == impl["properties"][0]["examples"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--impl", "no-such-impl"), "no implementation 'no-such-impl'"),
        (("--impl", "no_such_module:factory"), "cannot import 'no_such_module'"),
        (("--profile", "fast"), "invalid choice: 'fast'"),
        (("--suite", str(HERE / "missing.py")), "no property suite at"),
        (("--out", str(HERE / "conftest.py")), "exists and is not a folder"),
        (("--jobs", "0"), "must be at least 1"),
    ],
)
def test_usage_errors_exit_2_with_a_message(args, message, capsys):
    # In this process: a usage error is found before any suite runs.
    assert main(["run", "--impl", "reference", *FIXTURE_SUITE, *args]) == 2
    assert message in capsys.readouterr().err


def test_an_implementation_that_raises_or_dies_is_reported_and_the_run_goes_on():
    impls = ("--impl", "fixture_impls:Raising", "--impl", "fixture_impls:Exiting")
    subset = ("--profile", "dev", "--property", "agrees")
    run = run_once(*impls, *subset, *FIXTURE_SUITE, pythonpath=(str(HERE),))
    # A plug-in's own exception is a bug of the plug-in: it differs, and that outranks the other
    # implementation's process that died (could not run).
    assert run.status == 1
    [raising] = run.implementation("raising")["properties"]
    assert raising["outcome"] == "failed" and not raising["failures"]
    assert "RuntimeError: the engine is not started" in raising["message"]
    exiting = run.implementation("exiting")
    assert exiting["exit_status"] == 3 and not exiting["properties"]
    assert exiting["outcome"] == "could_not_run"
    assert "the test process ended during this test" in exiting["errors"][0]["message"]
    verdict = run.report["verdict"]
    assert verdict["failing"] == ["raising"] and verdict["could_not_run"] == ["exiting"]


@pytest.mark.parametrize("jobs, status", [("2", 0), ("1", 3)])
def test_jobs_run_implementations_suites_at_once(tmp_path, jobs, status):
    # Each of the two answers only while the other's suite runs too: alone, the first could not run.
    impls = ("--impl", "fixture_impls:meet_a", "--impl", "fixture_impls:meet_b", "--jobs", jobs)
    run = run_once(*impls, "--profile", "dev", "--property", "agrees", *FIXTURE_SUITE, pythonpath=(str(HERE),),
                   env=(("MEETING_FOLDER", str(tmp_path)), ("MEETING_WAIT", "5")))
    assert run.status == status, run.stderr
    assert run.implementation("meet-b")["outcome"] == "conforms"
    # shown one after the other, in the order given
    assert run.stderr.index("meet-a") < run.stderr.index("meet-b")


def engines_that_never_ran():
    """Two properties of the real suite, whose harness stops a test at its first failure to run."""
    impls = ("--impl", "fixture_impls:NoJava", "--impl", "fixture_impls:JvmGone")
    properties = ("--property", "fired_values_lie or firing_timestamp_is")
    return run_once(*impls, "--profile", "dev", *properties, pythonpath=(str(HERE),))


def test_an_engine_that_never_ran_could_not_run_and_exits_3():
    run = engines_that_never_ran()
    assert run.status == 3, run.stderr
    for name, what in (("no-java", "No such file or directory: 'java'"), ("jvm-gone", "Connection refused")):
        impl = run.implementation(name)
        assert impl["outcome"] == "could_not_run" and not impl["conforms"]
        assert {p["outcome"] for p in impl["properties"]} == {"error"}
        assert all(what in p["message"] and not p["failures"] for p in impl["properties"])
        assert f"{name}: COULD NOT RUN" in run.stdout
    assert run.report["verdict"]["outcome"] == "could_not_run"
    assert run.stdout.rstrip().splitlines()[-2].startswith("Could not run: no-java (")


def test_an_engine_that_never_ran_is_an_error_in_the_matrix_and_junit_and_never_a_counterexample():
    run = engines_that_never_ran()
    cells = [row["cells"]["no-java"]["status"] for row in run.report["matrix"]]
    assert "pass" not in cells and "error" in cells
    suites = ET.parse(run.out / "junit.xml").getroot()
    assert suites.get("failures") == "0" and suites.get("errors") == suites.get("tests") == "4"
    assert not (run.out / "counterexamples").exists()


def test_a_run_call_that_never_returns_is_an_error_within_the_timeout():
    run = run_once("--impl", "fixture_impls:Hanging", "--profile", "dev", "--property", "fired_values_lie",
                   "--request-timeout", "1", pythonpath=(str(HERE),))
    assert run.status == 3, run.stderr
    [prop] = run.implementation("hanging")["properties"]
    assert prop["outcome"] == "error" and prop["duration"] < 60
    assert prop["message"] == "hanging could not run: a run call of 1 case(s) did not return within 1 s" or (
        "did not return within 1 s" in prop["message"])


def test_the_minimal_case_of_a_plugin_that_crashed_in_a_batch_is_the_case_that_crashes(capsys):
    run = run_once("--impl", "fixture_impls:CrashesOnNegative", "--profile", "dev",
                   "--property", "fired_values_lie", pythonpath=(str(HERE),))
    assert run.status == 1, run.stderr
    [prop] = run.implementation("crashes-on-negative")["properties"]
    [failure] = prop["failures"]
    assert failure["rule"] == "run(cases) gives an observation for every case without raising"
    assert any(e["record"]["ts"] < 0 for e in failure["case"]["events"] if "record" in e)
    path = str(run.out / failure["case_file"])
    assert main(["replay", path, "--impl", "report_fixture_suite.fixture_impls:CrashesOnNegative", "--check"]) == 1
    assert "run raised ValueError" in capsys.readouterr().out


def test_without_java_flink_could_not_run_in_one_line():
    no_java = (("PATH", "/nonexistent"), ("JAVA_HOME", "/nonexistent"))
    run = run_once("--impl", "flink", "--profile", "dev", "--property", "fired_values_lie", env=no_java)
    assert run.status == 3, run.stderr
    [prop] = run.implementation("flink")["properties"]
    assert prop["outcome"] == "error" and "\n" not in prop["message"]
    assert prop["message"].startswith("flink could not run: Flink's toolchain (java, javac or Flink's jars): ")
    rows = {row["feature"]: row["cells"]["flink"]["status"] for row in run.report["matrix"]}
    assert rows["assigner.tumbling"] == "error"


def replayed_in(log: str) -> int:
    """How many tests of a run ran on examples drawn before (the log's replay line), 0 without one."""
    lines = [line for line in log.splitlines() if line.startswith("replay: ")]
    return int(lines[0].split()[1]) if lines else 0


@pytest.mark.parametrize(("order", "profile", "shares"), [(("reference", "fixture_impls:Costly"), "ci", True),
                                                          (("fixture_impls:Costly", "reference"), "ci", False),
                                                          (("reference", "fixture_impls:Costly"), "dev", True)])
def test_runs_beside_the_references_draw_each_test_once_between_them(order, profile, shares):
    """Beside or after the reference's run, a prefetched one shares the drawing with it: each test is
    drawn by one of the two runs, and the other fetches its cases (and a test of real batches, its
    requests) as the first sent them and replays its examples, with their situations; the prefetched
    run's real pass finds every answer fetched. Before it, it draws every test itself.
    Under a profile that is not derandomized, one seed for both runs makes them draw alike."""
    impls = [arg for spec in order for arg in ("--impl", spec)]
    properties = ("--property", "rejected_specification or same_observation_when_run_twice")
    run = run_once(*impls, "--profile", profile, *properties, "--jobs", "2", pythonpath=(str(HERE),))
    assert run.status == 0, run.stderr
    log, reference_log = ((run.out / run.implementation(name)["log"]).read_text(encoding="utf-8")
                          for name in ("costly", "reference"))
    [summary] = [line for line in log.splitlines() if line.startswith("prefetch:") and "fetched" in line]
    drawn_by_costly = replayed_in(reference_log)
    assert drawn_by_costly == 0 or shares
    assert f"the cases of {2 - drawn_by_costly if shares else 0} tests as another run recorded them" in summary
    assert summary.endswith(" 0 missed (0 real calls)"), summary
    assert "replay: 2 tests ran on examples drawn before, 0 of them handed back" in log
    figures = {impl: {p["property"]: (p["examples"], p["invalid_examples"], p["statistics"]["events"])
                      for p in run.implementation(impl)["properties"]} for impl in ("reference", "costly")}
    assert figures["costly"] == figures["reference"]  # the very examples, and their situations
    seed = run.report["seed"]
    assert (seed is not None) == (profile == "dev")
    assert (f"Examples drawn with seed {seed} (--seed {seed} draws them again)" in run.stdout) == (profile == "dev")


def test_a_prefetched_runs_join_properties_replay_the_examples_their_prefetching_pass_drew():
    """A costly implementation's join properties are drawn once, in the pass that notes their cases for the one
    `run_joins` call; the real pass replays those examples (each property's examples and situations are the very
    ones the reference's own run draws)."""
    run = run_once("--impl", "reference", "--impl", "fixture_impls:Costly", "--property", "interval_join_pair",
                   "--jobs", "2", pythonpath=(str(HERE),))
    assert run.status == 0, run.stderr
    log = (run.out / run.implementation("costly")["log"]).read_text(encoding="utf-8")
    assert "replay: 4 tests ran on examples drawn before, 0 of them handed back" in log
    figures = {impl: {p["property"]: (p["examples"], p["statistics"]["events"])
                      for p in run.implementation(impl)["properties"]} for impl in ("reference", "costly")}
    assert len(figures["costly"]) == 4 and figures["costly"] == figures["reference"]


def test_a_seed_is_for_the_profiles_that_are_not_derandomized():
    run = run_once("--impl", "reference", "--profile", "ci", "--seed", "7", "--property", "rejected_specification")
    assert run.status == 2 and "--seed: the ci profile draws the same examples every run" in run.stderr

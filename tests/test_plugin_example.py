"""Plug-ins: `examples/naive_windows.py` through `run` and the real suite, and the entry-point group
for installed packages."""

from __future__ import annotations

import json

from report_fixture_suite.running import conformance, run_once

from window_contract.registry import ENTRY_POINT_GROUP

PLUGIN = "examples.naive_windows:NaiveWindows"


def naive_run():
    # Two properties of the real suite keep the test short; each finds one of the example's bugs.
    properties = ("--property", "matches_reference and not extremes and not join", "--property", "window_fires_once")
    return run_once("--impl", PLUGIN, "--profile", "ci", *properties)


def bugs(failure: dict) -> set[str]:
    """Which of the example's known bugs a counterexample shows."""
    found = set()
    reference, actual = failure["reference"], failure["actual"]
    fired = {(f["key"], f["window"]["start"]): f["at"] for f in reference["firings"]}
    if any(fired.get((f["key"], f["window"]["start"]), f["at"]) < f["at"] for f in actual["firings"]):
        found.add("fires one watermark late")
    if {(r["key"], r["value"]) for r in actual["dropped"]} - {(r["key"], r["value"]) for r in reference["dropped"]}:
        found.add("drops records whose window is not late")
    if reference["error"] and actual["error"] and reference["error"]["message"] != actual["error"]["message"]:
        found.add("rejects a specification in its own words")
    return found


def test_the_report_names_the_naive_implementations_bugs_with_minimal_cases():
    run = naive_run()
    assert run.status == 1, run.stderr
    impl = run.implementation("naive-windows")
    assert impl["spec"] == PLUGIN
    assert impl["features"] == ["assigner.sliding", "assigner.tumbling", "negative_timestamps", "offset"]
    failures = {p["property"]: p["failures"] for p in impl["properties"]}
    assert set(failures) == {"matches_reference", "window_fires_once_watermark_passes_max_timestamp"}
    for [failure] in failures.values():
        # small: the shrinker deletes whole steps, and one step may bring a pair of records
        assert len(failure["case"]["events"]) <= 3, failure["case"]
        # every minimal case shows one of the example's known bugs (which one a property shrinks to
        # depends on the generated examples)
        assert bugs(failure), failure
    md = (run.out / "report.md").read_text(encoding="utf-8")
    assert "### naive-windows fails window_fires_once_watermark_passes_max_timestamp" in md
    assert f"--impl {PLUGIN} --check" in md


def test_the_counterexample_replays_against_the_plugin():
    run = naive_run()
    failure = next(f for p in run.implementation("naive-windows")["properties"] for f in p["failures"])
    done = conformance("replay", str(run.out / failure["case_file"]), "--impl", PLUGIN, "--check")
    assert done.returncode == 1 and "DIFFERS" in done.stdout


def test_an_installed_package_is_found_through_the_entry_point_group(tmp_path):
    dist = tmp_path / "naive_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: naive-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nnaive-windows = {PLUGIN}\n")
    case = tmp_path / "case.json"
    case.write_text(
        json.dumps(
            {
                "format": "window-case/1",
                "window": {"assigner": "tumbling", "size": 10},
                "events": [{"record": {"key": "a", "value": 1, "ts": 5}}, {"watermark": 9}],
            }
        )
    )
    done = conformance("replay", str(case), "--impl", "naive-windows", pythonpath=(str(tmp_path),))
    assert done.returncode == 0, done.stderr
    [firing] = json.loads(done.stdout)["observation"]["firings"]
    assert firing["at"] == 2  # fired at the end of input: the watermark 9 did not fire [0, 10)

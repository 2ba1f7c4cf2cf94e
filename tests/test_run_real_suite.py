"""The real property suite (`conformance/properties/`) through `run`: the seed documents' older
window-start formula (`reference-flink-1.12`) is caught on negative timestamps by generated cases,
with a minimal case of one or two records that replays."""

from __future__ import annotations

from report_fixture_suite.running import run_once

from conformance.cli import main
from window_contract.case_json import load_cases


def flink_1_12_run():
    # The differential property alone: the bug is the window start, which it compares first.
    return run_once(
        "--impl",
        "reference-flink-1.12",
        "--profile",
        "ci",
        "--property",
        "matches_reference and not extremes and not join",
    )


def test_the_older_window_start_formula_fails_on_negative_timestamps():
    run = flink_1_12_run()
    assert run.status == 1, run.stderr
    impl = run.implementation("reference-flink-1.12")
    [prop] = impl["properties"]
    assert prop["property"] == "matches_reference" and prop["outcome"] == "failed"
    [failure] = prop["failures"]
    records = [e["record"] for e in failure["case"]["events"] if "record" in e]
    assert 1 <= len(records) <= 2
    assert "negative_timestamps" in failure["features"] and any(r["ts"] < 0 for r in records)
    # The same record lands in a different window: the start is wrong, not the firing time.
    windows = [
        {(f["window"]["start"], f["window"]["end"]) for f in o["firings"]}
        for o in (failure["reference"], failure["actual"])
    ]
    assert windows[0] and windows[1] and windows[0] != windows[1]
    rows = {row["feature"]: row["cells"]["reference-flink-1.12"] for row in run.report["matrix"]}
    assert rows["negative_timestamps"]["status"] == "fail" and rows["negative_timestamps"]["cases"] > 0


def test_the_minimal_case_replays_and_shows_in_the_report(capsys):
    run = flink_1_12_run()
    [failure] = run.implementation("reference-flink-1.12")["properties"][0]["failures"]
    path = run.out / failure["case_file"]
    assert main(["replay", str(path), "--impl", "reference-flink-1.12", "--check"]) == 1
    assert main(["replay", str(path), "--impl", "reference", "--check"]) == 0
    [case] = load_cases(path)
    assert any(r.ts < 0 for r in case.records)
    html = (run.out / "index.html").read_text(encoding="utf-8")
    assert "reference-flink-1.12 fails matches_reference" in html and "negative_timestamps" in html

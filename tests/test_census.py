"""The census (`python -m conformance census`) on engines whose rules the tests know: the reference in a dialect.

An engine that keeps touching sessions apart is explained, case by case, by a list that names that rule; with a
list that does not, the census reports the difference as unexplained, shrinks it to a minimal case (its
`expected` the reference's observation) and exits 1; run again, it goes on from what it wrote, and runs the cases
left unexplained again against the list as it is then.
"""

from __future__ import annotations

import json

import pytest
from dialect_impls import Counting
from engine_pages import ROOT

from conformance.census import table
from conformance.cli import main
from conformance.divergences import LIST
from reference.dialects import Dialect
from reference.joins import simulate_join
from window_contract.case_json import load_cases
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import join_equivalent

KEPT = Dialect(watermark_when_all_inputs_idle="kept")

BEAM_LIST = ROOT / "cases" / "engines" / "beam" / LIST


def census(out, divergences, *extra: str, impl: str = "dialect_impls:beams_rules") -> int:
    return main(["census", "--impl", impl, "--cases", "40",
                 "--divergences", str(divergences), "--out", str(out), "--confirm", "none", *extra])


def test_an_engine_its_list_explains_has_nothing_unexplained(tmp_path, capsys):
    assert census(tmp_path / "census", BEAM_LIST) == 0
    summary = json.loads((tmp_path / "census" / "census.json").read_text())
    assert summary["unexplained"]["cases"] == 0 and summary["cases"] == 40
    assert summary["divergences"]["beam.touching-sessions"]["cases"] > 0
    assert "beam.touching-sessions" in capsys.readouterr().out


@pytest.fixture
def other_list(tmp_path):
    path = tmp_path / LIST
    path.write_text('[[divergence]]\nid = "x.lateness"\ntitle = "t"\ncase = "c.json"\n'
                    'switches = { drop_when_past_cleanup_strictly = true }\n')
    return path


def test_what_the_list_does_not_explain_is_shrunk_and_saved(tmp_path, other_list):
    apart = "dialect_impls:touching_sessions_stay_apart"
    assert census(tmp_path / "census", other_list, "--shrink", "2", impl=apart) == 1
    summary = json.loads((tmp_path / "census" / "census.json").read_text())
    assert summary["unexplained"]["cases"] > 0
    for minimal in summary["unexplained"]["minimal"]:
        [case] = load_cases(tmp_path / "census" / minimal["file"])
        assert case.expected is not None and len(case.events) <= 3
        assert case.window.__class__.__name__ in ("Session", "DynamicSession")


def test_a_census_run_again_goes_on_from_what_it_wrote(tmp_path, other_list):
    args = ["census", "--impl", "dialect_impls:Counting", "--cases", "40", "--divergences", str(BEAM_LIST),
            "--out", str(tmp_path / "census"), "--confirm", "none"]
    Counting.RUNS.clear()
    assert main(args) == 0
    first = sum(Counting.RUNS)
    Counting.RUNS.clear()
    assert main(args) == 0
    assert first >= 40 and sum(Counting.RUNS) == 0


def test_a_census_run_again_attributes_what_was_unexplained_anew_with_the_list_as_it_is_now(tmp_path, other_list):
    args = ["census", "--impl", "dialect_impls:Counting", "--cases", "40", "--out", str(tmp_path / "census"),
            "--confirm", "none", "--shrink", "0"]
    assert main([*args, "--divergences", str(other_list)]) == 1
    left = json.loads((tmp_path / "census" / "census.json").read_text())["unexplained"]["cases"]
    Counting.RUNS.clear()
    assert main([*args, "--divergences", str(BEAM_LIST)]) == 0
    assert sum(Counting.RUNS) == left > 0


@pytest.fixture
def kept_list(tmp_path):
    path = tmp_path / "joins" / LIST
    path.parent.mkdir()
    path.write_text('[[divergence]]\nid = "x.kept"\ntitle = "t"\ncase = "idle.join.json"\n'
                    'switches = { watermark_when_all_inputs_idle = "kept" }\n')
    return path


def test_an_engine_that_declares_joins_is_sent_join_cases_its_join_divergences_explain(tmp_path, kept_list):
    """The reference whose two-input operators keep their watermark while every input is idle: its join cases (of
    every kind it declares) are explained by the list's join divergence, some by it; its window cases agree."""
    impl = "dialect_impls:inputs_idle_keep_the_watermark"
    assert census(tmp_path / "census", kept_list, "--join-cases", "60", impl=impl) == 0
    summary = json.loads((tmp_path / "census" / "census.json").read_text())
    assert summary["cases"] == 100 and summary["join_cases"]["cases"] == 60
    assert summary["unexplained"]["cases"] == 0 and summary["divergences"]["x.kept"]["cases"] > 0
    assert all(v["example_case"] >= 40 for v in summary["divergences"].values())  # only join cases differ
    assert any(line.startswith("of them join cases") and "60" in line for line in table(summary))


def test_a_join_case_its_list_does_not_explain_is_shrunk_and_saved_as_a_join_case_file(tmp_path):
    """Without the join divergence (an empty list), what the engine's joins do differently is unexplained: its
    minimal case is a join case file whose `expected` is the reference's, and the engine differs on it."""
    impl = "dialect_impls:inputs_idle_keep_the_watermark"
    (tmp_path / LIST).write_text("")
    assert census(tmp_path / "census", tmp_path / LIST, "--join-cases", "60", "--shrink", "1", impl=impl) == 1
    summary = json.loads((tmp_path / "census" / "census.json").read_text())
    [minimal] = summary["unexplained"]["minimal"]
    assert minimal["file"] == "unexplained-1.join.json" and min(minimal["from_cases"]) >= 40
    [case] = load_join_cases(tmp_path / "census" / minimal["file"])
    assert case.expected == simulate_join(case) and not join_equivalent(case.expected, simulate_join(case, KEPT))
    assert len(case.events) <= 5

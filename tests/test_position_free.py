"""Position-free implementations (docs/format.md): an engine that cannot tell when it emitted an
output answers with `"at": null`; it is compared over whole cases, what it cannot observe is left out
of both sides, and the properties about positions are not applicable to it: the report says so."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from report_fixture_suite.running import ROOT, run_once

from conformance.evidence import NOT_APPLICABLE
from window_contract import Case, record, session, tumbling, watermark
from window_contract.case_json import load_cases
from window_contract.difference import difference
from window_contract.equivalence import equivalent, without_positions
from window_contract.observation_json import observation_from_json, observation_to_json
from window_contract.process import read_join_observation
from window_contract.registry import load_implementation
from window_contract.validation import CaseFormatError

PEER = Path(__file__).resolve().parent / "peers" / "python_peer.py"
REFERENCE = load_implementation("reference")

CASE = Case(window=session(10), events=[record("a", 1, ts=0), record("a", 2, ts=5), watermark(14),
                                       record("a", 3, ts=1), record("b", 4, ts=30), watermark(100)])


def observed(case: Case = CASE):
    [observation] = REFERENCE.run([case])
    return observation


def erased(observation, firing_watermarks=False):
    return without_positions(observation, firing_watermarks=firing_watermarks, watermarks=False)


def test_without_positions_the_outputs_compare_over_the_whole_case():
    want = observed()
    assert want.firings and want.dropped, "the case fires and drops: both parts are compared"
    got = erased(want)
    assert all(x.at is None for x in (*got.firings, *got.dropped)) and got.firings[0].watermark is None
    assert equivalent(want, got) and equivalent(got, want) and difference(want, got) == ""
    # What is compared still counts: values, a repeated firing, a record dropped instead of late.
    first = got.firings[0]
    assert not equivalent(want, replace(got, firings=(replace(first, values=(9,)), *got.firings[1:])))
    assert not equivalent(want, replace(got, firings=(first, *got.firings)))
    assert not equivalent(want, replace(got, dropped=(), late=got.dropped))
    assert "firing of [0, 15) for key a in the case" in difference(want, replace(got, firings=got.firings[1:]))


def test_a_firing_watermark_is_compared_when_both_observations_give_it():
    want = observed()
    got = erased(want, firing_watermarks=True)
    first = got.firings[0]
    assert equivalent(want, got)
    assert not equivalent(want, replace(got, firings=(replace(first, watermark=first.watermark + 1),
                                                      *got.firings[1:])))


def test_an_implementation_known_to_be_position_free_is_compared_without_positions_even_without_outputs():
    case = Case(window=tumbling(10), events=[record("a", 1, ts=0)], end_of_input=False)
    want = observed(replace(case, watermark_generator=None))
    moved = replace(want)  # nothing fired: the observation alone cannot tell it is position-free
    assert equivalent(want, moved, positions=False)
    fired = observed(replace(case, end_of_input=True))
    shifted = replace(fired, firings=tuple(replace(f, at=0) for f in fired.firings))
    assert not equivalent(fired, shifted) and equivalent(fired, shifted, positions=False)


def test_a_position_free_observation_has_null_positions_and_nothing_else():
    doc = observation_to_json(erased(observed()))
    assert doc["firings"][0]["at"] is None and doc["firings"][0]["watermark"] is None
    assert observation_from_json(doc, position_free=True) == erased(observed())
    with pytest.raises(CaseFormatError, match=r"\$\.firings\[0\]\.at: must be an integer"):
        observation_from_json(doc)  # a positioned implementation must give positions
    positioned = observation_to_json(observed())
    with pytest.raises(CaseFormatError, match=r"\$\.firings\[0\]\.at: must be null: the implementation is "
                                              "position-free"):
        observation_from_json(positioned, position_free=True)
    del positioned["firings"][0]["at"]
    with pytest.raises(CaseFormatError, match=r"\$\.firings\[0\]\.at: missing required field"):
        observation_from_json(positioned, position_free=True)


def position_free_peer() -> str:
    return "exec:" + shlex.join([sys.executable, str(PEER), "position_free"])


def test_a_position_free_process_says_so_and_is_compared_whole(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    impl = load_implementation(position_free_peer())
    assert impl.position_free
    cases = load_cases(ROOT / "cases" / "sessions" / "merging.json")
    for case, got, want in zip(cases, impl.run(cases), REFERENCE.run(cases), strict=True):
        assert all(f.at is None for f in got.firings)
        assert equivalent(want, got, positions=False), case.name


def test_the_positional_properties_are_not_applicable_and_the_others_hold():
    """The suite against the reference's answers without positions: the differential and the rules
    that need no positions hold; the rules about positions are reported as not applicable, and the
    run conforms (exit 0)."""
    run = run_once("--impl", position_free_peer(), "--profile", "dev",
                   "--property", "matches_reference", "--property", "firing_timestamp_is_max_timestamp",
                   "--property", "firing_watermark_is_the_current_watermark",
                   "--property", "repeated_or_lower_watermark", pythonpath=(str(ROOT),))
    assert run.status == 0, run.stderr
    outcomes = {p["property"]: p["outcome"] for p in run.implementation("python-peer")["properties"]}
    assert outcomes.pop("firing_watermark_is_the_current_watermark") == "not_applicable"
    assert outcomes and set(outcomes.values()) == {"passed"}, outcomes
    assert NOT_APPLICABLE in (run.out / "report.md").read_text(encoding="utf-8")


def test_replay_checks_a_position_free_implementation_over_whole_cases(monkeypatch, capsys):
    from conformance.cli import main

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    assert main(["replay", str(ROOT / "cases" / "sessions" / "merging.json"), "--impl", position_free_peer(),
                 "--check"]) == 0
    assert "cases agree with their expected observation" in capsys.readouterr().out


def test_the_report_tells_a_position_free_difference_without_positions():
    from reports.difference import differences
    from reports.observations import output_lines
    from window_contract.case import case_to_json

    want = observed()
    got = erased(want)
    lacking = replace(got, firings=got.firings[1:])
    lines = differences(case_to_json(CASE), observation_to_json(want), observation_to_json(lacking))
    assert lines == ["firing of [0, 15) for key a in the case (values [1, 2]) is missing"]
    at, text = output_lines(observation_to_json(lacking))[0]
    assert at is None and text.startswith("fire ")


PLACED_PAIR = {"at": 1, "key": "a", "timestamp": 11, "watermark": 0, "left": 1, "right": 2}


def test_a_position_free_process_may_place_its_joins_and_then_places_every_part_of_one():
    """Kafka Streams' windows cannot tell where they emitted, its joins can: a join observation with an integer `at`
    is read as placed, from a process whose hello says position-free; then a null `at` in it is an error."""
    placed = {"format": "join-observation/1", "outputs": [PLACED_PAIR], "watermarks": [{"at": 2, "watermark": 5}]}
    observation = read_join_observation(placed, "$", position_free=True)
    assert [o.at for o in observation.outputs] == [1] and [w.at for w in observation.watermarks] == [2]
    unplaced = {"format": "join-observation/1", "outputs": [{**PLACED_PAIR, "at": None, "watermark": None}]}
    assert read_join_observation(unplaced, "$", position_free=True).outputs[0].at is None
    mixed = {**placed, "outputs": [PLACED_PAIR, {**PLACED_PAIR, "at": None}]}
    with pytest.raises(CaseFormatError, match=r"outputs\[1\]\.at"):
        read_join_observation(mixed, "$", position_free=True)

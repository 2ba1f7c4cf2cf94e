"""The DataStream joins' contract (`join-case/1`, `join-observation/1`) and the model (`reference.joins`).

The model's hand cases at the joins' edges are in `cases/joins/`, each with the observation real Flink gave
(`tests/test_flink_joins.py` runs them on Flink again); here the model must agree with every one, and the loader must
refuse what the format does not allow with one line per problem, naming the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given

from reference.interval_join import IntervalJoinOperator
from reference.joins import IntervalJoinCollector, simulate_join
from reference.watermarks.combined import IndexedCombinedWatermarkStatus
from strategies.joins import join_cases
from window_contract.case_json import JOIN_CASES_SUFFIX, case_files
from window_contract.join_case import join_case_to_json
from window_contract.join_case_json import join_cases_from_json, load_join_cases
from window_contract.join_observation import (
    JoinObservation,
    Pair,
    SideRecord,
    SqlRow,
    join_difference,
    join_equivalent,
    join_observation_from_json,
    join_observation_to_json,
)
from window_contract.observation import InputWatermark
from window_contract.validation import CaseFormatError, Problems

ROOT = Path(__file__).resolve().parent.parent
JOIN_FILES = sorted((ROOT / "cases").rglob(f"*{JOIN_CASES_SUFFIX}"))
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def interval_join(events, lower=-2, upper=1, **join):
    return {"format": "join-case/1", "join": {"operation": "interval_join", "lower": lower, "upper": upper} | join,
            "events": events}


def rec(side, value, ts, key="a", channel=0):
    return {"input": side, "record": {"key": key, "value": value, "ts": ts, "channel": channel}}


def wm(side, t, channel=0):
    return {"input": side, "watermark": t, "channel": channel}


@pytest.mark.parametrize("path", JOIN_FILES, ids=[p.name for p in JOIN_FILES])
def test_the_model_agrees_with_what_flink_gave_for_each_hand_case(path):
    cases = load_join_cases(path)
    assert cases and all(c.expected is not None for c in cases)
    wrong = [c.name for c in cases if not join_equivalent(simulate_join(c), c.expected)]
    assert wrong == []


def test_join_case_files_are_not_window_cases():
    assert JOIN_FILES and not set(JOIN_FILES) & set(case_files([ROOT / "cases"]))


@given(join_cases())
def test_a_join_case_reads_back_as_it_was_written(case):
    assert join_cases_from_json(json.loads(json.dumps(join_case_to_json(case)))) == [case]


def test_an_observation_reads_back_as_it_was_written():
    [case] = load_join_cases(ROOT / "cases" / "joins" / "window_join.join.json")[:1]
    observation = simulate_join(case)
    problems = Problems()
    assert join_observation_from_json(join_observation_to_json(observation), "$", problems) == observation
    assert problems.found == []


def test_a_position_free_observation_is_compared_without_positions_watermarks_or_timer_times():
    flink = JoinObservation((Pair(1, "a", 11, 5, 1, 2), SqlRow(4, "a", 20, 3, None, None, 19)),
                            dropped=(SideRecord(3, "left", "a", 3, 12),), watermarks=(InputWatermark(2, 20),))
    engine = JoinObservation((SqlRow(None, "a", None, 3, None), Pair(None, "a", 11, None, 1, 2)),
                             dropped=(SideRecord(None, "left", "a", 3, 12),))
    assert join_equivalent(flink, engine) and join_difference(flink, engine) == ""
    moved = JoinObservation((Pair(None, "a", 12, None, 1, 2),), dropped=engine.dropped)
    assert not join_equivalent(flink, moved)
    assert join_difference(flink, moved).splitlines() == [
        "outputs: missing Pair(at=None, key='a', timestamp=11, watermark=None, left=1, right=2)",
        "outputs: missing SqlRow(at=None, key='a', watermark=None, left=3, right=None, window=None, timestamp=None)",
        "outputs: unexpected Pair(at=None, key='a', timestamp=12, watermark=None, left=1, right=2)"]


def test_a_position_free_observation_reads_back_and_a_placed_one_is_refused_from_it():
    engine = JoinObservation((Pair(None, "a", 11, None, 1, 2),), dropped=(SideRecord(None, "left", "a", 3, 12),))
    problems = Problems()
    assert join_observation_from_json(join_observation_to_json(engine), "$", problems, position_free=True) == engine
    assert problems.found == []
    join_observation_from_json(join_observation_to_json(replace(engine, dropped=(SideRecord(3, "left", "a", 3, 12),))),
                               "$", problems, position_free=True)
    assert [str(p) for p in problems.found] == ["$.dropped[0].at: must be null: the implementation is position-free"]


@pytest.mark.parametrize("doc, message", [
    (interval_join([rec("middle", 1, 0)]), "$.events[0].input: must be one of 'left', 'right', not 'middle'"),
    (interval_join([rec("left", 1, 0, channel=1)]),
     "$.events[0]: names channel 1, but the case has 1 (channels are 0 to 0)"),
    (interval_join([{"input": "left", "end_of_channel": 0}, rec("left", 1, 0)]),
     "$.events[1]: comes after channel 0 ended (event 0)"),
    (interval_join([{"input": "left", "processing_time": 5}]),
     "$.events[0]: processing_time is not an event of a join case: its joins run in event time"),
    (interval_join([], lower="x"), "$.join.lower: must be an integer in Java long range"),
    ({"format": "join-case/1", "join": {"operation": "interval"}, "events": []},
     "$.join.operation: must be one of 'window_join', 'window_cogroup', 'interval_join', 'sql_window_join', "
     "'sql_interval_join', not 'interval'"),
    ({"format": "join-case/1", "join": {"operation": "window_join", "window": {"assigner": "dynamic_session",
                                                                              "gap_extractor": "value"}},
      "events": []}, "$.join: 'dynamic_session' takes a function of the element"),
    ({"format": "join-case/1", "join": {"operation": "window_cogroup", "window": {"assigner": "cumulative",
                                                                                 "step": 5, "size": 10}},
      "events": []}, "$.join: 'cumulative' is Flink SQL's CUMULATE: the DataStream API"),
    ({"format": "window-case/1", "join": {"operation": "interval_join", "lower": 0, "upper": 0}, "events": []},
     "$.format: must be 'join-case/1', not 'window-case/1'"),
    (interval_join([]) | {"inputs": {"left": {"channels": 0}}}, "$.inputs.left.channels: must be >= 1, not 0"),
])
def test_the_loader_names_the_field_and_the_rule(doc, message):
    with pytest.raises(CaseFormatError) as error:
        join_cases_from_json(doc)
    assert message in str(error.value) and "\n" not in str(error.value)


def observe(doc) -> JoinObservation:
    [case] = join_cases_from_json(doc)
    return simulate_join(case)


def test_interval_bounds_are_inclusive_and_exclusivity_moves_them_by_one():
    events = [rec("left", 1, 10)] + [rec("right", v, ts) for v, ts in ((2, 7), (3, 8), (4, 11), (5, 12))]
    assert [(p.left, p.right, p.timestamp) for p in observe(interval_join(events)).outputs] == [(1, 3, 10), (1, 4, 11)]
    exclusive = interval_join(events, lower=-3, upper=2, lower_exclusive=True, upper_exclusive=True)
    assert [p.right for p in observe(exclusive).outputs] == [3, 4]


def test_the_operator_checks_the_raw_bounds_and_wraps_the_exclusive_ones():
    rejected = observe(interval_join([], lower=1, upper=0)).error
    assert (rejected.message, rejected.rules) == ("lowerBound <= upperBound must be fulfilled", ("join.bounds",))
    collector = IntervalJoinCollector()
    operator = IntervalJoinOperator(LONG_MAX, LONG_MAX, False, True, False, False, collector)
    assert operator.lower_bound == LONG_MIN  # Long.MAX_VALUE + 1 wraps


def test_a_right_element_at_exactly_the_left_ones_cleanup_time_misses_it():
    events = [rec("left", 1, 5), wm("left", 7), wm("right", 7), rec("right", 2, 7)]
    assert observe(interval_join(events, lower=0, upper=2)).outputs == ()
    # one millisecond earlier, the left element is still buffered
    events[1:3] = [wm("left", 6), wm("right", 6)]
    assert observe(interval_join(events, lower=0, upper=2)).outputs == (Pair(3, "a", 7, 6, 1, 2),)


def test_late_is_behind_the_combined_watermark_of_both_inputs():
    events = [wm("left", 20), rec("right", 1, 5), wm("right", 20), rec("right", 2, 19), rec("left", 3, 20)]
    o = observe(interval_join(events, lower=-5, upper=5, late_side_output={"left": True, "right": True}))
    # the right element at 5 came while the right input held the operator at Long.MIN_VALUE: not late
    assert [(r.at, r.input, r.value) for r in o.late] == [(3, "right", 2)]
    # and it was cleaned up (its timer at 5 + 5 <= 20) before the left element at 20 came
    assert o.outputs == ()


def test_the_combined_watermark_is_the_minimum_of_active_inputs_and_never_goes_back():
    combined = IndexedCombinedWatermarkStatus(2)
    assert combined.update_watermark(0, 10) is False  # the other input is still at Long.MIN_VALUE
    assert combined.update_watermark(1, 5) and combined.combined_watermark == 5
    assert combined.update_status(1, True) and combined.combined_watermark == 10  # idle: no longer counted
    assert combined.update_status(0, True) is False and combined.idle  # all idle: the maximum, 10 again
    assert combined.update_watermark(1, 7) is False and not combined.idle  # active again, but never back


def test_the_join_case_files_follow_the_generated_schema():
    from jsonschema import Draft202012Validator

    schema = json.loads((ROOT / "docs" / "schemas" / "join-case-1.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    for path in JOIN_FILES:
        Draft202012Validator(schema).validate(json.loads(path.read_text(encoding="utf-8")))
    errors = list(Draft202012Validator(schema).iter_errors(interval_join([rec("middle", 1, 0)])))
    assert errors  # the schema refuses what the loader refuses


def test_the_format_pages_example_is_what_the_model_observes():
    text = (ROOT / "docs" / "format.md").read_text(encoding="utf-8")
    case_doc, observation_doc = re.findall(r"```json\n(.*?)```", text[text.index("## Two inputs"):], re.S)[:2]
    [case] = join_cases_from_json(json.loads(case_doc))
    assert join_observation_to_json(simulate_join(case)) == json.loads(observation_doc)

"""Flink SQL's window and interval joins in the contract, the model and the join properties' rules: the format reads
and writes them, the model makes each join type's rows (Flink's observations of these cases, and of the interval
join's hand cases, are in `cases/joins/sql/`), and each rule holds for the model and breaks for an observation wrong
in the way it names."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from conformance.properties.sql_joins import (
    interval_pairs_within_the_bounds,
    padded_once_and_only_without_a_partner,
    padded_when_no_partner_can_come,
    window_rows_exactly_once,
    window_rows_when_the_watermark_passes,
)
from reference.joins import simulate_join
from strategies.joins import join_cases, sql_interval_joins, sql_window_joins
from window_contract.case import Record, Watermark, cumulative, sliding, tumbling
from window_contract.features import join_required_features
from window_contract.join_case import JoinCase, JoinEvent, SqlIntervalJoin, SqlWindowJoin, join_case_to_json
from window_contract.join_case_json import join_cases_from_json
from window_contract.join_observation import SqlRow, join_observation_from_json, join_observation_to_json
from window_contract.validation import CaseFormatError, Problems

LONG_MIN = -(2**63)


def record(side, key, value, ts):
    return JoinEvent(side, Record(key, value, ts))


def mark(side, t):
    return JoinEvent(side, Watermark(t))


#: Tumbling windows of 10: key a has a left and a right row in [0, 10), key b a right row alone; the window closes
#: at event 4 (both inputs at 9 or more); the left row at 5 is late for it; [10, 20) holds a's left row alone.
EVENTS = (record("left", "a", 1, 3), record("right", "a", 7, 5), record("right", "b", 8, 5), mark("left", 9),
          mark("right", 12), record("left", "a", 2, 4), record("left", "a", 3, 14))


def case(join_type: str, window=None) -> JoinCase:
    return JoinCase(SqlWindowJoin(window or tumbling(10), join_type), EVENTS)


@pytest.mark.parametrize(("join_type", "rows"), [
    ("inner", {(4, "a", 1, 7)}),
    ("left", {(4, "a", 1, 7), (7, "a", 3, None)}),
    ("right", {(4, "a", 1, 7), (4, "b", None, 8)}),
    ("full", {(4, "a", 1, 7), (4, "b", None, 8), (7, "a", 3, None)}),
    ("semi", {(4, "a", 1, None)}),
    ("anti", {(7, "a", 3, None)}),
])
def test_each_join_type_makes_its_rows_when_the_window_closes(join_type, rows):
    observation = simulate_join(case(join_type))
    assert {(r.at, r.key, r.left, r.right) for r in observation.outputs} == rows
    assert [(d.at, d.value) for d in observation.dropped] == [(5, 2)]
    assert window_rows_exactly_once(case(join_type), observation) is None
    assert window_rows_when_the_watermark_passes(case(join_type), observation) is None


def test_a_hop_row_late_for_one_window_still_joins_in_the_next():
    """HOP of 10 every 5: the left record at 9 comes when [0, 10) has closed, and joins in [5, 15)."""
    hop = JoinCase(SqlWindowJoin(sliding(10, 5), "inner"), (
        record("left", "a", 1, 3), record("right", "a", 7, 5), mark("left", 9), mark("right", 9),
        record("left", "a", 2, 9)))
    observation = simulate_join(hop)
    assert [(d.at, d.value) for d in observation.dropped] == [(4, 2)]
    assert {(r.at, r.left, r.right, r.window) for r in observation.outputs} == {
        (3, 1, 7, (0, 10)), (5, 2, 7, (5, 15))}
    assert window_rows_exactly_once(hop, observation) is None


def test_the_format_reads_back_what_it_writes():
    for join in (case("full"), case("anti", cumulative(5, 10, 2))):
        doc = join_case_to_json(replace(join, expected=simulate_join(join)))
        assert join_cases_from_json(doc) == [replace(join, expected=simulate_join(join))]
    observation = simulate_join(case("full"))
    assert join_observation_from_json(join_observation_to_json(observation), "$", Problems()) == observation
    assert SqlRow(4, "b", 9, None, 8, (0, 10)) in observation.outputs


def test_a_subquery_flavour_is_only_a_semi_or_anti_joins():
    doc = join_case_to_json(case("anti"))
    assert doc["join"]["flavour"] == "exists" and "flavour" not in join_case_to_json(case("left"))["join"]
    doc["join"] |= {"type": "left", "flavour": "in"}
    with pytest.raises(CaseFormatError, match=r"\$\.join\.flavour: is how a semi or anti join's subquery is written"):
        join_cases_from_json(doc)


def test_a_session_window_join_is_a_format_error_naming_the_field():
    doc = join_case_to_json(case("inner"))
    doc["join"]["window"] = {"assigner": "session", "gap": 3}
    with pytest.raises(CaseFormatError, match=r"\$\.join\.window: a SQL window join in this format is over"):
        join_cases_from_json(doc)


def test_a_sql_window_join_needs_its_feature_and_its_windows():
    assert join_required_features(case("left", sliding(10, 5, 2))) == {"join.sql_window", "assigner.sliding",
                                                                      "offset"}


def test_a_padded_row_missing_or_emitted_early_breaks_its_rule():
    full = case("full")
    observation = simulate_join(full)
    padded = next(r for r in observation.outputs if r.right is None)
    missing = replace(observation, outputs=tuple(r for r in observation.outputs if r != padded))
    assert "missing [('a', 3, None, (10, 20))]" in window_rows_exactly_once(full, missing)
    early = replace(observation, outputs=tuple(replace(r, at=6) if r == padded else r for r in observation.outputs))
    assert "emitted at position 6" in window_rows_when_the_watermark_passes(full, early)
    not_dropped = replace(observation, dropped=())
    assert "dropped [], expected" in window_rows_exactly_once(full, not_dropped)


@settings(max_examples=60, deadline=None)
@given(join_cases(specs=sql_window_joins()))
def test_the_rules_hold_for_the_model_on_generated_cases(join_case):
    observation = simulate_join(join_case)
    assert window_rows_exactly_once(join_case, observation) is None
    assert window_rows_when_the_watermark_passes(join_case, observation) is None


#: -2 <= l.rt - r.rt <= 3: right 12 joins left 10 as it arrives; left 20 has no partner and is padded when the
#: watermark 23 reaches the left cache's one pending timer, left 10's at 10 + 2 + 1, whose time the padded row
#: carries; left 4 comes behind the watermark: padded at once, without a timestamp.
INTERVAL = JoinCase(SqlIntervalJoin(-2, 3, "left"), (
    record("left", "a", 1, 10), record("right", "a", 2, 12), record("left", "a", 3, 20), mark("left", 23),
    mark("right", 23), record("left", "a", 4, 4)))
INTERVAL_RULES = (padded_once_and_only_without_a_partner, padded_when_no_partner_can_come,
                  interval_pairs_within_the_bounds)


def test_an_interval_join_pads_on_its_cleanup_timer_or_at_once():
    observation = simulate_join(INTERVAL)
    assert {(r.at, r.left, r.right, r.timestamp) for r in observation.outputs} == {
        (1, 1, 2, None), (4, 3, None, 13), (5, 4, None, None)}
    for rule in INTERVAL_RULES:
        assert rule(INTERVAL, observation) is None, rule.__name__


def test_an_interval_join_row_wrong_in_each_way_breaks_its_rule():
    observation = simulate_join(INTERVAL)
    pair, timer_pad, _ = observation.outputs
    twice = replace(observation, outputs=(*observation.outputs, timer_pad))
    assert "left row 3 was padded with nulls 2 times" in padded_once_and_only_without_a_partner(INTERVAL, twice)
    joined = replace(observation, outputs=(*observation.outputs, SqlRow(1, "a", LONG_MIN, 1, None)))
    assert "left row 1 was padded with nulls and also joined" in padded_once_and_only_without_a_partner(
        INTERVAL, joined)
    early = replace(observation, outputs=(pair, replace(timer_pad, at=3, watermark=LONG_MIN)))
    assert "had not reached 22" in padded_when_no_partner_can_come(INTERVAL, early)
    outside = replace(observation, outputs=(SqlRow(2, "a", LONG_MIN, 3, 2),))
    assert "lies outside -2 <= l.rt - r.rt <= 3" in interval_pairs_within_the_bounds(INTERVAL, outside)


def test_an_interval_join_with_lower_above_upper_is_a_format_error():
    doc = join_case_to_json(INTERVAL)
    doc["join"] |= {"lower": 4, "upper": 3}
    with pytest.raises(CaseFormatError, match=r"\$\.join: lower > upper"):
        join_cases_from_json(doc)


@settings(max_examples=60, deadline=None)
@given(join_cases(specs=sql_interval_joins()))
def test_the_interval_rules_hold_for_the_model_on_generated_cases(join_case):
    observation = simulate_join(join_case)
    for rule in INTERVAL_RULES:
        assert rule(join_case, observation) is None, rule.__name__

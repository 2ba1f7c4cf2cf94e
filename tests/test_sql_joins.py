"""Flink SQL's window join in the contract, the model and the join properties' rules: the format reads and writes
it, the model makes each join type's rows (Flink's observations of these cases are in `cases/joins/sql/`), and each
rule holds for the model and breaks for an observation wrong in the way it names."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from conformance.properties.sql_joins import window_rows_exactly_once, window_rows_when_the_watermark_passes
from reference.joins import simulate_join
from strategies.joins import join_cases, sql_window_joins
from window_contract.case import Record, Watermark, cumulative, sliding, tumbling
from window_contract.features import join_required_features
from window_contract.join_case import JoinCase, JoinEvent, SqlWindowJoin, join_case_to_json
from window_contract.join_case_json import join_cases_from_json
from window_contract.join_observation import SqlRow, join_observation_from_json, join_observation_to_json
from window_contract.validation import CaseFormatError, Problems


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


def test_a_session_window_join_is_a_format_error_naming_the_field():
    doc = join_case_to_json(case("inner"))
    doc["join"]["window"] = {"assigner": "session", "gap": 3}
    with pytest.raises(CaseFormatError, match=r"\$\.join\.window: a SQL window join is over an event-time window"):
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

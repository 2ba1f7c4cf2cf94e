"""The `kafka-streams` engine's joins: Flink's interval joins as `KStream#join`, `leftJoin` and `outerJoin` with
`JoinWindows` (engines/jvm/kafka-streams/, `KafkaStreamsJoin.java`, `JoinDrive.java`), answered through `run_joins`.

The translation is checked on hand cases through the process, with what Kafka Streams gives written out; the model of
a join on stream time (`reference/stream_time_join.py`, the dialect of the engine's list) must predict the engine on
the list's join cases and on generated ones; and every join case whose kind the engine declares, the committed ones
included, differs from Flink only as the list's join divergences explain (`conformance.divergences.attribute`).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from conformance.committed import committed
from conformance.divergences import attribute, dialect_of, engine_divergences
from reference.joins import simulate_join
from strategies.joins import interval_joins, join_cases, sql_interval_joins
from window_contract import load_implementation, record, watermark
from window_contract.facts import LONG_MAX
from window_contract.features import join_required_features
from window_contract.join_case import IntervalJoin, JoinCase, JoinEvent, SqlIntervalJoin
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import JoinObservation, Pair, SqlRow, join_difference
from window_contract.observation import Error, InputWatermark

LIST = engine_divergences("kafka-streams")
#: The engine's dialect of the model: every switch of its list's join divergences.
KAFKA = dialect_of(d for d in LIST if d.is_join and d.is_switch)


@pytest.fixture(scope="module")
def engine():
    kafka = load_implementation("kafka-streams")
    yield kafka
    kafka.close()


def left(event) -> JoinEvent:
    return JoinEvent("left", event)


def right(event) -> JoinEvent:
    return JoinEvent("right", event)


def marks(*moves: tuple[int, int]) -> tuple[InputWatermark, ...]:
    """The watermarks a join on stream time reports: `(at, stream time)` read as `Watermark(stream time - 1)`."""
    return tuple(InputWatermark(at, time - 1) for at, time in moves)


def test_declares_the_interval_joins_on_the_final_results_engine_only(engine):
    """DataStream's and Flink SQL's interval joins; no window join, coGroup or SQL window join (Kafka has none), and
    `kafka-streams-updates`, the same windows without `suppress`, runs no join (a join has no `suppress`)."""
    assert {"join.interval", "join.sql_interval"} <= engine.features
    assert not {"join.window", "join.cogroup", "join.sql_window", "channels", "negative_timestamps"} & engine.features
    updates = load_implementation("kafka-streams-updates")
    try:
        assert not any(name.startswith("join.") for name in updates.features)
    finally:
        updates.close()


def test_a_pair_comes_out_at_the_second_record_and_stream_time_is_the_watermark(engine):
    """`between(0, 2)`: the right record at 6 joins the left one at 5 as it arrives, with timestamp 6; each record
    moves stream time (the watermarks 4, 5), a listed watermark is a heartbeat one millisecond later (20 gives 20),
    and the end of input a heartbeat on each input at `Long.MAX_VALUE - 2`."""
    case = JoinCase(IntervalJoin(0, 2), (left(record("a", 1, ts=5)), right(record("a", 2, ts=6)),
                                         right(watermark(20))))
    assert engine.run_joins([case]) == [JoinObservation(
        outputs=(Pair(1, "a", 6, 5, 1, 2),), watermarks=marks((0, 5), (1, 6), (2, 21), (3, LONG_MAX - 2)))]


def test_exclusive_bounds_move_by_one_and_a_late_record_still_joins(engine):
    """`between(-1, 3)` with both bounds exclusive is `[0, 2]`: right 12 joins left 10, right 13 does not.
    `between(0, 5)` with the right input's late output: right 11 comes behind the watermark 12 of both inputs, late
    in Flink; in Kafka Streams it still finds left 10 in the left input's store (kept 5 behind that input's 13) and
    joins it: nothing is late."""
    exclusive = JoinCase(IntervalJoin(-1, 3, lower_exclusive=True, upper_exclusive=True),
                         (left(record("a", 1, ts=10)), right(record("a", 2, ts=13)), right(record("a", 3, ts=12))))
    late = JoinCase(IntervalJoin(0, 5, right_late_output=True),
                    (left(record("a", 1, ts=10)), left(watermark(12)), right(watermark(12)),
                     right(record("a", 2, ts=11))))
    moved, joined = engine.run_joins([exclusive, late])
    assert moved.outputs == (Pair(2, "a", 12, 12, 1, 3),)
    assert joined.outputs == (Pair(3, "a", 11, 12, 1, 2),) and joined.late == joined.dropped == ()
    assert [(r.input, r.value) for r in simulate_join(late).late] == [("right", 2)]


def test_sql_outer_joins_pad_rows_when_stream_time_passes_their_window(engine):
    """`-2 <= l.rt - r.rt <= 3`: a left join pads left 10 (its window ends at 12) at right b 30, with its own
    timestamp; a right join (the right stream's `leftJoin`) pads right 10 (its window ends at 13) at the same
    record; a full join of the same events pads both; an inner row carries the larger timestamp."""
    events = (left(record("a", 1, ts=10)), right(record("a", 2, ts=10)), left(record("b", 3, ts=30)))
    lone = (left(record("a", 1, ts=10)), right(record("b", 2, ts=30)))
    cases = [JoinCase(SqlIntervalJoin(-2, 3, "left"), lone, end_of_input=False),
             JoinCase(SqlIntervalJoin(-2, 3, "right"), (right(record("a", 1, ts=10)), left(record("b", 2, ts=30))),
                      end_of_input=False),
             JoinCase(SqlIntervalJoin(-2, 3, "full"), lone, end_of_input=False),
             JoinCase(SqlIntervalJoin(-2, 3), events, end_of_input=False)]
    padded, mirrored, full, inner = (o.outputs for o in engine.run_joins(cases))
    assert padded == (SqlRow(1, "a", 29, 1, None, None, 10),)
    assert mirrored == (SqlRow(1, "a", 29, None, 1, None, 10),)
    assert full == (SqlRow(1, "a", 29, 1, None, None, 10),)  # right b 30's window is still open
    assert inner == (SqlRow(1, "a", 9, 1, 2, None, 10),)


def test_kafka_rejects_a_negative_window_in_its_words(engine):
    rejected = engine.run_joins([JoinCase(IntervalJoin(1, 0), (left(record("a", 1, ts=0)),))])
    assert rejected == [JoinObservation(error=Error(
        "invalid_spec", "Window interval (ie, beforeMs+afterMs) must not be negative."))]


def test_the_list_explains_its_join_cases_and_its_dialect_predicts_them(engine):
    """Each join case of the list differs from Flink on the engine, as its entry's switches (or its explainer)
    explain; the engine's dialect of the model predicts the engine's observation exactly where it runs the job."""
    for divergence in (d for d in LIST if d.is_join):
        cases = divergence.cases()
        for case, actual in zip(cases, engine.run_joins(cases), strict=True):
            assert join_difference(case.expected, actual), case.name
            found = attribute(case, case.expected, actual, LIST)
            assert found.explained_by and divergence.id in found.explained_by, (case.name, found)
            if actual.error is None:
                assert not join_difference(simulate_join(case, KAFKA), actual), case.name


def test_the_committed_join_cases_it_runs_differ_only_as_listed(engine):
    declared = [case for path in sorted(committed("cases/joins").rglob("*.join.json"))
                for case in load_join_cases(path) if join_required_features(case) <= engine.features]
    assert len(declared) >= 20
    for case, actual in zip(declared, engine.run_joins(declared), strict=True):
        assert attribute(case, case.expected, actual, LIST).explained_by is not None, case.name


@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(join_cases(specs=st.one_of(interval_joins(), sql_interval_joins())), min_size=1, max_size=8))
def test_generated_joins_are_what_the_dialect_predicts(engine, cases):
    """Generated interval joins (one channel an input, no negative times: what the engine declares), each request a
    batch: the engine gives what its dialect of the model gives, and the list explains each difference from Flink."""
    cases = [c for c in cases if join_required_features(c) <= engine.features]
    for case, actual in zip(cases, engine.run_joins(cases), strict=True):
        predicted = simulate_join(case, KAFKA)
        if actual.error is None or predicted.error is None:
            assert not join_difference(predicted, actual)
        assert attribute(case, simulate_join(case), actual, LIST).explained_by is not None

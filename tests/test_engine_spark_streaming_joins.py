"""The `spark-streaming` engine's joins: Flink's interval joins as Spark's stream-stream joins, a micro-batch per event.

The translation into micro-batches is checked without Spark; then, in one `run_joins` call (one session, a query per
case, four side by side): hand cases on which Spark agrees with Flink (watermarks above 0 before any record, no
record at or behind the watermark, inner joins), and the join cases under `cases/engines/spark-streaming/`, each of
which Spark answers differently from Flink's `expected`, in the way its name says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engines.spark_streaming_joins import JOIN_END_OF_INPUT, SHIFT, WATERMARK_KEYS, Row, event_rows
from window_contract import load_implementation
from window_contract.case import EndOfChannel, Record, Watermark, WatermarkStatus
from window_contract.facts import LONG_MAX
from window_contract.features import join_required_features
from window_contract.join_case import IntervalJoin, JoinCase, JoinEvent, SqlIntervalJoin
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import Pair, SideRecord, SqlRow, join_difference, join_equivalent

CASES = Path(__file__).parent.parent / "cases" / "engines" / "spark-streaming"


def left(event):
    return JoinEvent("left", event)


def right(event):
    return JoinEvent("right", event)


def both(w: int) -> tuple[JoinEvent, JoinEvent]:
    return left(Watermark(w)), right(Watermark(w))


a = lambda value, ts: Record("a", value, ts)  # noqa: E731

#: Cases on which Spark agrees with Flink: both watermarks above 0 before the first record, no record at or behind
#: the watermark, no padded row (whose timestamp Spark's rows do not carry).
AGREEING = [
    JoinCase(IntervalJoin(-2, 1), (*both(1), left(a(1, 10)), right(a(2, 8)), right(a(3, 7)), right(a(4, 11)),
                                   right(a(5, 12)), *both(20), right(Record("b", 6, 30)), left(Record("b", 7, 31)))),
    JoinCase(IntervalJoin(-2, 2, lower_exclusive=True, upper_exclusive=True),
             (*both(1), right(a(1, 8)), right(a(2, 9)), right(a(3, 11)), right(a(4, 12)), left(a(5, 10)))),
    JoinCase(SqlIntervalJoin(-2, 3), (*both(1), left(a(1, 10)), right(a(2, 12)), right(a(3, 7)), right(a(4, 13)),
                                      right(a(5, 6)), *both(9), right(a(6, 11)))),
    JoinCase(SqlIntervalJoin(0, 0, "full"), (*both(1), left(a(1, 4)), right(a(2, 4)), left(a(3, 6)), right(a(4, 6)))),
]


def divergence_cases() -> dict[str, list[JoinCase]]:
    return {path.name.removesuffix(".join.json"): load_join_cases(path) for path in sorted(CASES.glob("*.join.json"))}


@pytest.fixture(scope="module")
def engine():
    return load_implementation("spark-streaming")


@pytest.fixture(scope="module")
def observed(engine) -> dict[str, list]:
    """Every join case of this module through Spark, in one `run_joins` call."""
    groups = {"agreeing": AGREEING} | divergence_cases()
    cases = [c for group in groups.values() for c in group]
    observations = iter(engine.run_joins(cases))
    return {name: [next(observations) for _ in group] for name, group in groups.items()}


def test_declares_the_interval_joins_not_the_window_joins(engine):
    assert {"join.interval", "join.sql_interval"} <= engine.features
    assert {"join.window", "join.cogroup", "join.sql_window", "channels"}.isdisjoint(engine.features)


def test_every_event_is_a_micro_batch_and_a_watermark_a_row_shifted_above_the_records():
    case = JoinCase(IntervalJoin(0, 1), (left(a(1, 5)), right(Watermark(-3)), right(WatermarkStatus(0, True)),
                                         left(EndOfChannel(0)), left(Watermark(LONG_MAX))))
    assert event_rows(case, {"a": 0}) == [
        [Row("left", "0,0,5")], [Row("right", f"{WATERMARK_KEYS['right']},,{SHIFT - 3}")], [],
        [Row("left", f"-1,,{JOIN_END_OF_INPUT + SHIFT}")], [Row("left", f"-1,,{LONG_MAX}")],
        [Row("left", f"-1,,{JOIN_END_OF_INPUT + SHIFT}"), Row("right", f"-2,,{JOIN_END_OF_INPUT + SHIFT}")]]


@pytest.mark.parametrize("index", range(len(AGREEING)))
def test_hand_cases_agree_with_flink(engine, observed, index):
    case = AGREEING[index]
    assert join_required_features(case) <= engine.features
    flink = load_implementation("reference").run_joins([case])[0]
    assert join_equivalent(flink, observed["agreeing"][index]), join_difference(flink, observed["agreeing"][index])


def outputs_but_watermark(o) -> list:
    return sorted((x.at, x.left, x.right) for x in o.outputs)


def dropped(o) -> set[tuple[int, str]]:
    return {(r.at, r.input) for r in o.dropped}


#: What Spark gives on each case file, beside Flink's `expected`: each a check of the rule the file names.
SPARK_GIVES = {
    "join_watermark_starts_at_zero": [
        lambda flink, spark: outputs_but_watermark(spark) == outputs_but_watermark(flink)
        and {x.watermark for x in spark.outputs} == {0},
        lambda flink, spark: not spark.outputs and dropped(spark) == {(0, "left"), (1, "right")},
        lambda flink, spark: flink.watermarks[0].watermark == -3 and spark.watermarks == flink.watermarks[1:],
    ],
    "join_late_at_watermark": [
        lambda flink, spark: not spark.outputs and dropped(spark) == {(2, "left"), (3, "right")}],
    "join_no_late_side_output": [
        lambda flink, spark: not spark.late and spark.dropped == flink.late],
    "join_no_idleness": [
        lambda flink, spark: not spark.dropped and flink.dropped and [w.watermark for w in spark.watermarks] == [
            LONG_MAX]],
    "join_empty_range_accepted": [
        lambda flink, spark: flink.error.kind == "invalid_spec" and spark.error is None and not spark.outputs],
    "join_time_ends": [
        lambda flink, spark: spark.error.kind == "runtime" and "DATETIME_OVERFLOW" in spark.error.message,
        lambda flink, spark: spark.error.kind == "invalid_spec" and "INVALID_INTERVAL_FORMAT" in spark.error.message,
    ],
    "sql_padded_rows_without_timestamp": [
        lambda flink, spark: [x.timestamp for x in flink.outputs] == [13]
        and spark.outputs == (SqlRow(2, "a", 13, 1, None),)],
    "sql_late_rows_dropped": [
        lambda flink, spark: flink.outputs and not spark.outputs
        and spark.dropped == (SideRecord(3, "left", "a", 2, 9),)],
    "sql_pads_when_watermark_passes": [
        lambda flink, spark: {x.at for x in flink.outputs} == {4}
        and sorted((x.at, x.right) for x in spark.outputs) == [(3, 2), (4, 1)]],
}


def test_every_case_file_has_its_check():
    assert {name: len(cases) for name, cases in divergence_cases().items()} == {
        name: len(checks) for name, checks in SPARK_GIVES.items()}


@pytest.mark.parametrize("name", sorted(SPARK_GIVES))
def test_spark_differs_from_flink_as_each_case_says(observed, name):
    for case, spark, check in zip(divergence_cases()[name], observed[name], SPARK_GIVES[name], strict=True):
        assert not join_equivalent(case.expected, spark), case.name
        assert check(case.expected, spark), f"{case.name}: {join_difference(case.expected, spark)}"


def test_an_interval_join_pair_carries_the_larger_timestamp(observed):
    pairs = [x for x in observed["agreeing"][0].outputs if isinstance(x, Pair)]
    assert sorted((p.left, p.right, p.timestamp) for p in pairs) == [(1, 2, 10), (1, 4, 11), (7, 6, 31)]

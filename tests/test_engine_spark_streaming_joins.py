"""The `spark-streaming` engine's joins: Flink's interval joins as Spark's stream-stream joins, a micro-batch per event.

The translation into micro-batches is checked without Spark; then, in one `run_joins` call (one session, a query per
case, four side by side), hand cases on which Spark agrees with Flink (watermarks above 0 before any record, no
record at or behind the watermark, no padded row but at the end). Where Spark differs, its join divergences are
listed (`cases/engines/spark-streaming/divergences.toml`), and `tests/test_divergences.py` runs each listed case
through the engine and checks that its entry explains what Spark gives.
"""

from __future__ import annotations

import pytest
from join_events import a, both, left, right

from engines.spark_streaming_joins import JOIN_END_OF_INPUT, SHIFT, WATERMARK_KEYS, Row, event_rows
from window_contract import load_implementation
from window_contract.case import EndOfChannel, Record, Watermark, WatermarkStatus
from window_contract.facts import LONG_MAX
from window_contract.features import join_required_features
from window_contract.join_case import IntervalJoin, JoinCase, SqlIntervalJoin
from window_contract.join_observation import Pair, join_difference, join_equivalent

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


@pytest.fixture(scope="module")
def engine():
    return load_implementation("spark-streaming")


@pytest.fixture(scope="module")
def observed(engine) -> dict[str, list]:
    """Every join case of this module through Spark, in one `run_joins` call."""
    return {"agreeing": engine.run_joins(AGREEING)}


def test_declares_the_interval_joins_not_the_window_joins(engine):
    assert {"join.interval", "join.sql_interval"} <= engine.features
    assert {"join.window", "join.cogroup", "join.sql_window", "channels"}.isdisjoint(engine.features)


def test_every_event_is_a_micro_batch_and_a_watermark_a_row_shifted_above_the_records():
    """A record is a row, a watermark a row `SHIFT` above it with its input's key, a status nothing; the end of input
    is a watermark row at `JOIN_END_OF_INPUT` on each input, one after the other, both at the end's position."""
    case = JoinCase(IntervalJoin(0, 1), (left(a(1, 5)), right(Watermark(-3)), right(WatermarkStatus(0, True)),
                                         left(EndOfChannel(0)), left(Watermark(LONG_MAX))))
    end = JOIN_END_OF_INPUT + SHIFT
    assert event_rows(case, {"a": 0}) == [
        (0, [Row("left", "0,0,5")]), (1, [Row("right", f"{WATERMARK_KEYS['right']},,{SHIFT - 3}")]), (2, []),
        (3, [Row("left", f"-1,,{end}")]), (4, [Row("left", f"-1,,{LONG_MAX}")]), (5, [Row("left", f"-1,,{end}")]),
        (5, [Row("right", f"-2,,{end}")])]


@pytest.mark.parametrize("index", range(len(AGREEING)))
def test_hand_cases_agree_with_flink(engine, observed, index):
    case = AGREEING[index]
    assert join_required_features(case) <= engine.features
    flink = load_implementation("reference").run_joins([case])[0]
    assert join_equivalent(flink, observed["agreeing"][index]), join_difference(flink, observed["agreeing"][index])


def test_an_interval_join_pair_carries_the_larger_timestamp(observed):
    pairs = [x for x in observed["agreeing"][0].outputs if isinstance(x, Pair)]
    assert sorted((p.left, p.right, p.timestamp) for p in pairs) == [(1, 2, 10), (1, 4, 11), (7, 6, 31)]

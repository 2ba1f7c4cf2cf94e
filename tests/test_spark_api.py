"""The public API: a user's DataFrame of events gives what the equivalent case gives."""

from __future__ import annotations

import functools

import pytest

from spark_impl import BoundedOutOfOrderness, flink_windows
from spark_impl.implementation import SparkImplementation
from spark_impl.session import get_session
from window_contract import LONG_MAX, Case, record, session, sliding, watermark
from window_contract.observation import Observation

pytestmark = pytest.mark.spark

RECORDS = [("a", 1, 0), ("b", 2, 3), ("a", 3, 12), ("a", 4, 1), ("b", 5, 30), ("a", 6, 2), ("a", 7, 1),
           ("b", 8, 40)]


@functools.cache
def bounded_out_of_orderness_observation() -> Observation:
    """`RECORDS` as a case, with the watermarks `BoundedOutOfOrderness(bound=3, every=3)` makes: after records 2 and
    5 a watermark max(ts) - 3 - 1 (the last two records make no block of three, so no watermark follows them); its
    observation (one Spark job for both arrivals below)."""
    stream = []
    for i, (k, v, ts) in enumerate(RECORDS):
        stream.append(record(k, v, ts))
        if i % 3 == 2:
            stream.append(watermark(max(t for _, _, t in RECORDS[: i + 1]) - 4))
    return SparkImplementation().run([Case(window=sliding(10, 5), allowed_lateness=2, late_side_output=True,
                                           events=stream)])[0]


@pytest.mark.parametrize("arrival", [lambda i: i, lambda i: 3 * i + i % 2], ids=["consecutive", "with gaps"])
def test_bounded_out_of_orderness_matches_the_case_with_those_watermarks(arrival):
    """Consecutive arrivals take the blocks, arrivals with gaps the scan in arrival order: the same watermarks."""
    spark = get_session()
    events = spark.createDataFrame([(k, ts, f"p{v}", arrival(i)) for i, (k, v, ts) in enumerate(RECORDS)],
                                   "key string, ts long, payload string, arrival long")
    out = flink_windows(events, sliding(10, 5), allowed_lateness=2,
                        watermarks=BoundedOutOfOrderness(bound=3, every=3)).persist()  # three of them read
    expected = bounded_out_of_orderness_observation()
    assert expected.firings and expected.late  # the case exercises both outputs
    firings = out.firings.collect()
    assert sorted((r.key, r.window_start, r.window_end, tuple(r.values), r.watermark) for r in firings) == sorted(
        (f.key, f.window.start, f.window.end, tuple(f"p{v}" for v in f.values), f.watermark)
        for f in expected.firings)
    assert {r.cause for r in firings if r.watermark == LONG_MAX} == {"end_of_input"}
    assert {(r.key, r.ts, r.payload) for r in out.late.collect()} == {
        (r.key, r.ts, f"p{r.value}") for r in expected.late}
    assert out.errors.count() == 0
    out.unpersist()


def test_explicit_watermarks_and_rejected_specs():
    spark = get_session()
    events = spark.createDataFrame([("k", 5, 7, 0), ("k", 6, 8, 1)], "key string, ts long, payload long, arrival long")
    marks = spark.createDataFrame([(0, 9)], "arrival long, watermark long")
    out = flink_windows(events, sliding(10, 10), watermarks=marks).persist()
    assert all(frame.is_cached for frame in out.shared) and not out.outputs.is_cached
    # The firings compute the windows in their own query, straight to where they go; the late records are read
    # from what the four share, and compute no window.
    assert "collect_list" in optimized_plan(out.firings) and "collect_list" not in optimized_plan(out.late)
    assert [(r.arrival, r.cause, r.values) for r in out.firings.collect()] == [(0, "watermark", [7])]
    assert [(r.key, r.ts, r.payload, r.arrival, r.cause) for r in out.late.collect()] == [("k", 6, 8, 1, "record")]
    out.unpersist()
    assert not any(frame.is_cached for frame in out.shared)
    replayed = flink_windows(events, session(5), watermarks=marks).persist()  # no relational plan: one replay
    assert replayed.shared == (replayed.outputs,) and replayed.outputs.is_cached
    assert sorted((r.window_start, r.values) for r in replayed.firings.collect()) == [(5, [7]), (6, [8])]
    replayed.unpersist()
    with pytest.raises(ValueError, match="abs\\(offset\\) < slide"):
        flink_windows(events, sliding(10, 0), watermarks=marks)
    with pytest.raises(ValueError, match="^The allowed lateness cannot be negative.$"):
        flink_windows(events, sliding(10, 10), watermarks=marks, allowed_lateness=-1)


def optimized_plan(frame) -> str:
    return frame._jdf.queryExecution().optimizedPlan().toString()

"""The live form of the Spark semantics (`spark_impl.live`, `spark-live`): a shard fed the log in pieces is the
per-key replay, and a streaming query's output does not depend on where its micro-batches split."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zlib
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import Phase, assume, given, settings
from hypothesis import strategies as st

from reference.implementation import ReferenceImplementation
from spark_impl.frames import RECORD, events_table
from spark_impl.grouped import output_rows
from spark_impl.live_implementation import FEATURES, SparkLiveImplementation, cuts
from spark_impl.live_shard import OUT_OF_ORDER, Clocks, ShardOperator, thaw
from spark_impl.operator import simulate
from spark_impl.spec import invalid_spec_message, operator_spec
from strategies import cases
from window_contract import Case, record, tumbling, watermark
from window_contract.case_json import load_cases
from window_contract.difference import difference
from window_contract.equivalence import equivalent
from window_contract.features import ALL_FEATURES, required_features


def replayed(case: Case) -> dict[str, list[dict]]:
    """Each key's outputs by the batch replay (`operator.simulate`, every clock event given to every key), in the
    order it emitted them."""
    events = events_table([(0, case)]).to_pylist()
    keys = dict.fromkeys(e["key"] for e in events if e["kind"] == RECORD)
    spec = operator_spec(case)
    def of(key: str) -> list[tuple]:
        return [(e["at"], e["kind"], e["value"], e["ts"]) for e in events if e["kind"] != RECORD or e["key"] == key]

    return {key: sorted(output_rows(0, key, simulate(spec, key, of(key))), key=lambda row: row["at"]) for key in keys}


def live(case: Case, shards: int, pieces: list[int]) -> dict[str, list[dict]]:
    """Each key's outputs by `shards` shards fed the case's events cut at `pieces`, frozen between pieces."""
    events = events_table([(0, case)]).to_pylist()
    spec, clocks, stored = operator_spec(case), [Clocks() for _ in range(shards)], [{} for _ in range(shards)]
    found: dict[str, list[dict]] = defaultdict(list)
    points = [0, *pieces, len(events)]
    for start, end in zip(points, points[1:], strict=False):
        for s in range(shards):
            mine = [(e["at"], e["kind"], e["key"], e["value"], e["ts"]) for e in events[start:end]
                    if e["kind"] != RECORD or zlib.crc32(e["key"].encode()) % shards == s]
            shard = ShardOperator(spec, clocks[s],
                                  lambda k, s=s: thaw(stored[s][k], spec, k) if k in stored[s] else None)
            shard.apply(reversed(mine))  # a micro-batch's rows in any order
            for row in shard.outputs(0):
                found[row.pop("key")].append(row)
            stored[s] |= shard.stored()
    return found


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(cases(FEATURES, report=False), st.integers(1, 3), st.randoms(use_true_random=False))
def test_shards_fed_in_pieces_emit_what_the_replay_emits_per_key(case, shards, rng):
    assume(invalid_spec_message(case) is None)
    want = replayed(case)
    assume(not any(row["kind"] == "error" for rows in want.values() for row in rows))  # a failure stops a shard
    got = live(case, shards, cuts(len(events_table([(0, case)])), rng.choice([None, 1, 2, 5]), rng))
    for key, rows in want.items():
        assert [row["seq"] for row in got.get(key, [])] == list(range(len(rows)))
        assert [{k: v for k, v in row.items() if k not in ("key", "seq")} for row in got.get(key, [])] == \
            [{k: v for k, v in row.items() if k != "key"} for row in rows], key
    assert set(got) <= set(want)


def test_an_event_out_of_the_logs_order_fails_the_shard():
    case = Case(window=tumbling(10), events=(record("a", 1, ts=1), watermark(5)))
    spec, clocks = operator_spec(case), Clocks()
    ShardOperator(spec, clocks, lambda key: None).apply([(4, RECORD, "a", 1, 1)])
    late = ShardOperator(spec, clocks, lambda key: None)
    late.apply([(3, RECORD, "a", 2, 2), (5, RECORD, "a", 3, 3)])
    assert [(r["at"], r["message"]) for r in late.outputs(0)] == [(3, OUT_OF_ORDER.format(at=3, last=4))]
    assert clocks.failed


def test_cuts_are_distinct_points_inside_the_case():
    rng = random.Random(0)
    assert cuts(5, None, rng) == [1, 2, 3, 4]
    assert cuts(5, 1, rng) == []
    assert cuts(2, 4, rng) == [1]
    assert len(set(cuts(50, 4, rng))) == 3


# --- a real streaming query --------------------------------------------------------------------------------------

SPLITTINGS = [SparkLiveImplementation(pieces=1), SparkLiveImplementation(pieces=3, seed=1, shards=1),
              SparkLiveImplementation(pieces=6, seed=2, shards=3)]


@pytest.mark.spark
@settings(max_examples=1, derandomize=True, database=None, deadline=None,
          phases=[Phase.explicit, Phase.generate])  # a streaming query a splitting: one large example
@given(st.lists(cases(FEATURES, report=False), min_size=40, max_size=40))
def test_the_output_does_not_depend_on_where_micro_batches_split(batch):
    want = ReferenceImplementation().run(batch)
    for splitting in SPLITTINGS:
        for case, got, expected in zip(batch, splitting.run(batch), want, strict=True):
            assert not difference(expected, got), f"pieces={splitting.pieces} {case}:\n{difference(expected, got)}"


@pytest.mark.spark
def test_every_event_a_micro_batch_of_its_own():
    batch = [Case(window=tumbling(1000), allowed_lateness=500, late_side_output=True,
                  events=(record("a", 1, ts=999), record("b", 7, ts=5), watermark(999), record("a", 2, ts=10),
                          watermark(1499), record("a", 3, ts=20)))]
    assert SparkLiveImplementation(pieces=None).run(batch) == ReferenceImplementation().run(batch)


@pytest.mark.spark
def test_the_pages_live_example_runs_as_written():
    from test_spark_readme import examples

    scope: dict = {}
    exec(examples()[2], scope)  # noqa: S102 (the page's own code)
    assert [(r["key"], r["window_start"], r["values"], r["watermark"], r["arrival"], r["seq"])
            for r in sorted(scope["firings"], key=lambda r: r["seq"])] == [
        ("sensor-1", 0, [1], 9_999, 2, 0), ("sensor-1", 0, [1, 3], 9_999, 3, 1)]
    assert [(r["key"], r["ts"], r["payload"], r["arrival"]) for r in scope["late"]] == [("sensor-1", 4_000, 4, 5)]


def test_declares_every_feature_but_the_watermarks_flink_makes_upstream_and_flink_sqls_emit_strategy():
    assert ALL_FEATURES - FEATURES == {
        "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.legacy_bounded_out_of_orderness",
        "watermark.legacy_ascending", "watermark.periodic", "watermark.punctuated", "watermark.idleness", "channels",
        "channel.status", "channel.end", "trigger.after_end_of_window", "trigger.after_end_of_window.delay"}


@pytest.mark.engine_suite
def test_the_suite_holds_spark_live_to_the_reference(tmp_path):
    """`spark-live`'s step of `./dev test`: the property suite on the `ci-slow` budget conforms (every property that
    applies holds on every declared feature)."""
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--impl", "spark-live", "--profile", "ci-slow",
                           "--out", str(tmp_path / "report")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    [impl] = report["implementations"]
    passed = [p["property"] for p in impl["properties"] if p["outcome"] == "passed"]
    assert impl["outcome"] == "conforms" and "matches_reference" in passed and len(passed) >= 20, passed


@pytest.mark.spark
def test_spark_streamings_divergences_without_a_generator_come_out_as_flinks():
    """The minimal cases of `spark-streaming`'s list that need no watermark generator (a session late before its
    merge, a window closing at its end, a slide above the size, too many windows) give Flink's observation here; the
    others are about Spark's own watermark (`withWatermark`), which the live query does not use."""
    folder = Path(__file__).resolve().parents[1] / "cases" / "engines" / "spark-streaming"
    listed = [case for path in sorted(folder.glob("*.json")) for case in load_cases(path)]
    fitting = [case for case in listed if required_features(case) <= FEATURES]
    assert len(fitting) == 4 and len(listed) == 11
    for case, got in zip(fitting, SparkLiveImplementation().run(fitting), strict=True):
        assert equivalent(case.expected, got), case.name


@pytest.mark.spark
def test_a_stream_the_live_query_cannot_run_is_refused_in_one_line(tmp_path):
    from spark_impl.live import STATE_STORE, flink_windows_live
    from spark_impl.session import get_session

    spark = get_session()
    spark.conf.set(*STATE_STORE)
    schema = "key string, ts long, payload long, arrival long, watermark long"
    stream = spark.readStream.schema(schema).json(str(tmp_path))
    refused = {
        "stream has no column 'time' (columns: key, ts, payload, arrival, watermark)": dict(timestamp="time"),
        "the payload column 'key' must be integral (a long), not StringType()": dict(payload="key"),
        "TumblingEventTimeWindows parameters must satisfy abs(offset) < size": dict(window=tumbling(10, offset=10)),
        "shards must be >= 1, not 0": dict(shards=0),
    }
    for message, arguments in refused.items():
        with pytest.raises(ValueError) as error:
            flink_windows_live(stream, **{"window": tumbling(10), **arguments})
        assert str(error.value) == message
    spark.conf.unset(STATE_STORE[0])
    try:
        with pytest.raises(ValueError, match="RocksDBStateStoreProvider") as error:
            flink_windows_live(stream, tumbling(10))
        assert "\n" not in str(error.value)
    finally:
        spark.conf.set(*STATE_STORE)

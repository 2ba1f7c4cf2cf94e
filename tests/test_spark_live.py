"""The live form of the Spark semantics (`spark_impl.live`, `spark-live`): a shard fed the log in pieces is the
per-key replay, and a streaming query's output does not depend on where its micro-batches split."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest
from costly_examples import not_the_simplest
from hypothesis import Phase, assume, given, settings
from hypothesis import strategies as st

from reference.implementation import ReferenceImplementation
from spark_impl.frames import RECORD, events_table
from spark_impl.grouped import output_rows
from spark_impl.live_implementation import FEATURES, SparkLiveImplementation, cuts
from spark_impl.live_shard import OUT_OF_ORDER, Clocks, ShardOperator, thaw
from spark_impl.operator import KeyedWindowOperator, replayed
from spark_impl.spec import invalid_spec_message, operator_spec
from strategies import cases
from strategies.watermarks import generated_watermark_cases
from window_contract import Case, record, tumbling, watermark
from window_contract.case import (
    EVENTS,
    GENERATORS,
    IDLENESS,
    PERIODIC,
    PUNCTUATED,
    BoundedOutOfOrdernessWatermarks,
    ProcessingTime,
    Record,
)
from window_contract.case_json import JOIN_CASES_SUFFIX, load_cases
from window_contract.difference import difference
from window_contract.equivalence import equivalent
from window_contract.features import ALL_FEATURES, CHANNELS, required_features


def replay(case: Case) -> dict[str, KeyedWindowOperator]:
    """Each key's operator after the batch replay (`operator.replayed`, every clock event given to every key)."""
    events = events_table([(0, case)]).to_pylist()
    keys = dict.fromkeys(e["key"] for e in events if e["kind"] == RECORD)
    spec = operator_spec(case)

    def of(key: str) -> list[tuple]:
        return [(e["at"], e["kind"], e["value"], e["ts"]) for e in events if e["kind"] != RECORD or e["key"] == key]

    return {key: replayed(spec, key, of(key)) for key in keys}


def emitted(op: KeyedWindowOperator) -> list[dict]:
    """A key's outputs in the order the replay emitted them."""
    return sorted(output_rows(0, op.key, op.out), key=lambda row: row["at"])


@dataclass
class Live:
    """What `shards` shards fed a case in pieces emitted (each key's rows in the order it emitted them) and kept:
    each shard's keys' frozen operators, and how many of them it held at most, after any piece."""

    outputs: dict[str, list[dict]]
    stored: list[dict[str, bytes]]
    most_held: int


def live(case: Case, shards: int, pieces: list[int]) -> Live:
    """`shards` shards fed the case's events cut at `pieces`, frozen between pieces, as `live.ShardProcessor` keeps
    them (a key stored as None is removed)."""
    events = events_table([(0, case)]).to_pylist()
    spec, clocks, stored = operator_spec(case), [Clocks() for _ in range(shards)], [{} for _ in range(shards)]
    found: dict[str, list[dict]] = defaultdict(list)
    points, most = [0, *pieces, len(events)], 0
    for start, end in zip(points, points[1:], strict=False):
        for s in range(shards):
            mine = [(e["at"], e["kind"], e["key"], e["value"], e["ts"]) for e in events[start:end]
                    if e["kind"] != RECORD or zlib.crc32(e["key"].encode()) % shards == s]
            shard = ShardOperator(spec, clocks[s],
                                  lambda k, s=s: thaw(stored[s][k], spec, k) if k in stored[s] else None)
            shard.apply(reversed(mine))  # a micro-batch's rows in any order
            for row in shard.outputs(0):
                found[row.pop("key")].append(row)
            for key, frozen in shard.stored().items():
                if frozen is None:
                    stored[s].pop(key, None)
                else:
                    stored[s][key] = frozen
        most = max(most, sum(map(len, stored)))
    return Live(found, stored, most)


#: What Flink makes upstream of the window operator, which the query's first stage makes (`spark_impl.live_fold`).
UPSTREAM = frozenset([k.feature.name for k in GENERATORS] + [k.feature.name for k in EVENTS if k.feature]
                     + [f.name for f in (PERIODIC, PUNCTUATED, IDLENESS, CHANNELS)])


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(cases(FEATURES - UPSTREAM, report=False), st.integers(1, 3), st.randoms(use_true_random=False))
def test_shards_fed_in_pieces_emit_what_the_replay_emits_per_key_and_keep_only_what_flink_holds(case, shards, rng):
    assume(invalid_spec_message(case) is None)
    want = replay(case)
    assume(not any(op.out.error for op in want.values()))  # a failure stops a shard
    got = live(case, shards, cuts(len(events_table([(0, case)])), rng.choice([None, 1, 2, 5]), rng))
    for key, op in want.items():
        rows = got.outputs.get(key, [])
        # (at, seq) orders a key's outputs: seq numbers them within their event
        assert [(row["at"], row["seq"]) for row in rows] == sorted((row["at"], row["seq"]) for row in rows)
        assert [row["seq"] for row in rows] == [
            sum(other["at"] == row["at"] for other in rows[:i]) for i, row in enumerate(rows)]
        assert [{k: v for k, v in row.items() if k != "seq"} for row in rows] == \
            [{k: v for k, v in row.items() if k != "key"} | {"slot": 0} for row in emitted(op)], key
    assert set(got.outputs) <= set(want)
    # a key is kept exactly while Flink holds state for it: none once its windows are cleaned up
    assert {k for shard in got.stored for k in shard} == {k for k, op in want.items() if op.holds_state()}
    for shard in got.stored:
        for key, frozen in shard.items():
            assert thaw(frozen, operator_spec(case), key).holds_state()


def test_a_keys_state_is_removed_once_its_windows_are_cleaned_up():
    """A thousand keys, each with a window that fires and is cleaned up: the shards then hold no key, and a key seen
    again starts afresh with the shards' clocks (its record late for the window the watermark passed)."""
    events = [record(f"k{i}", i, ts=i % 10) for i in range(1000)]
    case = Case(window=tumbling(10), allowed_lateness=5, late_side_output=True,
                events=(*events, watermark(9), record("k1", 1, ts=3), watermark(14), record("k1", 2, ts=4),
                        record("k2", 3, ts=12)), end_of_input=False)
    got = live(case, 2, [1000, 1002])
    assert got.most_held == 1000 and [sorted(shard) for shard in got.stored] in ([["k2"], []], [[], ["k2"]])
    assert [(row["kind"], row["at"], row.get("values"), row["seq"]) for row in got.outputs["k1"]] == [
        ("firing", 1000, [1], 0), ("firing", 1001, [1, 1], 0), ("late", 1003, None, 0)]


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
@given(st.lists(cases(FEATURES, report=False), min_size=40, max_size=40),
       st.lists(generated_watermark_cases(FEATURES, mixed=True), min_size=20, max_size=20))
def test_the_output_does_not_depend_on_where_micro_batches_split(drawn, made_upstream):
    """Any case, and cases whose watermarks Flink makes (generators, periodic emission on the log's clock, idleness,
    channels): the same observations, Flink's, however the micro-batches split them."""
    not_the_simplest(drawn, made_upstream)
    batch = drawn + made_upstream
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
            for r in sorted(scope["firings"], key=lambda r: (r["arrival"], r["seq"]))] == [
        ("sensor-1", 0, [1], 9_999, 2, 0), ("sensor-1", 0, [1, 3], 9_999, 3, 0)]
    assert [(r["key"], r["ts"], r["payload"], r["arrival"]) for r in scope["late"]] == [("sensor-1", 4_000, 4, 5)]


def test_declares_every_feature_of_the_batch_replay():
    assert FEATURES == ALL_FEATURES


@pytest.mark.engine_suite
def test_the_suite_holds_spark_live_to_the_reference(tmp_path):
    """`spark-live`'s step of `./dev test`: the property suite on the `ci-slow` budget conforms (every property that
    applies holds on every declared feature, the watermarks Flink makes among them)."""
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--impl", "spark-live", "--profile", "ci-slow",
                           "--out", str(tmp_path / "report")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    [impl] = report["implementations"]
    passed = [p["property"] for p in impl["properties"] if p["outcome"] == "passed"]
    assert impl["outcome"] == "conforms" and len(passed) >= 28, passed
    assert {"matches_reference", "watermark_cases_match_reference", "idle_channel_does_not_hold_windows_back"} <= \
        set(passed), passed


@pytest.mark.spark
def test_spark_streamings_divergences_come_out_as_flinks():
    """Every minimal case of `spark-streaming`'s list (a session late before its merge, a window closing at its end,
    a slide above the size, too many windows, and those about Spark's own watermark: one higher than Flink's
    generator makes, from 0, never at the end of input) gives Flink's observation here, Flink's generator included."""
    folder = Path(__file__).resolve().parents[1] / "cases" / "engines" / "spark-streaming"
    listed = [case for path in sorted(folder.glob("*.json")) if not path.name.endswith(JOIN_CASES_SUFFIX)
              for case in load_cases(path)]  # its join divergences' cases are two-input joins, which live does not run
    assert len(listed) == 11 and all(required_features(case) <= FEATURES for case in listed)
    assert sum(case.watermark_generator is not None for case in listed) >= 5
    for case, got in zip(listed, SparkLiveImplementation().run(listed), strict=True):
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
        "with a watermark generator Flink makes the watermarks: the log has no watermark rows (watermark=None)":
            dict(watermarks=BoundedOutOfOrdernessWatermarks(5)),
        "channels=2 needs the records' input channel: channel='<column>'": dict(channels=2),
        "the processing_time column 'key' must be integral (a long), not StringType()": dict(processing_time="key"),
        "maxOutOfOrderness cannot be negative": dict(watermarks=BoundedOutOfOrdernessWatermarks(-1), watermark=None),
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


def live_rows(case: Case) -> list[dict]:
    """A case's events as a user's log: records with their channel, clock readings as rows of their own."""
    return [{"key": e.key, "ts": e.ts, "payload": e.value, "channel": e.channel, "arrival": at}
            if isinstance(e, Record) else {"clock": e.time, "arrival": at} for at, e in enumerate(case.events)]


@pytest.mark.spark
def test_a_live_query_makes_its_watermarks_with_flinks_generator_on_the_logs_clock(tmp_path):
    """The README's generator case (two channels, `forBoundedOutOfOrderness(5)` every 100 ms, idle after 250 ms) as a
    user's log in three files: the query receives the watermarks Flink's operator receives, when it does, and fires
    what it fires."""
    from spark_impl.live import STATE_STORE, flink_windows_live, outputs_by_kind
    from spark_impl.session import get_session

    generator = BoundedOutOfOrdernessWatermarks(5, interval=100, idleness=250)
    case = Case(window=tumbling(10), channels=2, watermark_generator=generator, end_of_input=False, events=(
        record("a", 1, ts=5), record("a", 2, ts=50, channel=1), ProcessingTime(101), record("a", 3, ts=60),
        ProcessingTime(202), record("a", 4, ts=70), ProcessingTime(604)))
    spark = get_session()
    spark.conf.set(*STATE_STORE)
    schema = "key string, ts long, payload long, channel long, arrival long, clock long"
    out = flink_windows_live(spark.readStream.schema(schema).json(str(tmp_path)), tumbling(10), watermarks=generator,
                             channels=2, channel="channel", processing_time="clock", watermark=None, shards=2)
    firings, received = [], []

    def write(batch, batch_id):
        split = outputs_by_kind(batch)
        firings.extend((r.arrival, r.key, r.window_start, tuple(r["values"]), r.watermark) for r in split[0].collect())
        received.extend((r.arrival, r.watermark) for r in split[4].collect())

    query = out.outputs.writeStream.outputMode("append").foreachBatch(write).start()
    rows = live_rows(case)
    try:
        for i, piece in enumerate((rows[:3], rows[3:5], rows[5:])):
            (tmp_path / f"{i}.json").write_text("\n".join(json.dumps(row) for row in piece))
            query.processAllAvailable()
    finally:
        query.stop()
    expected = ReferenceImplementation().run([case])[0]
    assert sorted(firings) == [(f.at, f.key, f.window.start, f.values, f.watermark) for f in expected.firings] == [
        (4, "a", 0, (1,), 44), (6, "a", 50, (2,), 64)]
    assert sorted(received) == [(w.at, w.watermark) for w in expected.watermarks]


@pytest.mark.spark
def test_a_row_the_live_query_cannot_take_stops_it_with_a_line_naming_its_arrival(tmp_path):
    from pyspark.errors import StreamingQueryException

    from spark_impl.live import STATE_STORE, flink_windows_live
    from spark_impl.session import get_session

    spark = get_session()
    spark.conf.set(*STATE_STORE)
    schema = "key string, ts long, payload long, arrival long, clock long"
    out = flink_windows_live(spark.readStream.schema(schema).json(str(tmp_path)), tumbling(10),
                             watermarks=BoundedOutOfOrdernessWatermarks(5), processing_time="clock", watermark=None)
    (tmp_path / "0.json").write_text(json.dumps({"key": "a", "ts": 1, "payload": 1, "arrival": 7, "clock": 5}))
    query = out.outputs.writeStream.outputMode("append").format("noop").start()
    try:
        with pytest.raises(StreamingQueryException) as stopped:
            query.processAllAvailable()
    finally:
        query.stop()
    assert ("arrival 7: a row of the log is exactly one of a record ('key' set), a clock reading ('clock' set)"
            in str(stopped.value))

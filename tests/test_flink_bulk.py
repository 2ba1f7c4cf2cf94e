"""flink_impl's bulk mode: an event log streamed through real Flink's window operator gives what the Spark replay
(`spark_impl/replay_job.py`) gives on the same log, from Parquet or JSON lines, without the JVM holding the log."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from flink_impl import bulk
from flink_impl.bulk import run_bulk
from window_contract.case import tumbling

pytestmark = pytest.mark.flink

WINDOW = ("--sliding", "100", "20")


def trace(records: int) -> pa.Table:
    """Records with out-of-order timestamps, some delayed past the allowed lateness (late), in arrival order."""
    rng = np.random.default_rng(7)
    i = np.arange(records)
    delay = np.where(rng.random(records) < 0.1, rng.integers(0, 400, records), rng.integers(0, 20, records))
    return pa.table({"arrival": i * 3, "sensor": (i % 7).astype(str), "ts": i - delay, "reading": i * 10})


def outputs(folder: Path) -> dict[str, Counter]:
    found = {}
    for name in ("firings", "late", "dropped"):
        rows = pq.read_table(folder / name).to_pylist()
        found[name] = Counter(tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in r.items()))
                              for r in rows)
    return found


@pytest.mark.spark
def test_the_bulk_mode_gives_the_spark_replays_outputs_from_parquet_and_json_lines(tmp_path):
    from spark_impl import replay_job
    from spark_impl.session import get_session

    # `replay_job.main` takes the active session, as a spark-submit driver does: in this process it must be the
    # suite's, whose Python workers run this interpreter; one made by `main` first would run `python3` from the PATH
    # for every later test of this pytest-xdist worker (no pyarrow there).
    get_session()
    log = trace(2_000)
    pq.write_table(log, tmp_path / "events.parquet")
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in log.to_pylist()))
    options = ["--lateness", "40", "--bound", "10", "--every", "50", "--key", "sensor", "--payload", "reading"]
    replay_job.main(["--events", str(tmp_path / "events.parquet"), "--out", str(tmp_path / "spark"), *WINDOW,
                     *options])
    spark = outputs(tmp_path / "spark")
    assert sum(spark["firings"].values()) > 500 and sum(spark["late"].values()) > 10
    assert any(dict(f)["cause"] == "record" for f in spark["firings"])  # late firings, within the lateness
    for events in ("events.parquet", "events.jsonl"):  # the same command line (`window_contract.log_options`)
        bulk.main(["--events", str(tmp_path / events), "--out", str(tmp_path / events.split(".")[1]), *WINDOW,
                   *options])
        assert outputs(tmp_path / events.split(".")[1]) == spark, events


def test_the_job_streams_a_log_far_larger_than_its_heap(tmp_path):
    """100,000 records with keys of 1,000 characters: some 100 MB held as Java strings, against a 32 MB heap."""
    records, batch = 100_000, 20_000
    keys = np.array([f"{k:04d}" * 250 for k in range(100)])
    schema = pa.schema([("arrival", pa.int64()), ("key", pa.string()), ("ts", pa.int64()), ("payload", pa.int64())])
    with pq.ParquetWriter(tmp_path / "events.parquet", schema) as writer:
        for low in range(0, records, batch):
            i = np.arange(low, low + batch)
            writer.write_table(pa.table({"arrival": i, "key": keys[i % 100], "ts": i, "payload": i}, schema=schema))
    run_bulk(tmp_path / "events.parquet", tmp_path / "out", tumbling(1_000), bound=0, every=1_000,
             jvm_options=("-Xmx32m", "-XX:MaxDirectMemorySize=128m", "-XX:+UseSerialGC"))
    fired = pq.read_table(tmp_path / "out" / "firings")
    assert fired.num_rows == 100 * records // 1_000  # every key in every window of 1,000 ms
    assert sum(len(v) for v in fired.column("values").to_pylist()) == records


def test_records_out_of_arrival_order_are_refused_naming_the_column(tmp_path):
    pq.write_table(pa.table({"arrival": [0, 2, 1], "key": ["a"] * 3, "ts": [0, 1, 2], "payload": [1, 2, 3]}),
                   tmp_path / "events.parquet")
    with pytest.raises(ValueError, match="'arrival' must increase"):
        run_bulk(tmp_path / "events.parquet", tmp_path / "out", tumbling(10), bound=0, every=1)

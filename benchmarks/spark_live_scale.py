"""The streaming twin of `spark_scale.py`: N records fed to the live query (`spark_impl.live`) in micro-batches of B,
against the batch replay (`flink_windows`) on the same log, outputs equal row for row.

    python benchmarks/spark_live_scale.py --records 100000 --batch 10000

The log: record i has key i mod `--keys` (with `--churn C`, a fresh set of `--keys` keys every C records, as
sessions or devices that come and go) and a timestamp a little before i (one record per ms of event time), nine
in ten out of order by up to half the bound, one in ten delayed by up to 1.5 x (bound + window size + lateness), so
some fire their windows late and some are late for every window (the side output); sliding windows (size = 10 x
slide), allowed lateness, a watermark `max ts - bound - 1` after every `--every` records, and the end of input. The
live query gets the log as rows (record i at arrival 2i, the watermark after it at 2i + 1, the end at 2N) from a
memory source, B records (and their watermarks) a micro-batch, `processAllAvailable` after each; it prints the
time of each micro-batch and the state Spark reports (rows and bytes of the stateful operator) after each, beside
the keys seen so far: a key's state goes once its windows are cleaned up, so the state follows the keys that have
windows, not the keys seen.
The replay gets the same records (arrival i) and watermarks (`arrival, watermark`: after record i).

Both outputs are collected and compared as multisets of rows (key, window, values in arrival order, watermark and
the position: the record or the watermark after it, or the end). The machine is shared: 100,000 records at most.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl import flink_windows
from spark_impl.javalong import LONG_MAX
from spark_impl.live import STATE_STORE, flink_windows_live, outputs_by_kind
from spark_impl.session import get_session
from window_contract import sliding

MAX_RECORDS = 100_000


def log(records: int, keys: int, bound: int, size: int, lateness: int, every: int, churn: int = 0, seed: int = 1):
    """The records `(key, ts, payload)` in arrival order and the watermarks `(after record i, watermark)`."""
    rng = random.Random(seed)
    rows, marks, highest = [], [], None
    for i in range(records):
        late = rng.random() < 0.1
        ts = i - rng.randrange(int(1.5 * (bound + size + lateness)) if late else bound // 2 + 1)
        generation = i // churn if churn else 0
        rows.append((f"k{generation * keys + i % keys}", ts, i))
        highest = ts if highest is None else max(highest, ts)
        if (i + 1) % every == 0:
            marks.append((i, highest - bound - 1))
    return rows, marks


def live_rows(rows, marks, start: int, end: int) -> list[str]:
    """Records `start..end` and the watermarks after them as the live query's JSON lines."""
    after = dict(marks)
    out = []
    for i in range(start, end):
        key, ts, payload = rows[i]
        out.append(f'{{"key":"{key}","ts":{ts},"payload":{payload},"arrival":{2 * i}}}')
        if i in after:
            out.append(f'{{"watermark":{after[i]},"arrival":{2 * i + 1}}}')
    return out


def run_live(spark, rows, marks, window, lateness: int, batch: int):
    jvm = spark._jvm
    source = jvm.org.apache.spark.sql.execution.streaming.runtime.MemoryStream.apply(
        jvm.org.apache.spark.sql.Encoders.STRING(), spark._jsparkSession)
    lines = DataFrame(source.toDF(), spark).select(F.explode(F.split("value", "\n")).alias("line"))
    stream = lines.select(F.from_json("line", "key string, ts long, payload long, arrival long, watermark long")
                          .alias("r")).select("r.*")
    out = flink_windows_live(stream, window, allowed_lateness=lateness)
    firings, late = [], []

    def write(micro_batch, batch_id):
        micro_batch.persist()  # read twice: computed once
        split = outputs_by_kind(micro_batch)
        firings.extend(split[0].collect())
        late.extend(split[1].collect())
        micro_batch.unpersist()

    query = out.outputs.writeStream.outputMode("append").foreachBatch(write).start()
    as_seq = jvm.scala.jdk.javaapi.CollectionConverters.asScala
    times, states, seen = [], [], set()
    try:
        for start in range(0, len(rows), batch):
            end = min(start + batch, len(rows))
            lines = live_rows(rows, marks, start, end)
            if end == len(rows):
                lines.append(f'{{"watermark":{LONG_MAX},"arrival":{2 * len(rows)}}}')
            began = time.perf_counter()
            source.addData(as_seq(["\n".join(lines)]).toSeq())
            query.processAllAvailable()
            times.append(time.perf_counter() - began)
            seen.update(key for key, _, _ in rows[start:end])
            states.append((len(seen), query.lastProgress["stateOperators"][0] if query.lastProgress else {}))
    finally:
        query.stop()
    end = 2 * len(rows)

    def position(arrival: int):
        return "end" if arrival == end else (arrival // 2, "record" if arrival % 2 == 0 else "watermark")

    return (Counter((r.key, r.window_start, r.window_end, tuple(r.values), r.watermark, position(r.arrival))
                    for r in firings),
            Counter((r.key, r.ts, r.payload, position(r.arrival)) for r in late), times, states)


def run_replay(spark, rows, marks, window, lateness: int):
    events = spark.createDataFrame([(k, ts, p, i) for i, (k, ts, p) in enumerate(rows)],
                                   "key string, ts long, payload long, arrival long")
    watermarks = spark.createDataFrame(marks, "arrival long, watermark long")
    began = time.perf_counter()
    out = flink_windows(events, window, watermarks=watermarks, allowed_lateness=lateness).persist()

    def position(r):
        return "end" if r.cause == "end_of_input" else (r.arrival, r.cause)

    firings = Counter((r.key, r.window_start, r.window_end, tuple(r["values"]), r.watermark, position(r))
                      for r in out.firings.collect())
    late = Counter((r.key, r.ts, r.payload, position(r)) for r in out.late.collect())
    out.unpersist()
    return firings, late, time.perf_counter() - began


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=20_000)
    p.add_argument("--batch", type=int, default=5_000, help="records a micro-batch")
    p.add_argument("--keys", type=int, default=100)
    p.add_argument("--slide", type=int, default=100)
    p.add_argument("--lateness", type=int, default=500)
    p.add_argument("--bound", type=int, default=200)
    p.add_argument("--every", type=int, default=100, help="a watermark after every N records")
    p.add_argument("--churn", type=int, default=0, help="a fresh set of --keys keys every N records (0: never)")
    args = p.parse_args()
    if not 1 <= args.records <= MAX_RECORDS:
        p.error(f"--records must be in 1..{MAX_RECORDS} (the machine is shared)")
    spark = get_session()
    spark.conf.set(*STATE_STORE)
    window = sliding(10 * args.slide, args.slide)
    rows, marks = log(args.records, args.keys, args.bound, 10 * args.slide, args.lateness, args.every, args.churn)
    live_firings, live_late, times, states = run_live(spark, rows, marks, window, args.lateness, args.batch)
    replay_firings, replay_late, replay_seconds = run_replay(spark, rows, marks, window, args.lateness)
    print(f"{args.records} records, {args.keys} keys, {len(marks)} watermarks, micro-batches of {args.batch}")
    print(f"live: {len(times)} micro-batches, {sum(times):.1f} s, per micro-batch "
          f"first {times[0]:.2f} s, then median {sorted(times[1:] or times)[len(times[1:] or times) // 2]:.2f} s, "
          f"{args.records / sum(times):.0f} records/s")
    print("live state after each micro-batch (keys seen: state rows, bytes in memory):",
          ", ".join(f"{seen}: {state.get('numRowsTotal')}, {state.get('memoryUsedBytes')}" for seen, state in states))
    state = states[-1][1]
    print(f"live state after the last: {state.get('numRowsTotal')} rows, "
          f"{state.get('memoryUsedBytes')} bytes in memory, "
          f"{state.get('customMetrics', {}).get('rocksdbSstFileSize')} bytes in RocksDB's files")
    print(f"replay: {replay_seconds:.1f} s ({args.records / replay_seconds:.0f} records/s)")
    same = live_firings == replay_firings and live_late == replay_late
    print(f"firings {sum(live_firings.values())}, late {sum(live_late.values())}: outputs equal: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()

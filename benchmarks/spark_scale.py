"""Scale of the relational pipeline: N records, 1,000 keys, sliding windows (size = 10 x slide),
bounded disorder, allowed lateness, a watermark every 1,000 records (BoundedOutOfOrderness).

    python benchmarks/spark_scale.py --records 10000000 [--reference 200000] [--drop-late]

The data is generated inside Spark (`spark.range`), so the figure is the pipeline's, not Python's:
record i has key i mod keys and a timestamp a little before i (one record per ms of event time).
Nine records in ten are out of order by up to half the bound, so they are never late; one in ten is
delayed by up to 1.5 x (bound + window size + lateness), so some of those fire their windows late
(within the allowed lateness) and some are late for every window: the side output, or dropped with
`--drop-late`. Everything is counted in one Spark action (the plans of the firings and the late
records share their shuffles).

`--channels C` runs, instead, Flink's own watermark generation on the same records over C input channels
(record i on channel i mod C, arriving at processing time i / `--per-ms` ms):
`BoundedOutOfOrdernessWatermarks(bound, interval=--interval)` per channel, merged by the
`StatusWatermarkValve`, next to the same run with as many explicit watermarks (`arrival, watermark`
every `--every` records), and prints both times and their ratio.

`--reference N` runs the first N records (and their watermarks) through the reference model as one
case, prints its records per second for the ratio, and checks that the pipeline's outputs on the
same N records agree with it exactly.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from pyspark.sql import functions as F

from conformance import Case, record, sliding, watermark
from conformance.case import BoundedOutOfOrdernessWatermarks
from spark_impl import BoundedOutOfOrderness, flink_windows
from spark_impl.session import get_session


def generated(spark, records: int, keys: int, disorder: int, delay: int):
    """`arrival, key, ts, payload` (payload = arrival)."""
    h = F.xxhash64("id")
    late = F.pmod(F.xxhash64(F.col("id") + 1), F.lit(10)) == 0
    jitter = F.when(late, F.pmod(h, F.lit(delay + 1))).otherwise(F.pmod(h, F.lit(disorder // 2 + 1)))
    return spark.range(records).select(
        F.col("id").alias("arrival"), (F.col("id") % keys).cast("string").alias("key"),
        (F.col("id") - jitter).alias("ts"), F.col("id").alias("payload"))


def counts(out) -> dict:
    """Everything the pipeline emitted, counted in one action."""
    fired = out.firings.agg(F.count("*").alias("firings"), F.sum(F.size("values")).alias("values"),
                            F.count(F.when(F.col("cause") == "record", 1)).alias("late_firings"))
    late = out.late.agg(F.count("*").alias("side_output"))
    dropped = out.dropped.agg(F.count("*").alias("dropped"))
    return fired.crossJoin(late).crossJoin(dropped).first().asDict()


def reference_check(spark, args, window, events_df) -> None:
    """The first `args.reference` records through the reference, timed, and compared with Spark's."""
    from reference.implementation import simulate

    rows = events_df.filter(F.col("arrival") < args.reference).orderBy("arrival").toArrow().to_pylist()
    stream, highest, position = [], None, {}
    for i, r in enumerate(rows):
        position[("record", i)] = len(stream)
        stream.append(record(r["key"], r["payload"], r["ts"]))
        highest = r["ts"] if highest is None else max(highest, r["ts"])
        if (i + 1) % args.every == 0:
            position[("watermark", i)] = len(stream)
            stream.append(watermark(highest - args.disorder - 1))
    case = Case(window=window, allowed_lateness=args.lateness, late_side_output=not args.drop_late, events=stream)
    start = time.process_time()
    expected = simulate(case)
    cpu = time.process_time() - start
    print(f"reference on the first {len(rows):,} records: {len(rows) / cpu:,.0f} records/s of CPU time "
          f"({cpu:.1f} s), {len(expected.firings):,} firings, {len(expected.late):,} late, "
          f"{len(expected.dropped):,} dropped")

    sample = events_df.filter(F.col("arrival") < args.reference)
    out = flink_windows(sample, window, allowed_lateness=args.lateness, late_side_output=not args.drop_late,
                        watermarks=BoundedOutOfOrderness(args.disorder, args.every))

    def at(r) -> int:
        return len(stream) if r["cause"] == "end_of_input" else position[(r["cause"], r["arrival"])]

    got = Counter((at(r), r["key"], r["window_start"], r["window_end"], tuple(r["values"]), r["watermark"])
                  for r in out.firings.toArrow().to_pylist())
    want = Counter((f.at, f.key, f.window.start, f.window.end, tuple(f.values), f.watermark)
                   for f in expected.firings)
    got_late = Counter((at(r), r["key"], r["payload"], r["ts"])
                       for df in (out.late, out.dropped) for r in df.toArrow().to_pylist())
    want_late = Counter((r.at, r.key, r.value, r.ts) for r in (*expected.late, *expected.dropped))
    agree = got == want and got_late == want_late
    print(f"spark on the same records agrees with the reference: {agree} "
          f"({sum((got - want).values()) + sum((want - got).values())} firings and "
          f"{sum((got_late - want_late).values()) + sum((want_late - got_late).values())} late records differ)")


def generation_run(spark, args, window, events) -> None:
    """The same records with explicit watermarks, then with watermarks generated per channel and
    merged: both timed from the call (generation runs jobs of its own) to the counts."""
    marks = spark.range(1, args.records // args.every + 1).select(
        (F.col("id") * args.every - 1).alias("arrival"),
        (F.col("id") * args.every - args.disorder - 2).alias("watermark"))
    per_channel = events.select("*", (F.col("arrival") % args.channels).alias("channel"),
                                F.expr(f"arrival div {args.per_ms}").alias("pt"))
    runs = {"explicit": lambda: flink_windows(per_channel, window, allowed_lateness=args.lateness,
                                              late_side_output=not args.drop_late, watermarks=marks),
            "generated": lambda: flink_windows(
                per_channel, window, allowed_lateness=args.lateness, late_side_output=not args.drop_late,
                channel="channel", channels=args.channels, processing_time="pt",
                watermarks=BoundedOutOfOrdernessWatermarks(args.disorder, interval=args.interval))}
    walls = {}
    for name, run in runs.items():
        start = time.perf_counter()
        found = counts(run())
        walls[name] = time.perf_counter() - start
        print(f"{name} watermarks: wall {walls[name]:.1f} s  firings {found['firings']:,}  side output "
              f"{found['side_output']:,}  dropped {found['dropped']:,}")
    print(f"{args.channels} channels, interval {args.interval} ms, {args.per_ms} records per ms of processing time: "
          f"generated / explicit = {walls['generated'] / walls['explicit']:.2f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=10_000_000)
    p.add_argument("--keys", type=int, default=1_000)
    p.add_argument("--slide", type=int, default=1_000, help="ms; the window size is 10 x slide")
    p.add_argument("--disorder", type=int, default=2_000, help="ms of out-of-orderness (the bound)")
    p.add_argument("--lateness", type=int, default=1_000, help="allowed lateness, ms")
    p.add_argument("--every", type=int, default=1_000, help="records between watermarks")
    p.add_argument("--partitions", type=int, default=8, help="shuffle partitions")
    p.add_argument("--drop-late", action="store_true", help="no side output: late records are dropped")
    p.add_argument("--reference", type=int, default=0, help="records for the reference ratio and check")
    p.add_argument("--channels", type=int, default=0,
                   help="compare watermarks generated over this many channels with explicit ones")
    p.add_argument("--interval", type=int, default=200, help="pipeline.auto-watermark-interval, ms")
    p.add_argument("--per-ms", type=int, default=5, help="records per ms of processing time")
    args = p.parse_args()

    spark = get_session(conf={"spark.sql.shuffle.partitions": str(args.partitions),
                              "spark.default.parallelism": "2", "spark.driver.memory": "6g"})
    window = sliding(10 * args.slide, args.slide)
    delay = 3 * (args.disorder + 10 * args.slide + args.lateness) // 2
    events = generated(spark, args.records, args.keys, args.disorder, delay)
    if args.channels:
        generation_run(spark, args, window, events)
        return
    out = flink_windows(events, window, allowed_lateness=args.lateness, late_side_output=not args.drop_late,
                        watermarks=BoundedOutOfOrderness(args.disorder, args.every))

    start = time.perf_counter()
    found = counts(out)
    wall = time.perf_counter() - start
    print(f"records {args.records:,}  keys {args.keys:,}  window {10 * args.slide} ms / slide {args.slide} ms"
          f"  lateness {args.lateness} ms  bound {args.disorder} ms  watermark every {args.every}"
          f"  shuffle partitions {args.partitions}")
    print(f"firings {found['firings']:,} (late firings {found['late_firings']:,}), values in firings "
          f"{found['values']:,}, side output {found['side_output']:,}, dropped {found['dropped']:,}")
    print(f"wall {wall:.1f} s  ({args.records / wall:,.0f} records/s, one action)")
    if args.reference:
        reference_check(spark, args, window, events)


if __name__ == "__main__":
    main()

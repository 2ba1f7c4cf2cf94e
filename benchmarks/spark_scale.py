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

Both are timed after an untimed run of each on 50,000 records (`WARM_UP`). In the same run, Spark's own
`window()` + `groupBy` over the same rows (the same sliding windows, each
window's payloads collected per key: a simpler semantics -- no watermark, lateness or firing order --
but the same (record, window) pairs) is timed too, and the replay's time is printed as a multiple of it.

`--flink N` writes the first N records to Parquet (in arrival order) and runs them through real Flink as a user
would run their job on the log (`flink_impl.bulk`: Flink 2.3's `WindowOperator`, one job streaming the log,
parallelism 1) and through the Spark replay's application (`spark_impl/replay_job.py`), each from Parquet to
Parquet, prints both times and their ratio, and checks that their outputs are the same rows (a count and two sums
of row hashes per output, then, only where they differ, the rows themselves). `--flink-only` runs only that (at
100M records, the floor's run would leave its shuffle files on disk beside the replay's).

The peak memory of the whole process tree (this Python, Spark's JVM, its Python workers; resident set
sizes summed, sampled twice a second; Linux) is printed at the end, in all and, with `--flink`, while the replay
ran and while real Flink did (its JVM then runs beside Spark's): run 10M and 100M records to see that it does not
grow with the input.

`--reference N` runs the first N records (and their watermarks) through the reference model as one
case, prints its records per second for the ratio, and checks that the pipeline's outputs on the
same N records agree with it exactly.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

from pyspark.sql import functions as F

from spark_impl import BoundedOutOfOrderness, flink_windows
from spark_impl.session import get_session
from window_contract import Case, record, sliding, watermark
from window_contract.case import BoundedOutOfOrdernessWatermarks

#: Records of the untimed run that warms the JVM and Spark's code generation before the timed ones.
WARM_UP = 50_000


class PeakMemory:
    """The highest sum of resident set sizes of this process and its descendants, sampled from /proc, in all and
    per phase (`phase`): what the replay took apart from real Flink's JVM, which runs after it beside it."""

    def __init__(self) -> None:
        self.peaks: dict[str, int] = {}
        self._phase, self._done = "", threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    @contextmanager
    def phase(self, name: str):
        """Samples taken within count for `name` too."""
        self._phase = name
        try:
            yield
        finally:
            self._phase = ""

    def _sample(self) -> None:
        page = os.sysconf("SC_PAGE_SIZE")
        while not self._done.wait(0.5):
            parents, rss = {}, {}
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue  # ended meanwhile
                pid = int(stat.parent.name)
                parents[pid], rss[pid] = int(fields[1]), int(fields[21]) * page
            tree, grew = {os.getpid()}, True
            while grew:
                grown = tree | {pid for pid, parent in parents.items() if parent in tree}
                grew, tree = grown != tree, grown
            total = sum(rss.get(pid, 0) for pid in tree)
            for name in {"", self._phase}:
                self.peaks[name] = max(self.peaks.get(name, 0), total)

    def stop(self) -> str:
        """Stops sampling; the peaks in GiB, in all and per phase."""
        self._done.set()
        self._thread.join()
        gib = {name: f"{peak / 2**30:.2f} GiB" for name, peak in self.peaks.items()}
        return gib.get("", "?") + "".join(f"; {name} {value}" for name, value in gib.items() if name)


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


def spark_windows(events, args) -> tuple[float, int, int]:
    """Spark's own sliding `window()` and `groupBy` over the same rows, payloads collected per key and
    window, counted in one action: (wall seconds, windows, values)."""
    size, slide = 10 * args.slide, args.slide
    grouped = events.groupBy("key", F.window(F.timestamp_millis("ts"), f"{size} milliseconds",
                                             f"{slide} milliseconds")).agg(F.collect_list("payload").alias("values"))
    start = time.perf_counter()
    found = grouped.agg(F.count("*").alias("windows"), F.sum(F.size("values")).alias("values")).first()
    return time.perf_counter() - start, found["windows"], found["values"]


def sample_case(events_df, args, window, n: int) -> tuple[Case, list, dict]:
    """The first `n` records as one case, with a watermark every `args.every` records as the pipeline
    makes them; the stream and each record's and watermark's position in it."""
    rows = events_df.filter(F.col("arrival") < n).orderBy("arrival").toArrow().to_pylist()
    stream, highest, position = [], None, {}
    for i, r in enumerate(rows):
        position[("record", i)] = len(stream)
        stream.append(record(r["key"], r["payload"], r["ts"]))
        highest = r["ts"] if highest is None else max(highest, r["ts"])
        if (i + 1) % args.every == 0:
            position[("watermark", i)] = len(stream)
            stream.append(watermark(highest - args.disorder - 1))
    case = Case(window=window, allowed_lateness=args.lateness, late_side_output=not args.drop_late, events=stream)
    return case, stream, position


def replay_sample(events_df, args, window, n: int):
    """The Spark replay of the first `n` records."""
    return flink_windows(events_df.filter(F.col("arrival") < n), window, allowed_lateness=args.lateness,
                         late_side_output=not args.drop_late,
                         watermarks=BoundedOutOfOrderness(args.disorder, args.every))


def flink_run(spark, args, window, events_df, memory: PeakMemory) -> None:
    """The first `args.flink` records, written to Parquet in arrival order, through real Flink's bulk mode
    (`flink_impl.bulk`) and through the Spark replay's application (`spark_impl/replay_job.py`), each from
    Parquet to Parquet; both timed, and their outputs compared row for row."""
    from flink_impl.bulk import run_bulk
    from spark_impl import replay_job

    with tempfile.TemporaryDirectory(prefix="spark-scale-") as scratch:
        log = Path(scratch) / "events"
        events_df.filter(F.col("arrival") < args.flink).write.parquet(str(log))
        options = ["--events", str(log), "--sliding", str(10 * args.slide), str(args.slide),
                   "--lateness", str(args.lateness), "--bound", str(args.disorder), "--every", str(args.every),
                   *(["--drop-late"] if args.drop_late else [])]
        start = time.perf_counter()
        with memory.phase("the replay"):
            replay_job.main([*options, "--out", f"{scratch}/spark"])
        spark_wall = time.perf_counter() - start
        with memory.phase("real Flink (its JVM beside Spark's)"):
            flink = run_bulk(log, f"{scratch}/flink", window, bound=args.disorder, every=args.every,
                             allowed_lateness=args.lateness, late_side_output=not args.drop_late)
        differ, sizes = {}, {}
        for name in ("firings", "late", "dropped"):
            ours, theirs = (spark.read.parquet(f"{scratch}/{side}/{name}") for side in ("spark", "flink"))
            sizes[name], differ[name] = rows_differing(ours, theirs.select(*ours.columns))
    print(f"the first {args.flink:,} records, Parquet in and out: real Flink (flink_impl.bulk: one job, "
          f"parallelism 1) {flink.job_seconds:.1f} s of job, {flink.wall_seconds:.1f} s in all (JVM, MiniCluster, "
          f"Parquet); the Spark replay (replay_job.py, local[2]) {spark_wall:.1f} s; "
          f"replay / Flink = {spark_wall / flink.wall_seconds:.2f} (in all), {spark_wall / flink.job_seconds:.2f} "
          f"(the job)")
    print(f"real Flink's outputs equal the replay's: {not any(differ.values())} "
          f"({', '.join(f'{n} {sizes[n]:,} ({differ[n]} differ)' for n in sizes)})")


def rows_differing(ours, theirs) -> tuple[int, int]:
    """(rows of `ours`, rows in one and not the other, counted with multiplicity). Each side is first read once
    for its count and two sums of row hashes (exact, in decimals): equal multisets of rows give equal sums, so
    at 100M records the usual answer needs no shuffle; only sides that differ are compared row by row
    (`exceptAll`)."""

    def fingerprint(rows):
        return rows.agg(F.count("*").alias("rows"),
                        *(F.sum(F.xxhash64(F.lit(seed), *rows.columns).cast("decimal(38,0)")).alias(f"h{seed}")
                          for seed in (1, 2))).first()

    mine = fingerprint(ours)
    if mine == fingerprint(theirs):
        return mine["rows"], 0
    return mine["rows"], ours.exceptAll(theirs).count() + theirs.exceptAll(ours).count()


def reference_check(spark, args, window, events_df) -> None:
    """The first `args.reference` records through the reference, timed, and compared with Spark's."""
    from reference.implementation import simulate

    case, stream, position = sample_case(events_df, args, window, args.reference)
    records = sum(kind == "record" for kind, _ in position)
    start = time.process_time()
    expected = simulate(case)
    cpu = time.process_time() - start
    print(f"reference on the first {records:,} records: {records / cpu:,.0f} records/s of CPU time "
          f"({cpu:.1f} s), {len(expected.firings):,} firings, {len(expected.late):,} late, "
          f"{len(expected.dropped):,} dropped")

    out = replay_sample(events_df, args, window, args.reference)

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
    p.add_argument("--flink", type=int, default=0, help="records for the real Flink runtime and its ratio")
    p.add_argument("--flink-only", action="store_true",
                   help="with --flink N: only real Flink and replay_job.py on N records, not the replay against "
                        "Spark's own window() on --records")
    p.add_argument("--channels", type=int, default=0,
                   help="compare watermarks generated over this many channels with explicit ones")
    p.add_argument("--interval", type=int, default=200, help="pipeline.auto-watermark-interval, ms")
    p.add_argument("--per-ms", type=int, default=5, help="records per ms of processing time")
    args = p.parse_args()
    if args.flink_only and args.flink < 1:
        p.error("--flink-only needs --flink N: the records for real Flink and replay_job.py")
    memory = PeakMemory()
    try:
        run(args, memory)
    finally:
        print(f"peak memory of the process tree (driver, JVM, Python workers): {memory.stop()}; "
              f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def run(args: argparse.Namespace, memory: PeakMemory) -> None:
    # `counts` joins three one-row aggregates; Spark broadcasts one of them, and computing it is the
    # whole replay, longer than the broadcast's default limit (300 s) at 100M records.
    spark = get_session(conf={"spark.sql.shuffle.partitions": str(args.partitions),
                              "spark.default.parallelism": "2", "spark.driver.memory": "6g",
                              "spark.sql.broadcastTimeout": str(24 * 3600)}, java_options=())
    window = sliding(10 * args.slide, args.slide)
    delay = 3 * (args.disorder + 10 * args.slide + args.lateness) // 2
    if args.flink_only:
        flink_run(spark, args, window, generated(spark, args.flink, args.keys, args.disorder, delay), memory)
        return
    events = generated(spark, args.records, args.keys, args.disorder, delay)
    if args.channels:
        generation_run(spark, args, window, events)
        return

    def replay(events):
        return flink_windows(events, window, allowed_lateness=args.lateness, late_side_output=not args.drop_late,
                             watermarks=BoundedOutOfOrderness(args.disorder, args.every))

    # Both warmed on a small log first, untimed: the JVM's JIT and Spark's code generation would otherwise be
    # charged to whichever runs first.
    warm = generated(spark, WARM_UP, args.keys, args.disorder, delay)
    counts(replay(warm))
    spark_windows(warm, args)
    start = time.perf_counter()
    found = counts(replay(events))
    wall = time.perf_counter() - start
    print(f"records {args.records:,}  keys {args.keys:,}  window {10 * args.slide} ms / slide {args.slide} ms"
          f"  lateness {args.lateness} ms  bound {args.disorder} ms  watermark every {args.every}"
          f"  shuffle partitions {args.partitions}")
    print(f"firings {found['firings']:,} (late firings {found['late_firings']:,}), values in firings "
          f"{found['values']:,}, side output {found['side_output']:,}, dropped {found['dropped']:,}")
    print(f"wall {wall:.1f} s  ({args.records / wall:,.0f} records/s, one action)")
    native, windows, values = spark_windows(events, args)
    print(f"Spark's own window() + groupBy on the same rows: wall {native:.1f} s ({windows:,} windows, "
          f"{values:,} values); the Flink-semantics replay takes {wall / native:.2f} x as long")
    if args.flink:
        flink_run(spark, args, window, events, memory)
    if args.reference:
        reference_check(spark, args, window, events)


if __name__ == "__main__":
    main()

"""A Spark application: replay a Parquet event log through Flink's window semantics, Parquet out.

    spark-submit --master spark://HOST:7077 --py-files /tmp/window_conformance.zip spark_impl/replay_job.py \\
        --events s3a://bucket/events/ --out s3a://bucket/windows/ --sliding 10000 1000 \\
        --lateness 1000 --bound 2000 --every 1000

The outputs are written to `OUT/firings`, `OUT/late` and `OUT/dropped`. The replay runs once: `persist()` keeps
what the three share (on disk; `WindowOutputs.shared`), and each write computes only its own part. Where the
Flink job would have failed, the three hold what it emitted before, and the application exits with the
failure's message and status 1.
The session is the one `spark-submit` makes (its `--master` and `--conf` apply); the driver plans, and
collects only the records' count and arrival range (for `--bound`) and the first error, if any.
`/tmp/window_conformance.zip` holds the packages the executors import, `window_contract` and `spark_impl`
(`zip -r /tmp/window_conformance.zip window_contract spark_impl`).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from typing import Any

from spark_impl.api import BoundedOutOfOrderness, flink_windows
from window_contract.case import GENERATORS
from window_contract.log_options import add_log_options, window_of

COLUMNS = """\
input columns (each name is an option):
  --key key               the key (any type, compared as a string)
  --timestamp ts          the event timestamp, long milliseconds
  --payload payload       the payload, any type (an integral one rides along as the value)
  --arrival arrival       a unique long giving the order in which the operator sees the records
  --channel COLUMN        with --generator: the record's input channel, 0 to --channels - 1
  --processing-time COLUMN  with a periodic --generator: when the record arrives, ms (never going back)

watermarks, exactly one of:
  --bound B [--every N]   max ts seen - B - 1 after every N records (default 1000), one channel
  --generator TYPE        Flink's generator per channel (bounded_out_of_orderness needs --generator-bound),
                          emitting every --interval ms of processing time (default 200) or after every record
                          (--punctuated), a silent channel idle after --idleness ms, merged over --channels
  --watermarks PATH       a Parquet table of (arrival, watermark) rows: that watermark right after that record
"""


def watermark_arguments(args: argparse.Namespace, read_parquet: Callable[[str], Any]) -> dict[str, Any]:
    """`flink_windows`'s watermark arguments from the options: the shorthand, a generator with its channels
    and processing time, or a table of watermarks."""
    chosen = [name for name in ("bound", "generator", "watermarks") if getattr(args, name) is not None]
    if len(chosen) != 1:
        raise SystemExit("error: give exactly one of --bound B, --generator TYPE or --watermarks PATH")
    if args.bound is not None:
        return {"watermarks": BoundedOutOfOrderness(args.bound, args.every)}
    if args.watermarks is not None:
        return {"watermarks": read_parquet(args.watermarks)}
    kind = {k.tag: k for k in GENERATORS}[args.generator]
    fields = {f.name for f in dataclasses.fields(kind)}
    if ("bound" in fields) != (args.generator_bound is not None):
        raise SystemExit(f"error: --generator {args.generator} " + ("needs" if "bound" in fields else "takes no")
                         + " --generator-bound")
    options = {"interval": args.interval, "punctuated": args.punctuated, "idleness": args.idleness}
    generator = kind(**options, **({"bound": args.generator_bound} if "bound" in fields else {}))
    return {"watermarks": generator, "channel": args.channel, "channels": args.channels,
            "processing_time": args.processing_time}


def job_arguments(args: argparse.Namespace, read_parquet: Callable[[str], Any]) -> dict[str, Any]:
    """Every argument of `flink_windows` but the events, from the options."""
    return {"window": window_of(args), "allowed_lateness": args.lateness, "late_side_output": not args.drop_late,
            "key": args.key, "timestamp": args.timestamp, "payload": args.payload, "arrival": args.arrival,
            **watermark_arguments(args, read_parquet)}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=COLUMNS,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_log_options(p, events_help="Parquet folder or file of the events", bound_required=False)
    p.add_argument("--generator", choices=list(GENERATORS.tags), help="Flink's watermark generator, per channel")
    p.add_argument("--generator-bound", type=int, metavar="MS", help="the generator's out-of-orderness bound")
    p.add_argument("--interval", type=int, default=200, metavar="MS",
                   help="periodic emission every MS of processing time (default: 200; 0: none)")
    p.add_argument("--punctuated", action="store_true", help="a watermark after every record")
    p.add_argument("--idleness", type=int, metavar="MS", help="a silent channel is idle after MS (withIdleness)")
    p.add_argument("--channel", metavar="COLUMN", help="the input channel column")
    p.add_argument("--channels", type=int, default=1, help="how many input channels (default: 1)")
    p.add_argument("--processing-time", metavar="COLUMN", help="the processing-time column")
    p.add_argument("--watermarks", metavar="PATH", help="Parquet of (arrival, watermark) rows")
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("flink-windows-replay").getOrCreate()
    out = flink_windows(spark.read.parquet(args.events), **job_arguments(args, spark.read.parquet)).persist()
    try:
        for name in ("firings", "late", "dropped"):
            getattr(out, name).write.mode("overwrite").parquet(f"{args.out.rstrip('/')}/{name}")
        failure = out.errors.first()
    finally:
        out.unpersist()
    if failure is not None:
        where = "at the end of input" if failure["cause"] == "end_of_input" else (
            f"at arrival {failure['arrival']} ({'the record' if failure['cause'] == 'record' else 'its watermark'})")
        raise SystemExit(f"error: the Flink job fails {where}: {failure['message']}; {args.out} holds what it "
                         "emitted before")


if __name__ == "__main__":
    main()

"""A Spark application: replay a Parquet event log through Flink's window semantics, Parquet out.

    spark-submit --master spark://HOST:7077 --py-files window_conformance.zip spark_impl/replay_job.py \\
        --events s3a://bucket/events/ --out s3a://bucket/windows/ --sliding 10000 1000 \\
        --lateness 1000 --bound 2000 --every 1000

The events need the columns `key`, `ts` (long ms), `payload` and `arrival` (`flink_windows`); the
outputs are written to `OUT/firings`, `OUT/late` and `OUT/dropped`, each by one action of the cluster.
The session is the one `spark-submit` makes (its `--master` and `--conf` apply); nothing runs on the
driver but planning. `window_conformance.zip` holds the packages `conformance` and `spark_impl`
(`zip -r window_conformance.zip conformance spark_impl`).
"""

from __future__ import annotations

import argparse

from spark_impl.api import BoundedOutOfOrderness, flink_windows
from window_contract.case import WindowSpec, session, sliding, tumbling


def window_of(args: argparse.Namespace) -> WindowSpec:
    """The one window the options name: --tumbling SIZE, --sliding SIZE SLIDE or --session GAP."""
    chosen = [(name, value) for name, value in (("tumbling", args.tumbling), ("sliding", args.sliding),
                                                 ("session", args.session)) if value is not None]
    if len(chosen) != 1:
        raise SystemExit("error: give exactly one window: --tumbling SIZE, --sliding SIZE SLIDE or --session GAP")
    name, value = chosen[0]
    return {"tumbling": tumbling, "sliding": sliding, "session": session}[name](*value)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--events", required=True, help="Parquet folder or file of the events")
    p.add_argument("--out", required=True, help="folder for firings/, late/ and dropped/ (Parquet)")
    p.add_argument("--tumbling", type=int, nargs=1, metavar="SIZE")
    p.add_argument("--sliding", type=int, nargs=2, metavar=("SIZE", "SLIDE"))
    p.add_argument("--session", type=int, nargs=1, metavar="GAP")
    p.add_argument("--lateness", type=int, default=0, help="allowed lateness, ms")
    p.add_argument("--bound", type=int, required=True, help="out-of-orderness of the watermarks, ms")
    p.add_argument("--every", type=int, default=1000, help="records between watermarks")
    p.add_argument("--drop-late", action="store_true", help="no side output: late records go to dropped/")
    args = p.parse_args(argv)
    window = window_of(args)

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("flink-windows-replay").getOrCreate()
    out = flink_windows(spark.read.parquet(args.events), window, allowed_lateness=args.lateness,
                        late_side_output=not args.drop_late,
                        watermarks=BoundedOutOfOrderness(args.bound, args.every))
    for name in ("firings", "late", "dropped"):
        getattr(out, name).write.mode("overwrite").parquet(f"{args.out.rstrip('/')}/{name}")


if __name__ == "__main__":
    main()

"""Scale of the relational pipeline: N records, 1,000 keys, sliding windows (size = 10 x slide),
bounded disorder, allowed lateness, a watermark every 1,000 records (BoundedOutOfOrderness).

    python benchmarks/spark_scale.py --records 10000000

The data is generated inside Spark (`spark.range`), so the figure is the pipeline's, not Python's.
Prints wall time, records per second and what came out.
"""

from __future__ import annotations

import argparse
import time

from pyspark.sql import functions as F

from conformance import sliding
from spark_impl import BoundedOutOfOrderness, flink_windows
from spark_impl.session import get_session


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=10_000_000)
    p.add_argument("--keys", type=int, default=1_000)
    p.add_argument("--slide", type=int, default=1_000, help="ms; the window size is 10 x slide")
    p.add_argument("--disorder", type=int, default=2_000, help="ms of out-of-orderness (the bound)")
    p.add_argument("--lateness", type=int, default=1_000, help="allowed lateness, ms")
    p.add_argument("--every", type=int, default=1_000, help="records between watermarks")
    p.add_argument("--partitions", type=int, default=8, help="shuffle partitions")
    args = p.parse_args()

    spark = get_session(conf={"spark.sql.shuffle.partitions": str(args.partitions),
                              "spark.default.parallelism": "2", "spark.driver.memory": "6g"})
    # One record per ms of event time on average; a tenth arrive up to 1.5 x the bound late, so some
    # records are late, some within lateness, some dropped.
    jitter = F.pmod(F.xxhash64("id"), F.lit(args.disorder * 3 // 2 + 1))
    late = F.pmod(F.xxhash64(F.col("id") + 1), F.lit(10)) == 0
    events = spark.range(args.records).select(
        F.col("id").alias("arrival"), (F.col("id") % args.keys).cast("string").alias("key"),
        (F.col("id") - F.when(late, jitter).otherwise(jitter % (args.disorder // 2 + 1))).alias("ts"),
        F.col("id").alias("payload"))
    out = flink_windows(events, sliding(10 * args.slide, args.slide), allowed_lateness=args.lateness,
                        watermarks=BoundedOutOfOrderness(args.disorder, args.every), late_side_output=True)

    start = time.perf_counter()
    firings = out.firings.agg(F.count("*").alias("n"), F.sum(F.size("values")).alias("v")).first()
    late_n = out.late.count()
    wall = time.perf_counter() - start
    print(f"records {args.records:,}  keys {args.keys:,}  window {10 * args.slide} ms / slide {args.slide} ms"
          f"  lateness {args.lateness} ms  watermark every {args.every}")
    print(f"firings {firings['n']:,}  values in firings {firings['v']:,}  late records {late_n:,}")
    print(f"wall {wall:.1f} s  ({args.records / wall:,.0f} records/s, two actions: firings and late)")


if __name__ == "__main__":
    main()

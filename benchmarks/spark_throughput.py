"""Cases per second through `SparkImplementation.run`, batched, once the session is warm.

    python benchmarks/spark_throughput.py --cases 1000 --batches 3
"""

from __future__ import annotations

import argparse
import time

from hypothesis import HealthCheck, given, settings

from spark_impl.implementation import SparkImplementation, is_relational
from strategies.cases import cases


def generated(n: int) -> list:
    found = []

    @settings(max_examples=n, database=None, suppress_health_check=list(HealthCheck), deadline=None)
    @given(cases())
    def collect(case):
        found.append(case)

    collect()
    return found[:n]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=int, default=1000)
    p.add_argument("--batches", type=int, default=3)
    args = p.parse_args()
    batch = generated(args.cases)
    impl = SparkImplementation()
    impl.run(batch[:5])  # warm: session, Python workers, code generation
    relational = sum(map(is_relational, batch))
    print(f"{len(batch)} generated cases ({relational} relational, {len(batch) - relational} replayed), "
          f"{sum(len(c.events) for c in batch):,} events")
    for i in range(args.batches):
        start = time.perf_counter()
        impl.run(batch)
        wall = time.perf_counter() - start
        print(f"batch {i + 1}: {wall:.2f} s, {len(batch) / wall:,.0f} cases/s")


if __name__ == "__main__":
    main()

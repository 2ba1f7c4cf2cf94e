"""Differential throughput: generated cases checked per second, an implementation against the reference.

    python benchmarks/differential_throughput.py [--impl spark] [--cases 2000] [--batch 1000] [--single 10]

Cases come from the suite's own strategies (restricted to the implementation's features), drawn
deterministically. After a warm-up run, it times (a) batches of `--batch` cases, one `run` call each,
and (b) `--single` cases with one `run` call per case, and prints cases per second for both and their
ratio, and how many cases disagreed with the reference.
"""

from __future__ import annotations

import argparse
import time

from hypothesis import HealthCheck, Phase, given, settings

from strategies import cases
from window_contract import equivalent, load_implementation


def draw_cases(features: frozenset[str], count: int) -> list:
    drawn = []

    @settings(max_examples=count, phases=[Phase.generate], derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(cases(features, report=False))
    def collect(case):
        drawn.append(case)

    collect()
    return drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", default="spark")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--single", type=int, default=10)
    args = parser.parse_args()

    impl, reference = load_implementation(args.impl), load_implementation("reference")
    batch = draw_cases(impl.features, args.cases)
    impl.run(batch[:10])  # warm-up: session start, first job

    start = time.perf_counter()
    observed = []
    for i in range(0, len(batch), args.batch):
        observed += impl.run(batch[i:i + args.batch])
    expected = reference.run(batch)
    batched = len(batch) / (time.perf_counter() - start)
    disagreements = [i for i, (e, o) in enumerate(zip(expected, observed, strict=True)) if not equivalent(e, o)]

    start = time.perf_counter()
    for case in batch[:args.single]:
        equivalent(reference.run([case])[0], impl.run([case])[0])
    single = args.single / (time.perf_counter() - start)

    print(f"{impl.name} against reference, {len(batch)} generated cases")
    print(f"  batched ({args.batch} cases per run): {batched:10.1f} cases/s")
    print(f"  one run per case:                  {single:10.1f} cases/s")
    print(f"  ratio:                             {batched / single:10.1f} x")
    print(f"  disagreements:                     {len(disagreements):10d}")
    for i in disagreements[:3]:
        print(f"case {i}: {batch[i]!r}\n  reference: {expected[i]!r}\n  {impl.name}: {observed[i]!r}")


if __name__ == "__main__":
    main()

"""How fast the engines under test answer the suite's own cases: cases per second, one line per engine.

    python benchmarks/engines_throughput.py [--impl beam] [--impl NAME ...] [--cases 50] [--repeat 1]

The cases are the suite's generated ones (`strategies.cases`, drawn deterministically for the features
each engine declares, so every engine gets cases it can run), sent in one `run` call as the suite's
prefetching sends a property's examples. The engine's start (a process, a JVM) is timed apart and not
counted. The figure is wall time (`time.perf_counter`): an engine's work happens in its own process or
JVM, which the benchmark's CPU clock does not see; the load average printed beside it says how busy
the machine was.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from strategies.cases import cases  # noqa: E402
from window_contract import load_implementation  # noqa: E402
from window_contract.case import Case  # noqa: E402


def drawn_cases(features: frozenset[str], count: int) -> list[Case]:
    """The first `count` cases the suite's strategy draws for `features`, the same every run."""
    drawn: list[Case] = []

    @settings(max_examples=count, derandomize=True, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), deadline=None)
    @given(cases(features, report=False))
    def collect(case: Case) -> None:
        drawn.append(case)

    collect()
    return drawn[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--impl", action="append", help="an engine (repeatable; default: beam)")
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    for name in args.impl or ["beam"]:
        started = time.perf_counter()
        engine = load_implementation(name)
        start = time.perf_counter() - started
        batch = drawn_cases(engine.features, args.cases)
        walls = []
        for _ in range(args.repeat):
            wall = time.perf_counter()
            engine.run(batch)
            walls.append(time.perf_counter() - wall)
        best = min(walls)
        print(f"{name}: {len(batch) / best:.2f} cases/s ({len(batch)} generated cases in {best:.1f} s wall, "
              f"best of {args.repeat}; engine start {start:.1f} s; load average {os.getloadavg()[0]:.1f})")
        getattr(engine, "close", lambda: None)()


if __name__ == "__main__":
    main()

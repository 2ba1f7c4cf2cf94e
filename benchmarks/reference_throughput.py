"""How fast the reference model runs: records per second for tumbling, sliding and session windows.

    python benchmarks/reference_throughput.py [--records 1000000] [--keys 100] [--disorder 50]
                                              [--watermark-every 100] [--repeat 3] [--profile tumbling]

The input is generated (seeded): one record per millisecond of event time on average, keys drawn
at random from `--keys`, each timestamp moved back by up to `--disorder` ms, and after every
`--watermark-every` records a bounded-out-of-orderness watermark (highest timestamp so far minus
the disorder bound), so no record is late. The input ends with end of input. Windows: tumbling
1 s, sliding 1 s every 100 ms (size = 10 x slide: every record is in ten windows), sessions with a
150 ms gap (a key comes back every 100 ms on average, so sessions both merge and close).

Only `simulate` is timed, not the generation. Each workload runs `--repeat` times; the figures are
records per second of *process CPU time* (`time.process_time`: what one core does, whatever else
the machine runs) and of wall time (`time.perf_counter`), best and median of the runs.
`--profile NAME` runs that workload under cProfile and prints the functions that take the most time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference.implementation import simulate  # noqa: E402
from window_contract import Case, record, session, sliding, tumbling, watermark  # noqa: E402

WORKLOADS = {
    "tumbling": tumbling(1000),
    "sliding": sliding(1000, 100),
    "session": session(150),
}


def generate(records: int, keys: int, disorder: int, watermark_every: int, seed: int = 1) -> list:
    rng = random.Random(seed)
    names = [f"key{i}" for i in range(keys)]
    events, highest = [], None
    for i in range(records):
        ts = i - rng.randint(0, disorder)
        events.append(record(rng.choice(names), i, ts))
        highest = ts if highest is None else max(highest, ts)
        if (i + 1) % watermark_every == 0:
            events.append(watermark(highest - disorder))
    return events


def run(name: str, events: list) -> tuple[float, float, int]:
    """One simulation of workload `name`: (CPU seconds, wall seconds, number of firings)."""
    case = Case(window=WORKLOADS[name], events=events)
    cpu, wall = time.process_time(), time.perf_counter()
    observation = simulate(case)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if observation.error is not None:
        raise SystemExit(f"{name}: the reference failed: {observation.error}")
    return cpu, wall, len(observation.firings)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=100)
    parser.add_argument("--disorder", type=int, default=50, help="the out-of-orderness bound, in ms")
    parser.add_argument("--watermark-every", type=int, default=100, help="records between watermarks")
    parser.add_argument("--repeat", type=int, default=3, help="runs per workload")
    parser.add_argument("--only", choices=sorted(WORKLOADS), action="append", help="run only these workloads")
    parser.add_argument("--profile", choices=sorted(WORKLOADS), help="profile one workload with cProfile")
    args = parser.parse_args(argv)

    events = generate(args.records, args.keys, args.disorder, args.watermark_every)
    print(f"{args.records:,} records, {args.keys} keys, disorder <= {args.disorder} ms, "
          f"a watermark every {args.watermark_every} records (Python {sys.version.split()[0]})")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run, args.profile, events)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    print(f"records/s of process CPU time and of wall time, best and median of {args.repeat} runs")
    for name in args.only or WORKLOADS:
        runs = [run(name, events) for _ in range(args.repeat)]
        cpu = [args.records / c for c, _, _ in runs]
        wall = [args.records / w for _, w, _ in runs]
        print(f"{name:9} {WORKLOADS[name]!r:55} CPU {max(cpu):>9,.0f} best {statistics.median(cpu):>9,.0f} "
              f"median | wall {max(wall):>9,.0f} best {statistics.median(wall):>9,.0f} median "
              f"records/s ({min(c for c, _, _ in runs):.2f} s CPU, {runs[0][2]:,} firings)")


if __name__ == "__main__":
    main()

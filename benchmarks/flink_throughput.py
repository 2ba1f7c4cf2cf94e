"""How fast real Flink runs cases: cases per second through `flink`, batched and one by one.

    python benchmarks/flink_throughput.py [--cases 1024] [--single 30] [--events 20]
                                          [--branches-per-job 128] [--seed 1]

The cases are generated (seeded) like the suite's: a tumbling, sliding or session window (a
quarter of them with allowed lateness and the late side output), `--events` events per case on
three keys, about one in five a watermark that moves forward. The first call, which starts the
JVM and the MiniCluster (and compiles the runner if it is not cached), is timed on its own; then
`--cases` cases in one `run` call; then `--single` cases, one `run` call each.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flink_impl import FlinkImplementation  # noqa: E402
from flink_impl.command import Limits  # noqa: E402
from window_contract import Case, record, session, sliding, tumbling, watermark  # noqa: E402


def generate(n: int, events: int, seed: int) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        window = rng.choice([tumbling(10), sliding(10, 5), session(5)])
        stream, wm = [], 0
        for _ in range(events):
            if rng.random() < 0.8:
                stream.append(record(rng.choice("abc"), rng.randint(0, 99), rng.randint(0, 10 * events)))
            else:
                wm += rng.randint(0, 15)
                stream.append(watermark(wm))
        late = rng.random() < 0.25
        cases.append(Case(window=window, events=stream, allowed_lateness=5 if late else 0,
                          late_side_output=late))
    return cases


def timed(flink: FlinkImplementation, batches: list[list[Case]]) -> float:
    start = time.perf_counter()
    for batch in batches:
        for observation in flink.run(batch):
            if observation.error is not None:
                raise SystemExit(f"flink failed a case: {observation.error}")
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1024, help="cases in the batched run")
    parser.add_argument("--single", type=int, default=30, help="cases run one by one")
    parser.add_argument("--events", type=int, default=20, help="events per case")
    parser.add_argument("--branches-per-job", type=int, default=Limits().branches_per_job)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    flink = FlinkImplementation(Limits(branches_per_job=args.branches_per_job))
    cases = generate(args.cases + args.single + 1, args.events, args.seed)
    print(f"{args.events} events per case, {args.branches_per_job} cases per Flink job")
    startup = timed(flink, [cases[:1]])
    print(f"first call (JVM, MiniCluster, one case): {startup:.2f} s")
    batched = timed(flink, [cases[1:args.cases + 1]])
    print(f"batched:    {args.cases / batched:8.1f} cases/s ({args.cases} cases in {batched:.2f} s)")
    single = timed(flink, [[c] for c in cases[args.cases + 1:]])
    print(f"one by one: {args.single / single:8.1f} cases/s ({args.single} cases in {single:.2f} s)")


if __name__ == "__main__":
    main()

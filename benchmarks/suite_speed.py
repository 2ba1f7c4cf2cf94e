"""How long a user waits for the main job: `./dev conformance` (the conformance run on `reference` and
`spark`, `ci` profile, after setup), each implementation's share of it and their ratio, and Spark's
start-up; from one run. It measures and prints; it asserts nothing (issue 15's targets: spark within
3 x reference + Spark's start-up, the whole command under 3 minutes on 2 cores).

Machines of the same size differ (the same commit's main job took 225 s on one and 408 s on another),
so it also measures, in the same run, two baselines: a fixed pure-Python loop (the machine's speed) and
the suite on the reference alone (`--baseline`, on by default); the main job's time divided by the
latter does not depend on the machine.

    python benchmarks/suite_speed.py [--profile ci] [--out DIR] [--no-baseline]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SPARK_START = """
import time
start = time.perf_counter()
from spark_impl.session import get_session
get_session().range(1).count()
print(time.perf_counter() - start)
"""


def spark_start_up() -> float:
    """Seconds from a fresh interpreter to a first finished Spark job: the fixed cost of a Spark run."""
    out = subprocess.run([sys.executable, "-c", SPARK_START], cwd=ROOT, check=True, capture_output=True, text=True)
    return float(out.stdout.split()[-1])


def python_loop() -> float:
    """Seconds for a fixed pure-Python loop: how fast this machine runs the suite's kind of work."""
    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i % 7
    return time.perf_counter() - start


def conformance_run(impls: list[str], profile: str, out: Path) -> tuple[float, dict]:
    """`python -m conformance run` on `impls`, as `./dev conformance` runs it: its wall time and report."""
    command = [sys.executable, "-m", "conformance", "run", *(a for i in impls for a in ("--impl", i)),
               "--jobs", str(os.cpu_count()), "--profile", profile, "--out", str(out), "--force"]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, json.loads((out / "report.json").read_text())


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="ci")
    p.add_argument("--out", type=Path, help="the report's folder (default: a temporary one)")
    p.add_argument("--no-baseline", dest="baseline", action="store_false",
                   help="skip the suite on the reference alone")
    args = p.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="suite-speed-"))
    print(f"{os.cpu_count()} cores, {load()}")
    print(f"machine: a fixed pure-Python loop (10M additions) takes {python_loop():.2f} s")
    start_up = spark_start_up()
    print(f"Spark start-up (interpreter to a first job): {start_up:.1f} s")
    alone = None
    if args.baseline:
        alone, _ = conformance_run(["reference"], args.profile, out)
        print(f"baseline: the suite, {args.profile} profile, on the reference alone: {alone:.1f} s")
    # what `./dev conformance` runs once set up (its setup step then only checks a stamp file)
    wall, report = conformance_run(["reference", "spark"], args.profile, out)
    took = {impl["name"]: impl["duration"] for impl in report["implementations"]}
    ref, spark = took["reference"], took["spark"]
    print(f"suite, {args.profile} profile, on reference: {ref:.1f} s (beside spark's)")
    print(f"suite, {args.profile} profile, on spark:     {spark:.1f} s (beside the reference's)")
    print(f"spark / reference: {spark / ref:.2f} (target <= 3); "
          f"(spark - start-up) / reference: {(spark - start_up) / ref:.2f}")
    print(f"./dev conformance after setup: {wall:.1f} s ({report['verdict']['text']}); "
          f"target under 180 s on 2 cores")
    if alone is not None:
        print(f"./dev conformance / the reference alone: {wall / alone:.2f}")
    print(f"at the end: {load()}")


if __name__ == "__main__":
    main()

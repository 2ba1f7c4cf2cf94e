"""How long a user waits for the main job: `./dev conformance` (the conformance run on `reference` and
`spark`, `ci` profile, after setup), each implementation's share of it and their ratio, and Spark's
start-up; from one run. It measures and prints; it asserts nothing (issue 15's targets: spark within
3 x reference + Spark's start-up, the whole command under 3 minutes on 2 cores).

    python benchmarks/suite_speed.py [--profile ci] [--out DIR]
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


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="ci")
    p.add_argument("--out", type=Path, help="the report's folder (default: a temporary one)")
    args = p.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="suite-speed-"))
    print(f"{os.cpu_count()} cores, {load()}")
    start_up = spark_start_up()
    print(f"Spark start-up (interpreter to a first job): {start_up:.1f} s")
    # what `./dev conformance` runs once set up (its setup step then only checks a stamp file)
    command = [sys.executable, "-m", "conformance", "run", "--impl", "reference", "--impl", "spark",
               "--jobs", str(os.cpu_count()), "--profile", args.profile, "--out", str(out), "--force"]
    start = time.perf_counter()
    status = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    report = json.loads((out / "report.json").read_text())
    took = {impl["name"]: impl["duration"] for impl in report["implementations"]}
    ref, spark = took["reference"], took["spark"]
    print(f"suite, {args.profile} profile, on reference: {ref:.1f} s")
    print(f"suite, {args.profile} profile, on spark:     {spark:.1f} s")
    print(f"spark / reference: {spark / ref:.2f} (target <= 3); "
          f"(spark - start-up) / reference: {(spark - start_up) / ref:.2f}")
    print(f"./dev conformance after setup ({' '.join(command[3:])}): {wall:.1f} s, exit status {status} "
          f"({report['verdict']['text']}); target under 180 s on 2 cores")
    print(f"at the end: {load()}")


if __name__ == "__main__":
    main()

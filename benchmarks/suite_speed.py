"""How long a user waits for the main job: `./dev conformance` (the conformance run on `reference` and
`spark`, `ci` profile, after setup), each implementation's share of it and their ratio, Spark's
start-up, and the phases of Spark's run (recording the tests it draws, fetching every test's cases in a
few run calls, waiting for the reference's recordings); from one run. With `--clone`, the README's
first command as a newcomer meets it: a clean clone of this repository's last commit, then
`./dev conformance` twice in it, the first setting up `.venv` (each setup step's time) and the second
not (the second replays the drawing cache the first filled, `conformance/runner/drawing.py`). The main job is
measured twice too: drawing every example (`--fresh-drawing`), then again replaying the drawing cache. It
measures and prints; it asserts nothing (issue 46's targets on a quiet 2-core machine: clone and
`./dev conformance` within 4 minutes, setup included; after setup within 1 minute).

Machines of the same size differ (the same commit's main job took 225 s on one and 408 s on another),
so it also measures, in the same run, two baselines: a fixed pure-Python loop (the machine's speed) and
the suite on the reference alone (`--baseline`, on by default); the main job's time divided by the
latter does not depend on the machine.

    python benchmarks/suite_speed.py [--profile ci] [--out DIR] [--no-baseline] [--clone]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
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


def conformance_run(impls: list[str], profile: str, out: Path, fresh: bool = True) -> tuple[float, dict]:
    """`python -m conformance run` on `impls`, as `./dev conformance` runs it: its wall time and report; `fresh`,
    drawing every example (`--fresh-drawing`), else replaying the drawing cache the run before filled."""
    command = [sys.executable, "-m", "conformance", "run", *(a for i in impls for a in ("--impl", i)),
               "--jobs", str(os.cpu_count()), "--profile", profile, "--out", str(out), "--force",
               *(["--fresh-drawing"] if fresh else [])]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start, json.loads((out / "report.json").read_text())


#: Spark's run's summary of what it prefetched (`conformance.prefetch.plugin`), in its log.
PREFETCH_LINE = re.compile(r"prefetch: (\d+) tests recorded \(([\d.]+) s\), (\d+) cases fetched in (\d+) run calls "
                           r"\(([\d.]+) s\), the cases of (\d+) tests as another run recorded them \(waited ([\d.]+) s")


def spark_phases(out: Path) -> str:
    """The phases of Spark's run, from the prefetch line of its log."""
    found = PREFETCH_LINE.search((out / "logs" / "spark.log").read_text(encoding="utf-8", errors="replace"))
    if found is None:
        return "no prefetch line in Spark's log"
    drawn, drawing, cases, calls, fetching, loaded, waited = found.groups()
    return (f"recorded {drawn} tests in {float(drawing):.1f} s, fetched {cases} cases in {calls} run calls in "
            f"{float(fetching):.1f} s, took {loaded} tests from the reference's recordings "
            f"(waited {float(waited):.1f} s)")


def clean_clone() -> None:
    """`git clone` of this repository's last commit and `./dev conformance` in it, twice (`--clone`)."""
    folder = Path(tempfile.mkdtemp(prefix="suite-speed-clone-"))
    # a newcomer's shell: nothing of this checkout's environment (PYTHONPATH, an active virtualenv) leaks in, nor
    # its drawing cache (the clone's code is the same, so its key is too)
    newcomer = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    newcomer["XDG_CACHE_HOME"] = str(folder / "cache")
    try:
        start = time.perf_counter()
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(folder / "clone")], check=True)
        print(f"clean clone: git clone {time.perf_counter() - start:.1f} s")
        for attempt in ("first", "second"):
            start = time.perf_counter()
            done = subprocess.run([str(folder / "clone" / "dev"), "conformance"], capture_output=True, text=True,
                                  env=newcomer)
            wall = time.perf_counter() - start
            setup = [line for line in done.stderr.splitlines() if line.startswith("setup: ")]
            print(f"clean clone: {attempt} ./dev conformance {wall:.1f} s (exit {done.returncode}), "
                  f"{'; '.join(setup) or 'nothing to set up'}")
            if done.returncode not in (0, 1):
                print(done.stderr[-2000:])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--profile", default="ci")
    p.add_argument("--out", type=Path, help="the report's folder (default: a temporary one)")
    p.add_argument("--no-baseline", dest="baseline", action="store_false",
                   help="skip the suite on the reference alone")
    p.add_argument("--clone", action="store_true",
                   help="also ./dev conformance twice in a clean clone of the last commit, setup included")
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
    print(f"spark's phases: {spark_phases(out)}")
    print(f"./dev conformance after setup, drawing: {wall:.1f} s ({report['verdict']['text']}); "
          f"target under 60 s on 2 quiet cores")
    again, report = conformance_run(["reference", "spark"], args.profile, out, fresh=False)
    took = {impl["name"]: impl["duration"] for impl in report["implementations"]}
    print(f"./dev conformance again, replaying the drawing cache: {again:.1f} s (reference {took['reference']:.1f} s, "
          f"spark {took['spark']:.1f} s; spark's phases: {spark_phases(out)})")
    if alone is not None:
        print(f"./dev conformance / the reference alone: {wall / alone:.2f}")
    if args.clone:
        clean_clone()
    print(f"at the end: {load()}")


if __name__ == "__main__":
    main()

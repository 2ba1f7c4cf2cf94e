"""Running `python -m conformance run` from the tests, once per distinct command line."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
#: The stand-in suite's modules, as `run --suite` takes them.
FIXTURE_SUITE = ("--suite", str(HERE / "props_differential.py"), "--suite", str(HERE / "props_invariants.py"))


@dataclass(frozen=True)
class Run:
    status: int
    stdout: str
    stderr: str
    out: Path

    @property
    def report(self) -> dict[str, Any]:
        return json.loads((self.out / "report.json").read_text(encoding="utf-8"))

    def implementation(self, name: str) -> dict[str, Any]:
        [found] = [impl for impl in self.report["implementations"] if impl["name"] == name]
        return found


def conformance(
    *args: str,
    pythonpath: tuple[str, ...] = (),
    timeout: float = 900,
    cwd: Path = ROOT,
    env: tuple[tuple[str, str], ...] = (),
) -> subprocess.CompletedProcess:
    """`python -m conformance ARGS` from `cwd` (the project's root), as a user types it; `env`
    overrides variables of the environment."""
    environment = os.environ | {"PYTHONPATH": os.pathsep.join([*pythonpath, str(ROOT)])} | dict(env)
    return subprocess.run(
        [sys.executable, "-m", "conformance", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


#: The seed a test's run draws with under a random profile (`dev`, `thorough`), unless it gives its own: the same
#: examples on every run, so that a test is as deterministic as the `ci` profile is.
TEST_SEED = ("--seed", "0")

#: The differential fixture property under `dev`, with `TEST_SEED`: `reference-flink-1.12` differs on 30
#: random examples only when one has a negative timestamp, which a new seed each run did not always draw.
AGREES = ("--profile", "dev", *TEST_SEED, "--property", "agrees", *FIXTURE_SUITE)


@functools.cache
def run_once(*args: str, pythonpath: tuple[str, ...] = (), env: tuple[tuple[str, str], ...] = ()) -> Run:
    """`python -m conformance run ARGS --out <fresh folder>`, run once per test session, drawing its examples: the
    drawing cache, which an earlier test's run of the same code may have filled, is not read (`--fresh-drawing`), so
    that what a test sees of a run's drawing does not depend on the tests before it."""
    out = Path(tempfile.mkdtemp(prefix="conformance-run-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    profile = args[args.index("--profile") + 1] if "--profile" in args else "ci"
    seed = TEST_SEED if profile in ("dev", "thorough") and "--seed" not in args else ()
    done = conformance("run", *args, *seed, "--fresh-drawing", "--out", str(out), pythonpath=pythonpath, env=env)
    return Run(done.returncode, done.stdout, done.stderr, out)


def mixed_run() -> Run:
    """The reference (conforms) and the Flink 1.12 window-start formula (fails on negative timestamps)."""
    return run_once(
        "--impl", "reference", "--impl", "reference-flink-1.12", "--profile", "dev", *FIXTURE_SUITE
    )

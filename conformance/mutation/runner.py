"""Running the property suite against each mutant, and what killed it.

Each mutant runs in its own `pytest` process (a mutant that hangs or crashes takes only itself down),
`jobs` at a time, with `-x` and the properties in order of killing power: the first property that
fails kills the mutant and ends its run. Given the recordings folder of a run of the suite with the
reference's features (`./dev test`'s, after the reference's step: docs/prefetch.md), each property replays
the examples drawn there instead of drawing them again: a mutant declares the reference's features and the
drawing is aimed by the reference's answers, so they are the examples it would draw, and the first that fails
kills it (the mutation profiles do not shrink, `conformance/prefetch/replay.py`). A property whose recording
is missing is drawn, as without the folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from conformance.mutation.catalogue import CATALOGUE, Mutant
from conformance.mutation.plugin import WATERMARK_PROPERTIES, mutation_profile

SUITE = Path(__file__).resolve().parent.parent / "properties"
#: Seconds a case of a mutant's run call may take. A mutant is the project's own model loaded as a plug-in, so the
#: plug-in guard's 10 s a case applies to it; but a case it makes slow (a burst of timers it fires one by one where
#: the model steps over them) is to be killed by what it emits, not stopped as "could not run" by a loaded machine's
#: clock. A mutant that hangs still ends with its whole run's `timeout`.
MUTANT_CASE_SECONDS = 120


@dataclass(frozen=True)
class Result:
    mutant: Mutant
    killed_by: str | None  # the property test that failed first; None: the mutant survived
    rule: str | None
    seconds: float  # wall-clock time
    cpu_seconds: float  # the pytest process's user + system time: what it costs on an idle machine
    detail: str = ""

    @property
    def killed(self) -> bool:
        """A property's violation killed it. A test that fails without one (a strategy or the suite
        itself broken) says nothing about the mutant: no kill."""
        return self.killed_by is not None and self.rule is not None


def first_properties(mutant: Mutant) -> list[str]:
    """The properties its run takes first: its own (`Mutant.first`), and for a mutant of watermark generation
    (`reference/watermarks/`) the properties that draw generators: the others pass on it, at the cost of a whole `ci`
    run of `test_matches_reference`."""
    first = list(mutant.first)
    if all(p.module.startswith("watermarks") for p in mutant.patches):
        first += WATERMARK_PROPERTIES
    return [arg for name in first for arg in ("--mutation-first", name)]


def command(mutant: Mutant, profile: str, report: Path, recordings: Path | None = None) -> list[str]:
    return [sys.executable, "-m", "pytest", str(SUITE), "-x", "-q", "--no-header", "--tb=no",
            "-p", "no:cacheprovider", "-p", "conformance.mutation.plugin",
            "--window-impl", f"conformance.mutation.implementations:{mutant.name}",
            "--hypothesis-profile", mutation_profile(profile), "--mutation-report", str(report),
            "--window-case-timeout", str(MUTANT_CASE_SECONDS),
            *(("--window-recordings", str(recordings)) if recordings is not None else ()),
            *first_properties(mutant)]


def _wait(process: subprocess.Popen, timeout: float) -> tuple[int | None, float]:
    """The exit status (None: killed after `timeout`) and the CPU time of `process`."""
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return process.returncode, usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            process.kill()
            _, _, usage = os.wait4(process.pid, 0)
            process.returncode = -9
            return None, usage.ru_utime + usage.ru_stime
        time.sleep(0.05)


def run_mutant(mutant: Mutant, profile: str = "ci", timeout: float = 600, recordings: Path | None = None) -> Result:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mutation-") as tmp:
        report, log = Path(tmp) / "kill.json", Path(tmp) / "log.txt"
        with log.open("w", encoding="utf-8") as out:
            process = subprocess.Popen(command(mutant, profile, report, recordings), stdout=out,
                                       stderr=subprocess.STDOUT, cwd=SUITE.parent.parent)
            status, cpu = _wait(process, timeout)
        seconds = time.monotonic() - started
        if report.exists():
            kill = json.loads(report.read_text(encoding="utf-8"))
            return Result(mutant, kill["property"], kill["rule"], seconds, cpu, kill["detail"])
        if status is None:
            return Result(mutant, None, None, seconds, cpu, f"timed out after {timeout:.0f}s")
        detail = "" if status == 0 else log.read_text(encoding="utf-8")[-2000:]
        return Result(mutant, None, None, seconds, cpu, detail)


def run_all(mutants: Iterable[Mutant] = CATALOGUE, profile: str = "ci", jobs: int = 2,
            on_result: Callable[[Result], None] = lambda r: None, recordings: Path | None = None) -> list[Result]:
    def one(m: Mutant) -> Result:
        result = run_mutant(m, profile, recordings=recordings)
        on_result(result)
        return result

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, mutants))

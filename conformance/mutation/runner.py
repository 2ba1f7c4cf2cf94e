"""Running the property suite against each mutant, and what killed it.

Each mutant runs the suite's `pytest` in a process of its own (a mutant that hangs or crashes takes only itself
down), `jobs` at a time, with `-x` and the properties in order of killing power: the first property that
fails kills the mutant and ends its run. The process is a child this one forks after importing what every
mutant's pytest imports before its first test (`PRELOADED`): a fresh interpreter spent about a second on it, a third
of a mutant's run on the reference's recordings. Given the recordings folder of a run of the suite with the
reference's features (`./dev test`'s, after the reference's step: docs/prefetch.md), each property replays
the examples drawn there instead of drawing them again: a mutant declares the reference's features and the
drawing is aimed by the reference's answers, so they are the examples it would draw, and the first that fails
kills it (the mutation profiles do not shrink, `conformance/prefetch/replay.py`). A property whose recording
is missing is drawn, as without the folder.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from conformance.mutation.catalogue import CATALOGUE, Mutant
from conformance.mutation.plugin import WATERMARK_PROPERTIES, mutation_profile

SUITE = Path(__file__).resolve().parent.parent / "properties"
#: Seconds a case of a mutant's run call may take. A mutant is the project's own model loaded as a plug-in, so the
#: plug-in guard's 10 s a case applies to it; but a case it makes slow (a burst of timers it fires one by one where
#: the model steps over them) is to be killed by what it emits, not stopped as "could not run" by a loaded machine's
#: clock. A mutant that hangs still ends with its whole run's `timeout`.
MUTANT_CASE_SECONDS = 120
#: What a mutant's pytest imports before its first test (besides pytest): imported once, before the children are forked.
PRELOADED = ("hypothesis", "conformance.pytest_plugin", "conformance.prefetch.plugin", "conformance.mutation.plugin",
             "conformance.properties.harness")
#: The files of a mutant's run folder: the first failure (`conformance.mutation.plugin`), and pytest's output.
REPORT, LOG = "kill.json", "log.txt"


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


def pytest_arguments(mutant: Mutant, profile: str, report: Path, recordings: Path | None = None) -> list[str]:
    """The arguments of a mutant's pytest, run from the project's root."""
    return [str(SUITE), "-x", "-q", "--no-header", "--tb=no",
            "-p", "no:cacheprovider", "-p", "conformance.mutation.plugin",
            "--window-impl", f"conformance.mutation.implementations:{mutant.name}",
            "--hypothesis-profile", mutation_profile(profile), "--mutation-report", str(report),
            "--window-case-timeout", str(MUTANT_CASE_SECONDS),
            *(("--window-recordings", str(recordings)) if recordings is not None else ()),
            *first_properties(mutant)]


@dataclass(frozen=True)
class _Running:
    mutant: Mutant
    pid: int
    folder: Path  # its report (`REPORT`) and its output (`LOG`)
    started: float
    deadline: float


def _start(mutant: Mutant, profile: str, recordings: Path | None, timeout: float) -> _Running:
    """Fork the child that runs the mutant's pytest."""
    folder = Path(tempfile.mkdtemp(prefix="mutation-"))
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(pytest_arguments(mutant, profile, folder / REPORT, recordings), folder / LOG)
    now = time.monotonic()
    return _Running(mutant, pid, folder, now, now + timeout)


def _child(arguments: list[str], log: Path) -> NoReturn:
    """The child: pytest with `arguments` from the project's root, its output to `log`; its exit status pytest's."""
    code = 3
    try:
        out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.chdir(SUITE.parent.parent)
        code = int(pytest.main(arguments))
    except BaseException:  # noqa: BLE001 - whatever the mutant does, its log says it
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _result(running: _Running, status: int | None, cpu: float, timeout: float) -> Result:
    """What the mutant's run says: killed (its report), timed out (`status` None) or survived."""
    seconds, report, log = time.monotonic() - running.started, running.folder / REPORT, running.folder / LOG
    try:
        if report.exists():
            kill = json.loads(report.read_text(encoding="utf-8"))
            return Result(running.mutant, kill["property"], kill["rule"], seconds, cpu, kill["detail"])
        if status is None:
            return Result(running.mutant, None, None, seconds, cpu, f"timed out after {timeout:.0f}s")
        detail = "" if status == 0 else log.read_text(encoding="utf-8", errors="replace")[-2000:]
        return Result(running.mutant, None, None, seconds, cpu, detail)
    finally:
        shutil.rmtree(running.folder, ignore_errors=True)


def run_all(mutants: Iterable[Mutant] = CATALOGUE, profile: str = "ci", jobs: int = 2,
            on_result: Callable[[Result], None] = lambda r: None, recordings: Path | None = None,
            timeout: float = 600) -> list[Result]:
    """Every mutant's run, `jobs` at a time, in their order; `on_result` hears of each as it ends. A run past
    `timeout` seconds is killed (survived, unless its report names a kill). Called from a process of one thread
    (`python -m conformance.mutation`): it forks."""
    for name in PRELOADED:
        importlib.import_module(name)
    todo, running, results = list(mutants), [], {}
    waiting = iter(todo)
    while True:
        while len(running) < jobs and (mutant := next(waiting, None)) is not None:
            running.append(_start(mutant, profile, recordings, timeout))
        if not running:
            return [results[mutant.name] for mutant in todo]
        time.sleep(0.05)
        for run in list(running):
            pid, status, usage = os.wait4(run.pid, os.WNOHANG)
            if not pid and time.monotonic() < run.deadline:
                continue
            if not pid:
                os.kill(run.pid, signal.SIGKILL)
                _, _, usage = os.wait4(run.pid, 0)
            code = os.waitstatus_to_exitcode(status) if pid else None
            running.remove(run)
            results[run.mutant.name] = _result(run, code, usage.ru_utime + usage.ru_stime, timeout)
            on_result(results[run.mutant.name])

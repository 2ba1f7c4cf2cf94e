"""One implementation's run of the property suite: pytest in a child process, events back on a pipe.

A child process per implementation, not `pytest.main` in the run's own process, because

- pytest keeps imported test modules, conftest plug-ins and Hypothesis's global settings in
  `sys.modules` between `pytest.main` calls, so a second run in one process is not a fresh run;
- an implementation that crashes the interpreter, leaks a JVM (Spark) or hangs takes only its own
  process down, and the report still tells what happened to the others;
- pytest's own output goes to a log file, so the terminal shows only the run's progress.

The child writes its events (`collector.py`) to an inherited pipe; its output goes to `log`.
Several implementations' runs can go on at once (`SuiteRun`): each one's events are read in the
background as they come, so that a child never waits on a full pipe while the terminal shows another's.
A run that is stopped (an error, Ctrl-C, SIGTERM) stops its children, which end their own processes.

The child's `sys.path` holds the current folder (where a user's `package.module:factory` is found)
and then this project's root (see `conformance/__main__.py`): a plain folder of the user's named like
one of the project's packages, such as the run's own default output `reports/out`, cannot hide it.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import conformance
from conformance.installation import PROJECT_ROOT
from conformance.runner.events import ProcessExited, RunEvent, loads_event

#: The property suite that `run` uses unless told otherwise.
DEFAULT_SUITE = Path(conformance.__file__).parent / "properties"
#: Seconds a test process has to end its own processes once told to stop, before it is killed.
STOP_GRACE = 10.0


@dataclass(frozen=True)
class SuiteOptions:
    """What the runs of every implementation in one `run` share: the suite, its profile, the
    properties chosen (pytest -k), the request timeout and the guards of a plug-in's calls, and for a profile
    that is not derandomized the Hypothesis seed (so that every implementation meets the same examples)."""

    suite: tuple[Path, ...]
    profile: str
    properties: tuple[str, ...] = ()
    timeout: float | None = None
    seed: int | None = None
    #: The guards of a plug-in's calls, as the options give them: `--case-timeout` and `--memory-limit` (MiB).
    case_timeout: float | None = None
    memory_limit: int | None = None


def pytest_command(spec: str, options: SuiteOptions, events_fd: int, recordings: Path | None = None) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        *map(str, options.suite),
        "--window-impl",
        spec,
        "-p",
        "conformance.runner.collector",
        f"--run-events-fd={events_fd}",
        # One process per implementation, the suite's own order, and no cache of last failures:
        # the run's progress and examples are read from this one process, test after test.
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        "-p",
        "no:randomly",
        "-q",
    ]
    if options.properties:
        command += ["-k", " or ".join(options.properties)]
    if options.timeout is not None:  # an option of the real suite's conftest; other suites may not have it
        command.append(f"--window-request-timeout={options.timeout}")
    if options.case_timeout is not None:
        command.append(f"--window-case-timeout={options.case_timeout}")
    if options.memory_limit is not None:
        command.append(f"--window-memory-limit={options.memory_limit}")
    if options.seed is not None:  # Hypothesis's own pytest plug-in's option
        command.append(f"--hypothesis-seed={options.seed}")
    if recordings is not None:
        command.append(f"--window-recordings={recordings}")
    return command


def _start_child(command: list[str], write_end: int, profile: str, log: Path) -> subprocess.Popen:
    """The pytest process, writing its events to `write_end` and its output to `log`."""
    env = os.environ | {"HYPOTHESIS_PROFILE": profile}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        return subprocess.Popen(command, pass_fds=[write_end], stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=env)


class SuiteRun:
    """One implementation's run of the suite against `spec`, started now: pytest in a child process, whose
    events are read in a thread of their own and kept until `events()` takes them, ending with
    `ProcessExited`; with `recordings`, a folder where it shares the drawing with the runs beside it.
    `duration` is the run's own time, from its start to its child's exit; `stop()` ends the child early."""

    def __init__(self, spec: str, options: SuiteOptions, log: Path, recordings: Path | None = None) -> None:
        self._events: queue.Queue[RunEvent] = queue.Queue()
        self.started, self.ended = time.monotonic(), None
        read_end, write_end = os.pipe()
        try:
            self.child = _start_child(pytest_command(spec, options, write_end, recordings), write_end,
                                      options.profile, log)
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        self._reader = threading.Thread(target=self._read, args=(read_end,), daemon=True)
        self._reader.start()

    def _read(self, read_end: int) -> None:
        with os.fdopen(read_end, encoding="utf-8") as events:
            for line in events:
                self._events.put(loads_event(line))
        status = self.child.wait()
        self.ended = time.monotonic()
        self._events.put(ProcessExited(status))

    def events(self) -> Iterator[RunEvent]:
        """The run's events in order, waiting for each; the last is `ProcessExited`."""
        while True:
            event = self._events.get()
            yield event
            if isinstance(event, ProcessExited):
                return

    def stop(self, grace: float = STOP_GRACE) -> None:
        """End the child before its time: SIGTERM, on which it ends its own processes (the collector's
        `conformance.exits`), then SIGKILL if it is still there after `grace` seconds."""
        if self.child.poll() is None:
            self.child.terminate()
        try:
            self.child.wait(grace)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()

    @property
    def duration(self) -> float:
        return (self.ended or time.monotonic()) - self.started

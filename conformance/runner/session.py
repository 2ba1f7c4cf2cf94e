"""One implementation's run of the property suite: pytest in a child process, events back on a pipe.

A child process per implementation, not `pytest.main` in the run's own process, because

- pytest keeps imported test modules, conftest plug-ins and Hypothesis's global settings in
  `sys.modules` between `pytest.main` calls, so a second run in one process is not a fresh run;
- an implementation that crashes the interpreter, leaks a JVM (Spark) or hangs takes only its own
  process down, and the report still tells what happened to the others;
- pytest's own output goes to a log file, so the terminal shows only the run's progress.

The child writes its events (`collector.py`) to an inherited pipe; its output goes to `log`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import conformance

#: The property suite that `run` uses unless told otherwise.
DEFAULT_SUITE = Path(conformance.__file__).parent / "properties"


def pytest_command(spec: str, suite: Sequence[Path], events_fd: int, properties: Sequence[str]) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        *map(str, suite),
        "--impl",
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
    if properties:
        command += ["-k", " or ".join(properties)]
    return command


def run_suite(
    spec: str, suite: Sequence[Path], profile: str, log: Path, properties: Sequence[str] = ()
) -> Iterator[dict[str, Any]]:
    """The events of one run of `suite` against `spec`, ending with `{"event": "exit", "status"}`."""
    read_end, write_end = os.pipe()
    env = os.environ | {"HYPOTHESIS_PROFILE": profile}
    # The user's `package.module:factory` is found from the current directory, as in this process.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        child = subprocess.Popen(
            pytest_command(spec, suite, write_end, properties),
            pass_fds=[write_end],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        os.close(write_end)
        try:
            with os.fdopen(read_end, encoding="utf-8") as events:
                for line in events:
                    yield json.loads(line)
        finally:
            if child.poll() is None and sys.exc_info()[0] is not None:
                child.terminate()
            status = child.wait()
    yield {"event": "exit", "status": status}

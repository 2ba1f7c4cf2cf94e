"""The long-lived Java runner process and its line protocol.

One request per line, `{"cases": [window-case/1, ...]}`; one answer per line,
`{"observations": [window-observation/1, ...]}` in the same order, or `{"failure": "..."}`. The
runner's stderr (Flink's own chatter, stack traces) goes to an anonymous temporary file whose tail
is quoted when the runner fails.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import tempfile
import threading
from typing import Any

from flink_impl.toolchain import MAIN_CLASS, compiled_classes, find_toolchain

#: Cases per Flink job: larger jobs amortize the job's start, but each branch is one task thread.
BRANCHES_PER_JOB = 64


class FlinkRunnerError(RuntimeError):
    """The Java runner failed or broke the protocol."""


class RunnerProcess:
    """A started runner: `request(cases)` sends one batch and waits for its observations."""

    def __init__(self, branches_per_job: int = BRANCHES_PER_JOB) -> None:
        toolchain = find_toolchain()
        classpath = os.pathsep.join([str(compiled_classes(toolchain)), str(toolchain.flink_dist)])
        self._stderr = tempfile.TemporaryFile()
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [str(toolchain.java), "-cp", classpath, MAIN_CLASS, str(branches_per_job)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            text=True, encoding="utf-8")

    def request(self, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        with self._lock:
            if self._process.poll() is not None:
                raise self._failure("the Flink runner is not running")
            try:
                self._process.stdin.write(json.dumps({"cases": cases}) + "\n")
                self._process.stdin.flush()
                line = self._process.stdout.readline()
            except (BrokenPipeError, OSError) as e:
                raise self._failure(f"lost the Flink runner: {e}") from None
        if not line:
            raise self._failure("the Flink runner exited")
        answer = json.loads(line)
        if "failure" in answer:
            raise self._failure(f"the Flink runner could not run the batch: {answer['failure']}")
        observations = answer["observations"]
        if len(observations) != len(cases):
            raise self._failure(f"{len(observations)} observations for {len(cases)} cases")
        return observations

    def _failure(self, what: str) -> FlinkRunnerError:
        self._stderr.seek(0, os.SEEK_END)
        size = self._stderr.tell()
        self._stderr.seek(max(0, size - 4000))
        tail = self._stderr.read().decode("utf-8", "replace")
        return FlinkRunnerError(f"{what}; the end of its stderr:\n{tail}")

    def close(self) -> None:
        """Ends the runner: end of stdin makes it stop its MiniCluster and halt."""
        if self._process.poll() is None:
            try:
                self._process.stdin.close()
                self._process.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                self._process.kill()
                self._process.wait()
        self._stderr.close()


_shared: RunnerProcess | None = None
_shared_lock = threading.Lock()


def shared_runner() -> RunnerProcess:
    """The runner of this Python process, started on first use (starting one takes seconds)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared._process.poll() is not None:
            _shared = RunnerProcess()
            atexit.register(_shared.close)
        return _shared

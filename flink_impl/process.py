"""The long-lived Java runner process and its line protocol.

One request per line, `{"cases": [window-case/1, ...], "limits": {...}, "never_ends": message, ...}`;
one answer per line, `{"observations": [...], "retry": [...], "exiting": bool}` or
`{"failure": "..."}` (see `Runner.java`). The runner's stderr (Flink's own chatter, stack traces) goes to an anonymous
temporary file whose tail is quoted when the runner fails.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import tempfile
import threading
from dataclasses import asdict, dataclass
from typing import Any

from conformance.facts import NEVER_ENDS, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from flink_impl.toolchain import MAIN_CLASS, compiled_classes, find_toolchain

JVM_OPTIONS = ["-Xmx1g", "-XX:+UseSerialGC"]


@dataclass(frozen=True)
class Limits:
    #: Cases per Flink job: a job costs about 0.1 s to start, a case some milliseconds more; after
    #: a failure (or a case that does not end) the job's remaining cases run again.
    branches_per_job: int = 128
    #: A job still running after this long is replaying a case that does not end (Flink would go on).
    job_timeout_seconds: int = 30
    #: Outputs after which a case is stopped (a continuous trigger on the global window fires forever).
    output_limit: int = 100_000


class FlinkRunnerError(RuntimeError):
    """The Java runner failed or broke the protocol."""


@dataclass(frozen=True)
class Answer:
    #: One observation (JSON) per case; None for the cases to retry.
    observations: list[dict[str, Any] | None]
    #: Cases not run because an earlier case of their job did not end: run them again.
    retry: list[int]
    #: The runner abandoned a job and ends after this answer.
    exiting: bool


class RunnerProcess:
    """A started runner: `request(cases, limits)` sends one batch and waits for the answer."""

    def __init__(self) -> None:
        toolchain = find_toolchain()
        classpath = os.pathsep.join([str(compiled_classes(toolchain)), str(toolchain.flink_dist)])
        self._stderr = tempfile.TemporaryFile()
        self._lock = threading.Lock()
        self._process = subprocess.Popen(
            [str(toolchain.java), *JVM_OPTIONS, "-cp", classpath, MAIN_CLASS],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            text=True, encoding="utf-8")

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def request(self, cases: list[dict[str, Any]], limits: Limits) -> Answer:
        with self._lock:
            if not self.alive:
                raise self._failure("the Flink runner is not running")
            try:
                request = {"cases": cases, "limits": asdict(limits), "never_ends": NEVER_ENDS,
                           "wrapped_windows_limit": WINDOWS_PER_ELEMENT_LIMIT, "too_many_windows": TOO_MANY_WINDOWS}
                self._process.stdin.write(json.dumps(request) + "\n")
                self._process.stdin.flush()
                line = self._process.stdout.readline()
            except OSError as e:
                raise self._failure(f"lost the Flink runner: {e}") from None
        if not line:
            raise self._failure("the Flink runner exited")
        answer = json.loads(line)
        if "failure" in answer:
            raise self._failure(f"the Flink runner could not run the batch: {answer['failure']}")
        if len(answer["observations"]) != len(cases):
            raise self._failure(f"{len(answer['observations'])} observations for {len(cases)} cases")
        return Answer(answer["observations"], answer["retry"], answer["exiting"])

    def _failure(self, what: str) -> FlinkRunnerError:
        self._stderr.seek(0, os.SEEK_END)
        self._stderr.seek(max(0, self._stderr.tell() - 4000))
        tail = self._stderr.read().decode("utf-8", "replace")
        return FlinkRunnerError(f"{what}; the end of its stderr:\n{tail}")

    def close(self) -> None:
        """Ends the runner: the end of its stdin makes it stop its MiniCluster and halt."""
        if self.alive:
            try:
                self._process.stdin.close()
                self._process.wait(timeout=30)
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
        if _shared is None or not _shared.alive:
            _shared = RunnerProcess()
            atexit.register(_shared.close)
        return _shared


def _retire(runner: RunnerProcess) -> None:
    global _shared
    with _shared_lock:
        if _shared is runner:
            _shared = None
    runner.close()


def run_cases(cases: list[dict[str, Any]], limits: Limits) -> list[dict[str, Any]]:
    """One observation per case, through the shared runner.

    A case that does not end gets an error and costs the runner; the cases its job had not reached
    yet run again in a fresh one (each round settles at least that one case, so this ends).
    """
    runner = shared_runner()
    answer = runner.request(cases, limits)
    if answer.exiting:
        _retire(runner)
    observations = list(answer.observations)
    if answer.retry:
        rerun = run_cases([cases[i] for i in answer.retry], limits)
        for i, observation in zip(answer.retry, rerun, strict=True):
            observations[i] = observation
    return observations

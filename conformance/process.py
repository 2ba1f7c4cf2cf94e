"""Implementations over a process: the Python side of the `window-process/1` protocol (docs/protocol.md).

`--impl exec:COMMAND` starts `COMMAND` (split as a shell would, run without one) and speaks JSON lines
with it over stdin and stdout, one message a line (docs/protocol.md, schemas in docs/schemas/):

1. the process says hello: `{"type": "hello", "protocol": "window-process/1", "name", "features",
   "position_free", "costly_calls"}`;
2. the suite sends a run request: `{"type": "run", "id": N, "cases": [window-case/1, ...]}`;
3. the process answers it: `{"type": "observations", "id": N, "observations": [window-observation/1,
   ...]}` with one observation per case in order, or `{"type": "error", "id": N, "message"}` when its
   engine could not run the cases;
4. the suite closes stdin when it is done; the process exits.

Whatever goes wrong with a request is a failure to run its cases (`ImplementationFailure`), never a
pass and never a difference, because nothing is known about them: an answer later than the request
timeout, a process that exits, a line that is not JSON or not the answer to this request, an
observation that breaks `window-observation/1`, too few or too many observations, or the process's own
`error`. The message ends with the tail of the process's stderr. After a fault of the process (all but
its own `error`) it is killed, and the next request starts it again, so one bad request never takes the
others down and nothing waits for ever.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Sequence
from typing import Any

from conformance.case import Case
from conformance.case_json import case_to_json
from conformance.implementation import REQUEST_TIMEOUT, ImplementationFailure, ImplementationNotFound
from conformance.observation import Observation
from conformance.observation_json import observation_from_json
from conformance.validation import CaseFormatError

PROTOCOL = "window-process/1"

#: The `--impl` prefix that names a command.
EXEC_PREFIX = "exec:"

#: Seconds a process may take to say hello after it starts (a JVM with an engine's jars takes a few).
HELLO_TIMEOUT = 60.0

#: How many lines of the process's stderr a failure quotes.
STDERR_TAIL = 20

#: How much of an unexpected stdout line a failure quotes.
QUOTED = 200

_END_OF_OUTPUT = None


class ProtocolFault(Exception):
    """The process broke the protocol or died: it is killed and started again for the next request."""


class Peer:
    """One running process: its stdin, its stdout as a queue of lines, the tail of its stderr.

    Threads read stdout and stderr as they come, so that a deadline holds however the process
    behaves (a read on a pipe cannot time out) and a process that fills its stderr never blocks.
    """

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        # A session of its own: killing the group also ends what a wrapper script started.
        self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, start_new_session=True)
        self.stderr_reader = threading.Thread(target=self._read_stderr, name=f"stderr {argv[0]}", daemon=True)
        threading.Thread(target=self._read_stdout, name=f"stdout {argv[0]}", daemon=True).start()
        self.stderr_reader.start()

    def _read_stdout(self) -> None:
        with self.popen.stdout:
            for raw in self.popen.stdout:
                self.lines.put(raw.decode("utf-8", errors="replace"))
        self.lines.put(_END_OF_OUTPUT)

    def _read_stderr(self) -> None:
        with self.popen.stderr:
            for raw in self.popen.stderr:
                self.stderr.append(raw.decode("utf-8", errors="replace").rstrip("\n"))

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.popen.stdin.write(json.dumps(message).encode() + b"\n")
            self.popen.stdin.flush()
        except OSError as e:  # BrokenPipeError: it exited before reading
            raise ProtocolFault(f"the process did not take the request ({self.exit_text()}): {e}") from None

    def receive(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        """The next message, parsed; `ProtocolFault` when none comes in `deadline` seconds."""
        try:
            line = self.lines.get(timeout=deadline)
        except queue.Empty:
            raise ProtocolFault(f"no {waiting_for} within {deadline:g} s") from None
        if line is _END_OF_OUTPUT:
            raise ProtocolFault(f"the process closed its stdout before its {waiting_for} ({self.exit_text()})")
        try:
            message = json.loads(line)
        except ValueError:
            raise ProtocolFault(f"stdout line is not JSON where its {waiting_for} was due: "
                                f"{line.strip()[:QUOTED]!r}") from None
        if not isinstance(message, dict):
            raise ProtocolFault(f"stdout line is not a JSON object where its {waiting_for} was due: "
                                f"{line.strip()[:QUOTED]!r}")
        return message

    def exit_text(self) -> str:
        try:
            status = self.popen.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit status {status}"

    def stderr_tail(self) -> str:
        lines = list(self.stderr)
        return "; its stderr ends:\n" + "\n".join(lines) if lines else "; its stderr is empty"

    def stop(self) -> None:
        """Close stdin (the end of the conversation), then kill the process group if it lingers."""
        self._close_stdin()
        try:
            self.popen.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()

    def _close_stdin(self) -> None:
        try:
            self.popen.stdin.close()
        except OSError:  # BrokenPipeError flushing what a dead process did not read
            pass

    def kill(self) -> str:
        """Kill the process group; what it wrote on stderr until then (`stderr_tail`)."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.popen.wait()
        self._close_stdin()
        self.stderr_reader.join(timeout=2)  # the lines it wrote before it died are still in the pipe
        return self.stderr_tail()


#: The hello's optional flags, false when absent: position-free (no `at` in its observations) and
#: costly calls (each request costs a job: the suite batches a property's cases, as for Spark).
HELLO_FLAGS = ("position_free", "costly_calls")


class Hello:
    """What a process says when it starts: its name, features and flags (`HELLO_FLAGS`)."""

    def __init__(self, message: dict[str, Any]) -> None:
        if message.get("type") != "hello":
            raise ProtocolFault(f"the first message must be a hello, not {json.dumps(message)[:QUOTED]}")
        if message.get("protocol") != PROTOCOL:
            raise ProtocolFault(f"hello.protocol is {message.get('protocol')!r}; the suite speaks {PROTOCOL!r}")
        name, features = message.get("name"), message.get("features")
        if not isinstance(name, str) or not name:
            raise ProtocolFault("hello.name must be a non-empty string")
        if not isinstance(features, list) or not all(isinstance(f, str) for f in features):
            raise ProtocolFault("hello.features must be an array of feature names")
        for flag in HELLO_FLAGS:
            if not isinstance(message.get(flag, False), bool):
                raise ProtocolFault(f"hello.{flag} must be true or false")
        unknown = sorted(set(message) - {"type", "protocol", "name", "features", *HELLO_FLAGS})
        if unknown:
            raise ProtocolFault(f"hello has unknown fields: {', '.join(unknown)}")
        self.name, self.features = name, frozenset(features)
        self.position_free, self.costly_calls = (message.get(flag, False) for flag in HELLO_FLAGS)


class ProcessImplementation:
    """An implementation that runs in a process of its own, in any language (`exec:COMMAND`).

    Every `run` call is one request; `costly_calls` is the hello's (a process that starts a job per
    request says so, and the suite batches). `run_bounded` is the request with a deadline, which
    `run_within` uses.
    """

    def __init__(self, command: str, timeout: float = REQUEST_TIMEOUT) -> None:
        self.command, self.timeout = command, timeout
        self.lock = threading.Lock()
        self.requests = 0
        self.peer: Peer | None = None
        self.argv = shlex.split(command)
        if not self.argv:
            raise ImplementationNotFound("'exec:' needs a command, e.g. 'exec:java -cp build MyWindows'")
        hello = self._start()
        self.name, self.features = hello.name, hello.features
        self.position_free, self.costly_calls = hello.position_free, hello.costly_calls

    @property
    def spec(self) -> str:
        return EXEC_PREFIX + self.command

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return self.run_bounded(cases, self.timeout)

    def run_bounded(self, cases: Sequence[Case], timeout: float) -> list[Observation]:
        """One observation per case from the process, or `ImplementationFailure` (module docstring)."""
        with self.lock:
            self.requests += 1
            request = self.requests
            try:
                if self.peer is None:
                    self._restart()
                self.peer.send({"type": "run", "id": request, "cases": [case_to_json(c) for c in cases]})
                answer = self.peer.receive(timeout, f"answer to run request {request} ({len(cases)} case(s))")
                return self._observations(answer, request, len(cases))
            except ProtocolFault as e:
                raise ImplementationFailure(f"{self.spec}: {e}{self._kill()}") from None

    def _observations(self, answer: dict[str, Any], request: int, expected: int) -> list[Observation]:
        if answer.get("id") != request:
            raise ProtocolFault(f"answer carries id {answer.get('id')!r}, not {request}")
        if answer.get("type") == "error":
            message = answer.get("message")
            # The process is well and answered in order: it keeps running.
            raise ImplementationFailure(f"{self.spec}: the process could not run request {request}: {message}"
                                        f"{self.peer.stderr_tail()}")
        if answer.get("type") != "observations" or sorted(answer) != ["id", "observations", "type"]:
            raise ProtocolFault(f"answer to request {request} must be {{type: observations, id, observations}} "
                                f"or {{type: error, id, message}}: {json.dumps(answer)[:QUOTED]}")
        observations = answer["observations"]
        if not isinstance(observations, list):
            raise ProtocolFault("observations must be an array")
        if len(observations) != expected:
            raise ProtocolFault(f"{len(observations)} observation(s) for {expected} case(s)")
        try:
            return [observation_from_json(o, f"$.observations[{i}]", position_free=self.position_free)
                    for i, o in enumerate(observations)]
        except CaseFormatError as e:
            raise ProtocolFault(f"an answer breaks window-observation/1: {e}") from None

    def _start(self) -> Hello:
        try:
            self.peer = Peer(self.argv)
        except OSError as e:
            raise ImplementationFailure(f"{self.spec}: cannot start {self.argv[0]!r}: {e}") from None
        try:
            return Hello(self.peer.receive(HELLO_TIMEOUT, "hello"))
        except ProtocolFault as e:
            raise ImplementationFailure(f"{self.spec} could not start: {e}{self._kill()}") from None

    def _restart(self) -> None:
        """A new process after a fault; it must be the implementation the suite loaded."""
        hello = self._start()
        if (hello.name, hello.features, hello.costly_calls) != (self.name, self.features, self.costly_calls):
            self._kill()
            raise ProtocolFault(f"started again, it says hello as {hello.name!r} with other features or flags")

    def _kill(self) -> str:
        """Kill the process, if one runs; the tail of its stderr."""
        peer, self.peer = self.peer, None
        return "" if peer is None else peer.kill()

    def close(self) -> None:
        """End the process (the end of its stdin); a later request starts it again. `run` calls it
        once it has read the hello: the suite's own test processes start theirs."""
        with self.lock:
            peer, self.peer = self.peer, None
        if peer is not None:
            peer.stop()

    def __del__(self) -> None:
        self.close()


def exec_implementation(spec: str) -> ProcessImplementation:
    """The implementation behind `exec:COMMAND`."""
    return ProcessImplementation(spec.removeprefix(EXEC_PREFIX))

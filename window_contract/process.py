"""Implementations over a process: the Python side of the `window-process/1` protocol (docs/protocol.md).

`--impl exec:COMMAND` starts `COMMAND` (split as a shell would, run without one) and speaks JSON lines
with it over stdin and stdout, one message a line (docs/protocol.md, schemas in docs/schemas/):

1. the process says hello: `{"type": "hello", "protocol": "window-process/1", "name", "features",
   "position_free", "costly_calls"}`;
2. the suite sends a run request: `{"type": "run", "id": N, "cases": [window-case/1, ...]}`;
3. the process answers it: `{"type": "observations", "id": N, "observations": [window-observation/1,
   ...]}` with one observation per case in order, or `{"type": "error", "id": N, "message"}` when its
   engine could not run the cases. Two optional fields extend the observations: `"retry": [i, ...]`
   lists the cases it did not run (`null` in their place), which the suite sends again in a later
   request, and `"exiting": true` says that the process ends after this answer (the suite starts it
   again for the next request);
4. the suite closes stdin when it is done; the process exits.

A process that declares one of the joins' features (`join.window`, `join.cogroup`, `join.interval`) is sent join
cases too, in requests of their own: `{"type": "run_joins", "id": N, "cases": [join-case/1, ...]}`, answered as a
run request is, with `join-observation/1` documents (`retry`, `exiting` and `error` alike). A process that declares
none is never sent one: the extension changes nothing for it.

Whatever goes wrong with a request is a failure to run its cases (`ImplementationFailure`), never a pass
and never a difference, because nothing is known about them: an answer later than the request timeout
(`TimedOut`), a process that exits (`ProcessDied`), a line that is not JSON or not the answer to this
request or longer than `MAX_LINE` (or `LINE_PER_CASE` a case), an observation that breaks `window-
observation/1`, too few or too many observations, a `retry` that does not match the `null`s or that
retries every case of a request (no progress), or the process's own `error`. The message ends with the
tail of the process's stderr. After a fault of the process (all but its own `error`) it is killed with
its process group, and the next request starts it again, so one bad request never takes the others down
and nothing waits for ever. A process still running when the suite's process ends, however it ends short
of SIGKILL, is killed with its group too (`end_processes`).
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from window_contract.case import Case, case_to_json
from window_contract.guards import SAMPLE_SECONDS, Limits, end_workers, group_rss
from window_contract.implementation import (
    REQUEST_TIMEOUT,
    ImplementationFailure,
    ImplementationNotFound,
    OverLimit,
    ProcessDied,
    TimedOut,
)
from window_contract.join_case import JoinCase, join_case_to_json
from window_contract.join_observation import JOIN_OBSERVATION_FORMAT, JoinObservation, join_observation_from_json
from window_contract.observation import Observation
from window_contract.observation_json import OBSERVATION_FORMAT, observation_from_json
from window_contract.validation import CaseFormatError, Problems

PROTOCOL = "window-process/1"

#: The `--impl` prefix that names a command.
EXEC_PREFIX = "exec:"

#: Seconds a process may take to say hello after it starts (a JVM with an engine's jars takes a few), or
#: the request timeout when that is shorter.
HELLO_TIMEOUT = 60.0

#: The longest stdout line read, in bytes, for a request of one case; a request of more cases may take
#: `LINE_PER_CASE` bytes a case: a line without its newline is not held in memory whole. An answer of
#: 10,000 ordinary cases (the largest request the suite sends) takes a few megabytes; a case that fires up
#: to an engine's output limit (100,000 firings) takes some 15.
MAX_LINE = 64 * 2**20
LINE_PER_CASE = 32 * 2**20
#: What the reader reads at a time, in bytes.
_CHUNK = 2**20

#: The longest stderr line kept for a failure's message, in characters.
MAX_STDERR_LINE = 2000

#: How many lines of the process's stderr a failure quotes.
STDERR_TAIL = 20

#: Lines a JVM's logging framework writes about itself (SLF4J finding no binding, or several), which
#: would fill the quoted stderr of a failing engine before its own words.
LOGGING_NOTICES = ("SLF4J: ", "SLF4J(W): ", "SLF4J(I): ", "SLF4J(E): ")

#: How much of an unexpected stdout line a failure quotes.
QUOTED = 200

#: Seconds a process that says it is exiting may take to end before it is killed (a JVM closing its
#: cluster takes a few).
EXIT_GRACE = 15.0

#: The fields of an observations message: required, then optional.
OBSERVATIONS_FIELDS = ("type", "id", "observations")
OBSERVATIONS_OPTIONS = ("retry", "exiting")

_END_OF_OUTPUT = None


class _Overlong(str):
    """What the stdout reader puts in place of a line longer than its limit: its first bytes."""

    def __new__(cls, text: str, limit: int) -> _Overlong:
        line = super().__new__(cls, text)
        line.limit = limit
        return line


class ProtocolFault(Exception):
    """The process broke the protocol or died: it is killed and started again for the next request.
    `failure` is what the request's cases could not run for: the process `TimedOut`, `ProcessDied`, or
    broke the protocol (`ImplementationFailure`)."""

    def __init__(self, message: str, failure: type[ImplementationFailure] = ImplementationFailure) -> None:
        super().__init__(message)
        self.failure = failure


#: The processes started and not yet ended, so that every exit of the suite ends them (`end_processes`).
_RUNNING: weakref.WeakSet[Peer] = weakref.WeakSet()


def end_processes() -> None:
    """Kill every process this process started and has not ended, with its process group (the workers of
    in-process plug-ins too, `window_contract.guards`): at exit, and at once when the suite is interrupted or
    terminated (a busy process would not read the end of its input)."""
    for peer in list(_RUNNING):
        peer.kill()
    end_workers()


atexit.register(end_processes)


class Peer:
    """One running process: its stdin, its stdout as a queue of lines, the tail of its stderr.

    Threads read stdout and stderr as they come, so that a deadline holds however the process
    behaves (a read on a pipe cannot time out) and a process that fills its stderr never blocks.
    """

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        #: The longest stdout line the reader takes: `MAX_LINE`, or `LINE_PER_CASE` a case of the last request.
        self.line_limit = MAX_LINE
        # A session of its own: killing the group also ends what a wrapper script started.
        self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, start_new_session=True)
        _RUNNING.add(self)
        self.stderr_reader = threading.Thread(target=self._read_stderr, name=f"stderr {argv[0]}", daemon=True)
        threading.Thread(target=self._read_stdout, name=f"stdout {argv[0]}", daemon=True).start()
        self.stderr_reader.start()

    def _read_stdout(self) -> None:
        """Lines as they come; a line longer than `line_limit` (that of the request sent last) ends the reading
        (the request fails)."""
        parts: list[bytes] = []
        with self.popen.stdout:
            while raw := self.popen.stdout.readline(_CHUNK):
                parts.append(raw)
                if raw.endswith(b"\n"):
                    self.lines.put(b"".join(parts).decode("utf-8", errors="replace"))
                    parts = []
                elif len(parts) * _CHUNK > self.line_limit:
                    self.lines.put(_Overlong(parts[0][:QUOTED].decode("utf-8", errors="replace"), self.line_limit))
                    return
        if parts:
            self.lines.put(b"".join(parts).decode("utf-8", errors="replace"))
        self.lines.put(_END_OF_OUTPUT)

    def _read_stderr(self) -> None:
        """The last `STDERR_TAIL` lines, each cut at `MAX_STDERR_LINE` characters (the rest of a longer
        line is read and dropped), without the logging framework's notices about itself."""
        with self.popen.stderr:
            while raw := self.popen.stderr.readline(MAX_STDERR_LINE):
                line = raw.decode("utf-8", errors="replace").rstrip("\n")
                while not raw.endswith(b"\n") and (raw := self.popen.stderr.readline(MAX_STDERR_LINE)):
                    pass
                if not line.startswith(LOGGING_NOTICES):
                    self.stderr.append(line)

    def send(self, message: dict[str, Any]) -> None:
        self.line_limit = max(MAX_LINE, LINE_PER_CASE * len(message.get("cases", ())))
        try:
            self.popen.stdin.write(json.dumps(message).encode() + b"\n")
            self.popen.stdin.flush()
        except OSError as e:  # BrokenPipeError: it exited before reading
            raise ProtocolFault(f"the process did not take the request ({self.exit_text()}): {e}",
                                ProcessDied) from None

    def receive(self, deadline: float, waiting_for: str, limit: float | None = None,
                guard: Callable[[], None] | None = None) -> dict[str, Any]:
        """The next message, parsed; `ProtocolFault` when none comes in `deadline` seconds (what is left
        of the time `limit`, which the fault names, when one is given). `guard` is called every
        `SAMPLE_SECONDS` meanwhile, and stops the wait by raising (a memory limit, `window_contract.guards`)."""
        end = time.monotonic() + deadline
        while True:
            wait = end - time.monotonic()
            try:
                line = self.lines.get(timeout=max(0.0, wait if guard is None else min(wait, SAMPLE_SECONDS)))
                break
            except queue.Empty:
                if time.monotonic() >= end:
                    raise ProtocolFault(f"no {waiting_for} within {deadline if limit is None else limit:g} s",
                                        TimedOut) from None
                if guard is not None:
                    guard()
        if line is _END_OF_OUTPUT:
            raise ProtocolFault(f"the process closed its stdout before its {waiting_for} ({self.exit_text()})",
                                ProcessDied)
        if isinstance(line, _Overlong):
            raise ProtocolFault(f"a stdout line longer than {line.limit // 2**20} MiB where its {waiting_for} was "
                                f"due (a line ends with a newline): {line[:QUOTED]!r}...")
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

    def stop(self, grace: float = 2.0) -> None:
        """Close stdin (the end of the conversation), then kill the process group if it lingers."""
        self._close_stdin()
        try:
            self.popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
        else:  # what it started in its group ends with it (docs/protocol.md)
            self.kill()

    def _close_stdin(self) -> None:
        try:
            self.popen.stdin.close()
        except OSError:  # BrokenPipeError flushing what a dead process did not read
            pass

    def kill(self) -> str:
        """Kill the process group; what it wrote on stderr until then (`stderr_tail`)."""
        _RUNNING.discard(self)
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


class Answer:
    """A valid observations message: an observation per case, `None` for those to retry."""

    def __init__(self, observations: list[Any], retry: list[int], exiting: bool) -> None:
        self.observations, self.retry, self.exiting = observations, retry, exiting


class RequestKind:
    """What a request sends and its answer holds: `run` (window cases, window observations) or `run_joins` (join
    cases, join observations), each observation read by `read(document, path)`."""

    def __init__(self, type_: str, observation_format: str, read: Callable[[Any, str], Any]) -> None:
        self.type, self.observation_format, self.read = type_, observation_format, read


def read_join_observation(doc: Any, path: str, position_free: bool = False) -> JoinObservation:
    """A `join-observation/1` of an answer; `CaseFormatError` listing every problem. A position-free process may
    still place its joins (an engine whose windows cannot tell their positions, whose joins can): an observation
    of it with an integer `at` anywhere is read as placed everywhere."""
    problems = Problems()
    observation = join_observation_from_json(doc, path, problems, position_free and not _places(doc))
    problems.raise_if_any()
    return observation


def _places(doc: Any) -> bool:
    """Whether a join observation's document gives an integer `at` to one of its outputs, records or watermarks."""
    if not isinstance(doc, dict):
        return False
    parts = [doc.get(part) for part in ("outputs", "late", "dropped", "watermarks")]
    return any(isinstance(x, dict) and type(x.get("at")) is int for part in parts if isinstance(part, list)
               for x in part)


class ProcessImplementation:
    """An implementation that runs in a process of its own, in any language (`exec:COMMAND`).

    Every `run` call is one request, and one more for each round of cases the process asks to retry;
    `costly_calls` is the hello's (a process that starts a job per request says so, and the suite
    batches). `run_bounded` is the call with a deadline, which `run_within` uses.
    """

    def __init__(self, command: str, timeout: float = REQUEST_TIMEOUT, label: str | None = None,
                 limits: Limits | None = None) -> None:
        self.command, self.timeout = command, timeout
        #: The guards of a plug-in's requests (`window_contract.guards`); `None` for the project's own engines.
        self.limits = limits
        #: What failure messages call the process: its `exec:` spec unless a launcher names it better.
        self.label = label or self.spec
        self.lock = threading.Lock()
        self.requests = 0
        self.peer: Peer | None = None
        self.argv = shlex.split(command)
        if not self.argv:
            raise ImplementationNotFound("'exec:' needs a command, e.g. 'exec:java -cp build MyWindows'")
        try:
            hello = self._start(min(HELLO_TIMEOUT, timeout))
        except ProtocolFault as e:
            raise e.failure(f"{self.label} could not start: {e}{self._kill()}") from None
        self.name, self.features = hello.name, hello.features
        self.position_free, self.costly_calls = hello.position_free, hello.costly_calls

    @property
    def spec(self) -> str:
        return EXEC_PREFIX + self.command

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return self.run_bounded(cases, self.timeout)

    def run_bounded(self, cases: Sequence[Case], timeout: float) -> list[Observation]:
        """One observation per case from the process, or `ImplementationFailure` (module docstring).
        The cases it retries go again in the next request, until each has its observation; `timeout`
        bounds the whole call."""
        def read(doc: Any, path: str) -> Observation:
            return observation_from_json(doc, path, position_free=self.position_free)

        return self._exchange(RequestKind("run", OBSERVATION_FORMAT, read), [case_to_json(c) for c in cases],
                              timeout)

    def run_joins(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        """One join observation per join case, in `run_joins` requests (the module's docstring), as `run`."""
        def read(doc: Any, path: str) -> JoinObservation:
            return read_join_observation(doc, path, self.position_free)

        return self._exchange(RequestKind("run_joins", JOIN_OBSERVATION_FORMAT, read),
                              [join_case_to_json(c) for c in cases], self.timeout)

    def _exchange(self, kind: RequestKind, documents: list[dict[str, Any]], timeout: float) -> list[Any]:
        """The observations of `documents`, in requests of `kind` until none is left to retry, within `timeout`."""
        deadline = time.monotonic() + timeout
        observations: list[Any] = [None] * len(documents)
        pending = list(range(len(documents)))
        with self.lock:
            while True:
                answer = self._request(kind, [documents[i] for i in pending], deadline, timeout)
                for i, observation in zip(pending, answer.observations, strict=True):
                    observations[i] = observation
                pending = [pending[i] for i in answer.retry]
                if not pending:
                    return observations

    def _request(self, kind: RequestKind, cases: list[dict[str, Any]], deadline: float, timeout: float) -> Answer:
        """One request and its answer by `deadline` (the end of the call's `timeout`); the process is
        stopped after it when it says it is exiting."""
        self.requests += 1
        request = self.requests
        try:
            if self.peer is None:
                self._restart(deadline)
            self.peer.send({"type": kind.type, "id": request, "cases": cases})
            remaining = max(0.0, deadline - time.monotonic())
            waiting_for = f"answer to {kind.type.replace('_', ' ')} request {request} ({len(cases)} case(s))"
            if self.limits is None:
                message = self.peer.receive(remaining, waiting_for, timeout)
            else:
                message = self._guarded_receive(len(cases), remaining, waiting_for, timeout)
            answer = self._answer(kind, message, request, len(cases))
        except ProtocolFault as e:
            raise e.failure(f"{self.label}: {e}{self._kill()}") from None
        if answer.exiting:
            peer, self.peer = self.peer, None
            peer.stop(EXIT_GRACE)
        return answer

    def _guarded_receive(self, cases: int, remaining: float, waiting_for: str, timeout: float) -> dict[str, Any]:
        """The answer to a request of `cases` cases within the plug-in's limits (`window_contract.guards`): its
        time a case (from when the request was sent; a restart's hello is not counted), and the resident memory
        of the process's session."""
        limits, peer = self.limits, self.peer
        seconds, by_case = limits.call_seconds(cases, remaining)

        def within_memory() -> None:
            if group_rss(peer.popen.pid) > limits.memory_bytes:
                raise ProtocolFault(limits.over_memory(cases, "used"), OverLimit)

        try:
            return peer.receive(seconds, waiting_for, None if by_case else timeout, guard=within_memory)
        except ProtocolFault as e:
            if by_case and e.failure is TimedOut:
                raise ProtocolFault(limits.over_time(cases), OverLimit) from None
            raise

    def _answer(self, kind: RequestKind, answer: dict[str, Any], request: int, expected: int) -> Answer:
        if answer.get("id") != request:
            raise ProtocolFault(f"answer carries id {answer.get('id')!r}, not {request}")
        if answer.get("type") == "error":
            message = answer.get("message")
            # The process is well and answered in order: it keeps running.
            raise ImplementationFailure(f"{self.label}: the process could not run request {request}: {message}"
                                        f"{self.peer.stderr_tail()}")
        if answer.get("type") != "observations" or not (
                set(OBSERVATIONS_FIELDS) <= set(answer) <= {*OBSERVATIONS_FIELDS, *OBSERVATIONS_OPTIONS}):
            raise ProtocolFault(f"answer to request {request} must be {{type: observations, id, observations"
                                f"[, retry, exiting]}} or {{type: error, id, message}}: {json.dumps(answer)[:QUOTED]}")
        observations, retry, exiting = answer["observations"], answer.get("retry", []), answer.get("exiting", False)
        if not isinstance(observations, list):
            raise ProtocolFault("observations must be an array")
        if len(observations) != expected:
            raise ProtocolFault(f"{len(observations)} observation(s) for {expected} case(s)")
        if not isinstance(exiting, bool):
            raise ProtocolFault("exiting must be true or false")
        if not isinstance(retry, list) or not all(type(i) is int for i in retry) or retry != sorted(set(retry)):
            raise ProtocolFault(f"retry must be an ascending array of case indices: {json.dumps(retry)[:QUOTED]}")
        nulls = [i for i, o in enumerate(observations) if o is None]
        if retry != nulls:
            raise ProtocolFault(f"retry lists {json.dumps(retry)[:QUOTED]} but the observations are null at "
                                f"{json.dumps(nulls)[:QUOTED]}: null exactly for the cases to retry")
        if expected and len(retry) == expected:
            raise ProtocolFault(f"the answer retries every case of request {request}: no progress")
        try:
            return Answer([None if o is None else kind.read(o, f"$.observations[{i}]")
                           for i, o in enumerate(observations)], retry, exiting)
        except CaseFormatError as e:
            raise ProtocolFault(f"an answer breaks {kind.observation_format}: {e}") from None

    def _start(self, limit: float) -> Hello:
        """A new process and its hello within `limit` seconds; `ProtocolFault` when it cannot start."""
        try:
            self.peer = Peer(self.argv)
        except OSError as e:
            raise ProtocolFault(f"cannot start {self.argv[0]!r}: {e}", ProcessDied) from None
        return Hello(self.peer.receive(limit, "hello"))

    def _restart(self, deadline: float) -> None:
        """A new process after a fault, saying hello by `deadline` (or within `HELLO_TIMEOUT`); it must
        be the implementation the suite loaded."""
        try:
            hello = self._start(min(HELLO_TIMEOUT, max(0.0, deadline - time.monotonic())))
        except ProtocolFault as e:
            raise ProtocolFault(f"started again, it could not start: {e}", e.failure) from None
        if (hello.name, hello.features, hello.costly_calls) != (self.name, self.features, self.costly_calls):
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


def exec_implementation(spec: str, timeout: float = REQUEST_TIMEOUT,
                        limits: Limits | None = None) -> ProcessImplementation:
    """The implementation behind `exec:COMMAND`, whose `run` calls take at most `timeout` seconds, and each of
    its requests at most what `limits` allow (`window_contract.guards`)."""
    return ProcessImplementation(spec.removeprefix(EXEC_PREFIX), timeout, limits=limits)

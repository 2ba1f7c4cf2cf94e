"""Guards around a plug-in's `run` calls: a time limit a case and a memory limit, each stopping one call.

A plug-in (`module:factory`, an entry point, `exec:COMMAND`) is code the suite does not know: an honest
sliding-window loop over the 10,000,000 windows an element Flink allows ran for 16 minutes and took 10.6 GB
before it was killed, where the contract stops at 10,000 (`TOO_MANY_WINDOWS`). The guards stop such a call
within seconds, the case could not run, and the suite names it (`conformance.properties.harness`).

- **Time**: a call of `n` cases may take `n * case_seconds` (`--case-timeout`), and never more than the
  request timeout (`--request-timeout`). A batch's cases share their budget: one slow case may use what the
  fast ones leave.
- **Memory** (`--memory-limit`), enforced in the way that holds on Linux for each kind of plug-in:
  - an in-process plug-in runs in a worker process forked from the suite's own (`ForkedWorker`: the plug-in
    and its modules as they were, copy-on-write; the worker keeps its state from call to call, as the
    plug-in would in process). The worker's address space may grow by `memory_bytes` beyond what it had
    when it was forked (`RLIMIT_AS`): an allocation past it is a `MemoryError` in the plug-in at once,
    whatever allocates it, which the worker reports before it is ended;
  - a process (`exec:`) is watched (`group_rss`): while the suite waits for its answer, the resident memory
    of every process of its session is sampled every `SAMPLE_SECONDS`, and the group is killed past the
    limit. An address-space limit would stop a JVM or Node.js as it starts: both reserve far more address
    space than they use.

A call a guard stops could not run (`OverLimit`, a `ProcessDied`: the worker or the process is killed and
started again for the next call), never a difference. The project's own implementations (the reference,
Spark, Flink, the engines under test) and a plug-in that declares `costly_calls` (an engine with jobs of its
own, which a fork would cut off from its connections) keep the request timeout alone.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import pickle
import resource
import selectors
import signal
import struct
import sys
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from window_contract.case import Case
from window_contract.implementation import (
    REQUEST_TIMEOUT,
    ImplementationFailure,
    OverLimit,
    ProcessDied,
    TimedOut,
    WithDefaults,
    failure_to_run,
    one_line,
)
from window_contract.observation import Observation

#: Seconds a case of a call may take (`--case-timeout`): a correct plug-in needs milliseconds; the margin is
#: for a loaded machine.
CASE_SECONDS = 10.0
#: Bytes a plug-in may grow by (`--memory-limit`, given in MiB).
MEMORY_BYTES = 4 * 2**30
#: How often a process's resident memory is sampled while the suite waits for its answer.
SAMPLE_SECONDS = 0.1

_LENGTH = struct.Struct("!Q")


@dataclass(frozen=True)
class Limits:
    """The guards of a plug-in's calls: `case_seconds` a case, `memory_bytes` of growth (module docstring)."""

    case_seconds: float = CASE_SECONDS
    memory_bytes: int = MEMORY_BYTES

    def call_seconds(self, cases: int, timeout: float) -> tuple[float, bool]:
        """The time a call of `cases` cases may take, and whether the case limit (not `timeout`) sets it."""
        budget = self.case_seconds * max(1, cases)
        return (budget, True) if budget < timeout else (timeout, False)

    def over_time(self, cases: int) -> str:
        return (f"a run call of {cases} case(s) did not return within {self.call_seconds(cases, float('inf'))[0]:g} s "
                f"({self.case_seconds:g} s a case, --case-timeout)")

    def over_memory(self, cases: int, how: str) -> str:
        return (f"a run call of {cases} case(s) {how} more than {self.memory_bytes // 2**20} MiB of memory "
                "(--memory-limit)")


DEFAULT_LIMITS = Limits()


def guarded(impl: Any, limits: Limits | None) -> Any:
    """`impl` with its calls guarded (`Guarded`), unless `limits` is `None` or it declares `costly_calls` or
    keeps its own limits (`run_bounded`, a process)."""
    if limits is None or getattr(impl, "costly_calls", False) or hasattr(impl, "run_bounded"):
        return impl
    return Guarded(impl, limits)


class Guarded(WithDefaults):
    """An in-process plug-in whose `run` calls go to a `ForkedWorker` within `limits`; everything else is the
    plug-in's own."""

    def __init__(self, impl: object, limits: Limits) -> None:
        super().__init__(impl)
        self.limits = limits
        self.worker: ForkedWorker | None = None

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return self.run_bounded(cases, REQUEST_TIMEOUT)

    def run_bounded(self, cases: Sequence[Case], timeout: float) -> list[Observation]:
        if self.worker is None:
            self.worker = ForkedWorker(self.wrapped, self.limits.memory_bytes)
        try:
            return self.worker.call(list(cases), *self.limits.call_seconds(len(cases), timeout), self.limits)
        except ImplementationFailure as e:
            if isinstance(e, ProcessDied | TimedOut):  # the next call forks a worker anew
                self._end_worker()
            raise

    def close(self) -> None:
        """End the worker, and close the plug-in if it can be."""
        self._end_worker()
        getattr(self.wrapped, "close", lambda: None)()

    def _end_worker(self) -> None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.kill()


class ForkedWorker:
    """A child of the suite's process that answers `run` calls of `impl` (module docstring): each call's cases go
    to it pickled, its outcome comes back pickled, with what the plug-in printed (`sys.stdout`, `sys.stderr`),
    which the suite's process prints where the plug-in's own prints would have gone. It ends when the suite's
    process closes its end of the requests, or is killed with its process group."""

    def __init__(self, impl: object, memory_bytes: int) -> None:
        requests_read, self.requests = os.pipe()
        self.answers, answers_write = os.pipe()
        growth_limit = _address_space() + memory_bytes
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.close(self.requests)
                os.close(self.answers)
                os.setpgid(0, 0)  # its own group: a terminal's Ctrl-C goes to the suite, which ends it
                for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                    signal.signal(signum, signal.SIG_DFL)  # not the suite's handlers: a signal just ends it
                _, hard = resource.getrlimit(resource.RLIMIT_AS)
                limit = growth_limit if hard == resource.RLIM_INFINITY else min(growth_limit, hard)
                resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
                _serve(impl, requests_read, answers_write)
            finally:
                os._exit(0)
        os.close(requests_read)
        os.close(answers_write)
        _WORKERS.add(self)

    def call(self, cases: list[Case], seconds: float, by_case_limit: bool, limits: Limits) -> list[Observation]:
        """The worker's observations of `cases` within `seconds`; what `run` raised, raised here (a failure to
        run as `ImplementationFailure`); `OverLimit` or `TimedOut` when a limit stops it (it is killed)."""
        try:
            _send(self.requests, pickle.dumps(cases))
        except OSError:
            raise ProcessDied(f"the plug-in's worker process ended before the call ({self._ended()})") from None
        try:
            outcome = _receive(self.answers, time.monotonic() + seconds)
        except TimeoutError:
            self.kill()
            if by_case_limit:
                raise OverLimit(limits.over_time(len(cases))) from None
            raise TimedOut(f"a run call of {len(cases)} case(s) did not return within {seconds:g} s") from None
        except EOFError:
            raise ProcessDied(f"the run call ended its process ({self._ended()}) before it finished: a plug-in's "
                              "run returns its observations, and must not end the process") from None
        kind, value, (out, err) = outcome
        sys.stdout.write(out)  # what the plug-in printed, where it would have printed in the suite's process
        sys.stderr.write(err)
        if kind == "answer":
            return value
        if kind == "memory":
            raise OverLimit(limits.over_memory(len(cases), "needed"))
        if kind == "raised":
            raise value
        raise ImplementationFailure(value)

    def _ended(self) -> str:
        """How the worker ended (it is waited for)."""
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return "already ended"
        self.pid = 0
        if os.WIFSIGNALED(status):
            return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
        return f"exit status {os.WEXITSTATUS(status)}"

    def kill(self) -> None:
        """Kill the worker with its process group, and close the pipes."""
        if self.pid:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._ended()
        for fd in (self.requests, self.answers):
            try:
                os.close(fd)
            except OSError:
                pass
        self.requests = self.answers = -1

    def __del__(self) -> None:
        self.kill()


#: The workers running, so that every exit of the suite ends them (`end_workers`).
_WORKERS: weakref.WeakSet[ForkedWorker] = weakref.WeakSet()


def end_workers() -> None:
    """Kill every worker this process forked, with its process group: at exit, and at once when the suite is
    interrupted or terminated (`window_contract.process.end_processes` calls it)."""
    for worker in list(_WORKERS):
        worker.kill()


atexit.register(end_workers)

#: What the worker says when a call ran out of memory, pickled before anything is allocated.
_MEMORY = pickle.dumps(("memory", None, ("", "")))


def _serve(impl: Any, requests: int, answers: int) -> None:
    """The worker's loop: a call's cases in, its outcome out, until the requests end."""
    while True:
        try:
            cases = pickle.loads(_receive_bytes(requests, None))
        except EOFError:
            return
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            kind, value = _outcome(impl, cases)
        printed = (out.getvalue(), err.getvalue())
        try:
            data = pickle.dumps((kind, value, printed))
        except MemoryError:
            data = _MEMORY
        except Exception as e:  # an answer that does not pickle (a lambda, a generator, an open file)
            data = pickle.dumps(("failure", "run answered with something that cannot leave its worker process: "
                                            f"{one_line(e)}", printed))
        _send(answers, data)


def _outcome(impl: Any, cases: list[Case]) -> tuple[str, Any]:
    """`impl.run(cases)` as something the suite's process can read: the answer, `memory` when the call ran out of
    its memory, a failure to run's reason (an exception's causes do not survive pickling), a plug-in's own
    exception, or why the call ended instead of answering."""
    try:
        answer = impl.run(cases)
    except MemoryError:
        return "memory", None
    except Exception as e:
        reason = failure_to_run(e)
        if reason is not None:
            return "failure", reason
        return "raised", _portable(e)
    except BaseException as e:  # SystemExit, KeyboardInterrupt: the plug-in ended its call instead of answering
        arguments = f"({', '.join(map(repr, e.args))})" if e.args else ""
        return "failure", (f"run raised {type(e).__name__}{arguments} instead of answering: a plug-in's run returns "
                           "its observations, and must not end the process")
    return "answer", answer


def _portable(error: Exception) -> Exception:
    """`error` if it pickles, else an exception of the same class name and message."""
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return type(type(error).__name__, (Exception,), {})(str(error))


def _send(fd: int, data: bytes) -> None:
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int, deadline: float) -> Any:
    return pickle.loads(_receive_bytes(fd, deadline))


def _receive_bytes(fd: int, deadline: float | None) -> bytes:
    """One message from `fd`; `EOFError` when it closes first, `TimeoutError` past `deadline`."""
    header = _read(fd, _LENGTH.size, deadline)
    return _read(fd, _LENGTH.unpack(header)[0], deadline)


def _read(fd: int, size: int, deadline: float | None) -> bytes:
    parts, missing = [], size
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while missing:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and (wait <= 0 or not selector.select(wait)):
                raise TimeoutError
            chunk = os.read(fd, min(missing, 2**20))
            if not chunk:
                raise EOFError
            parts.append(chunk)
            missing -= len(chunk)
    return b"".join(parts)


def _address_space() -> int:
    """This process's address space now, in bytes (`VmSize`)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def group_rss(session: int) -> int:
    """The resident memory, in bytes, of every process of `session` (a process started in a session of its own,
    and what it started), from `/proc`."""
    total = 0
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after the command, which may hold spaces
        if int(fields[3]) == session:  # field 6 of proc(5): the session id
            total += int(fields[21]) * page  # field 24: resident pages
    return total

"""The implementation interface (docs/format.md, docs/protocol.md).

An implementation has a `name`, the `features` it supports and `run(cases) -> observations`: a batch
in, one observation per case out, in the same order. `window_contract.registry` finds one by name.

A run has three outcomes, and this module draws the line between the last two:

- the implementation *differs*: it gave an observation the rules reject, or its `run` raised an
  exception of its own (a `ValueError`, a `ZeroDivisionError`: the rule "run gives an observation for
  every case" is broken, and the case that raised is a counterexample like any other);
- the implementation *could not run*: `run` raised `ImplementationFailure`, or an engine's machinery
  failed under it (`failure_to_run`: an `OSError` such as a missing `java` or a refused
  connection, `MemoryError`, a lost JVM), or a request ran past its timeout. Nothing is known
  about the cases then: they are errors, never counterexamples.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from window_contract.case import Case
from window_contract.observation import Observation

#: Where a third-party library's own exception type means that an engine's machinery died (a qualified class
#: name, as the contract imports no engine), and what died. An adapter's own such exception is an
#: `EngineUnavailable`.
ENGINE_FAILURES: dict[str, str] = {
    "py4j.protocol.Py4JNetworkError": "the Spark JVM (its py4j connection was lost)",
    "pyspark.errors.exceptions.base.PySparkRuntimeError": "Spark could not start or lost its JVM",
}


class EngineUnavailable(RuntimeError):
    """An adapter's machinery is missing or does not start (a JDK, an engine's jars): the cases could not run.
    A subclass names what is missing in `what`."""

    what = "the engine's machinery"


#: Where an `OSError` raised by an engine's client library (a package) means that the engine's process
#: died or never started: a refused connection says nothing to a user until it names what refused it.
ENGINE_CLIENTS: dict[str, str] = {
    "py4j": "the Spark JVM is gone (py4j, which talks to it, cannot reach it)",
}


def _raised_in(error: BaseException) -> str:
    """The package whose code raised `error` (the last frame of its traceback)."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return "" if tb is None else tb.tb_frame.f_globals.get("__name__", "").partition(".")[0]


@runtime_checkable
class Implementation(Protocol):
    """What the suite runs. `name`, `features` and `run` are required; `costly_calls` and
    `position_free` default to False (`load_implementation` fills them in for an object that leaves
    them out). Set `costly_calls` when every `run` call costs a job (Spark, Flink), so that the suite
    batches a property's examples into a few large calls (prefetching). Set `position_free` when the
    implementation cannot tell when it emitted something: its observations have `at = None`, it is
    compared over whole cases (`window_contract.equivalence`), and the properties about positions are
    not run against it. Two methods are optional and looked up by name: `run_requests` (many `run`
    calls answered in one job, `conformance.properties.harness`) and `start()` (an engine to start
    before the first call, which a prefetched suite does while it records or waits for the reference's
    recordings)."""

    name: str
    features: frozenset[str]
    costly_calls: bool
    position_free: bool

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        """One observation per case, in order. A case that Flink rejects gets an `error`."""
        ...


#: The members an object must have to be an implementation.
REQUIRED_MEMBERS = ("name", "features", "run")
#: The members it may leave out, and their defaults.
OPTIONAL_MEMBERS = {"costly_calls": False, "position_free": False}


class WithDefaults:
    """An implementation that leaves out an optional member of the protocol, with its default."""

    def __init__(self, impl: object) -> None:
        self.wrapped = impl

    def __getattr__(self, member: str) -> object:
        if member in OPTIONAL_MEMBERS and not hasattr(self.wrapped, member):
            return OPTIONAL_MEMBERS[member]
        return getattr(self.wrapped, member)


class ImplementationNotFound(LookupError):
    pass


class ImplementationFailure(Exception):
    """The implementation could not run the cases: its engine is missing or died, or a request
    timed out. Raise it from `run` (with what went wrong, in one line) when the machinery under an
    implementation fails; the suite then reports the cases as not run, never as a difference."""


class TimedOut(ImplementationFailure):
    """A `run` call (or a process's hello) did not come back within its time limit: whatever holds the
    implementation up will hold the next call up too."""


class ProcessDied(ImplementationFailure):
    """The implementation's process ended, or did not start again, while the suite waited for it."""


class OverLimit(ProcessDied):
    """A guard stopped a plug-in's `run` call (`window_contract.guards`): its time a case or its memory ran out.
    The plug-in's worker or process is killed, and started again for the next call."""


class CouldNotRun(BaseException):
    """The suite's signal that a test could not run its cases (raised by the property harness from
    an `ImplementationFailure` or an engine's failure). A `BaseException`, like `KeyboardInterrupt`,
    so that Hypothesis stops at once: it shrinks only `Exception`s, and shrinking a failure of the
    machinery would rerun a dead engine or a timeout hundreds of times. `case` is the case that could not
    run, when one is to blame (a guard stopped it alone, `window_contract.guards`): the run saves it."""

    def __init__(self, message: str, case: Case | None = None) -> None:
        super().__init__(message)
        self.case = case


def failure_to_run(error: BaseException) -> str | None:
    """What could not run, in one line, or `None` when `error` (and what caused it) is the
    implementation's own bug: it differs. See the module's docstring."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        kind = type(cause)
        engine = ENGINE_FAILURES.get(f"{kind.__module__}.{kind.__qualname__}")
        if isinstance(cause, CouldNotRun | ImplementationFailure):
            return str(cause)
        if isinstance(cause, EngineUnavailable):
            return f"{cause.what}: {one_line(cause)}"
        if engine is not None:
            return f"{engine}: {one_line(cause)}"
        if isinstance(cause, OSError | MemoryError):
            client = ENGINE_CLIENTS.get(_raised_in(cause))
            return f"{client + ': ' if client else ''}{kind.__name__}: {one_line(cause)}"
        cause = cause.__cause__ or cause.__context__
    return None


#: Seconds one `run` call may take before its cases count as not run. Generous: a prefetched call
#: sends a thousand cases to Spark or Flink, which takes a minute or two on a loaded machine.
REQUEST_TIMEOUT = 600.0


def run_within(impl: Implementation, cases: Sequence[Case], timeout: float) -> list[Observation]:
    """`impl.run(cases)`, or `ImplementationFailure` when it does not return within `timeout`
    seconds. Whatever `run` raises is raised here. An implementation with `run_bounded(cases, timeout)`
    (a process, `window_contract.process`) keeps the limit itself.

    The call runs in a thread of its own: a `run` that never returns cannot be stopped, but the
    caller no longer waits for it (the thread is a daemon and ends with the process). What it raises
    that is no `Exception` (`SystemExit` from `sys.exit`, `KeyboardInterrupt`) came from the plug-in,
    since signals reach the main thread only: the plug-in ended its call instead of answering, and
    nothing is known about the cases (`ImplementationFailure`), never a pass.
    """
    bounded = getattr(impl, "run_bounded", None)
    if bounded is not None:  # a process keeps the limit itself: it is killed and started again
        return bounded(cases, timeout)
    answer: list[tuple[bool, object]] = []

    def call() -> None:
        try:
            answer.append((True, impl.run(cases)))
        except BaseException as e:  # handed to the caller's thread, which decides what it means
            answer.append((False, e))

    worker = threading.Thread(target=call, name=f"run {impl.name}", daemon=True)
    worker.start()
    worker.join(timeout)
    if not answer:
        raise TimedOut(f"a run call of {len(cases)} case(s) did not return within {timeout:g} s")
    returned, value = answer[0]
    if returned:
        return value
    if isinstance(value, Exception | CouldNotRun):
        raise value
    raise ImplementationFailure(f"run raised {type(value).__name__}{_arguments(value)} instead of answering: a "
                                "plug-in's run returns its observations, and must not end the process") from value


class RunJoins:
    """An implementation's `run_joins` as a `run`, so that `run_within` keeps the request timeout over it."""

    def __init__(self, impl: Implementation) -> None:
        self.name, self.run = impl.name, impl.run_joins


def _arguments(error: BaseException) -> str:
    """`(0)` for `SystemExit(0)`, nothing for `KeyboardInterrupt()`."""
    return f"({', '.join(map(repr, error.args))})" if error.args else ""


def one_line(error: BaseException) -> str:
    """The first line of an exception's message (a JVM's stack trace stays in the log)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__

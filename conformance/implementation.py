"""The implementation interface and its registry (docs/format.md, docs/protocol.md).

An implementation has a `name`, the `features` it supports and `run(cases) -> observations`: a batch
in, one observation per case out, in the same order. `load_implementation` finds one by registered
name, by `package.module:factory`, or through the entry-point group `window_conformance.implementations`
of installed packages. Nothing here imports an implementation until it is asked for.

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

import importlib
import threading
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from conformance.case import Case
from conformance.observation import Observation

ENTRY_POINT_GROUP = "window_conformance.implementations"

#: name -> "module:factory"; the factory takes no arguments and returns an `Implementation`.
BUILTIN: dict[str, str] = {
    "reference": "reference.implementation:ReferenceImplementation",
    "reference-flink-1.12": "reference.implementation:flink_1_12_variant",
    "spark": "spark_impl.implementation:SparkImplementation",
    "flink": "flink_impl.implementation:FlinkImplementation",
    "flink-1.20": "flink_impl.implementation:Flink120Implementation",
    "flink-sql": "flink_impl.sql:FlinkSqlImplementation",
    "flink-sql-1.20": "flink_impl.sql:FlinkSql120Implementation",
    "flink-sql-legacy": "flink_impl.sql:FlinkSqlLegacyImplementation",
    "pyflink-python": "engines.pyflink_python:PyFlinkPythonImplementation",
    "spark-streaming": "engines.spark_streaming:SparkStreamingImplementation",
    "beam": "engines.beam_process:beam",
}


#: Where an engine's own exception type means that its machinery died (a qualified class name, as
#: the contract imports no engine), and what died.
ENGINE_FAILURES: dict[str, str] = {
    "py4j.protocol.Py4JNetworkError": "the Spark JVM (its py4j connection was lost)",
    "pyspark.errors.exceptions.base.PySparkRuntimeError": "Spark could not start or lost its JVM",
    "flink_impl.toolchain.FlinkUnavailable": "Flink's toolchain (java, javac or Flink's jars)",
}


@runtime_checkable
class Implementation(Protocol):
    """What the suite runs. `name`, `features` and `run` are required; `costly_calls` and
    `position_free` default to False (`load_implementation` fills them in for an object that leaves
    them out). Set `costly_calls` when every `run` call costs a job (Spark, Flink), so that the suite
    batches a property's examples into a few large calls (prefetching). Set `position_free` when the
    implementation cannot tell when it emitted something: its observations have `at = None`, it is
    compared over whole cases (`conformance.equivalence`), and the properties about positions are
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


class CouldNotRun(BaseException):
    """The suite's signal that a test could not run its cases (raised by the property harness from
    an `ImplementationFailure` or an engine's failure). A `BaseException`, like `KeyboardInterrupt`,
    so that Hypothesis stops at once: it shrinks only `Exception`s, and shrinking a failure of the
    machinery would rerun a dead engine or a timeout hundreds of times."""


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
        if engine is not None:
            return f"{engine}: {one_line(cause)}"
        if isinstance(cause, OSError | MemoryError):
            return f"{kind.__name__}: {one_line(cause)}"
        cause = cause.__cause__ or cause.__context__
    return None


#: Seconds one `run` call may take before its cases count as not run. Generous: a prefetched call
#: sends a thousand cases to Spark or Flink, which takes a minute or two on a loaded machine.
REQUEST_TIMEOUT = 600.0


def run_within(impl: Implementation, cases: Sequence[Case], timeout: float) -> list[Observation]:
    """`impl.run(cases)`, or `ImplementationFailure` when it does not return within `timeout`
    seconds. Whatever `run` raises is raised here. An implementation with `run_bounded(cases, timeout)`
    (a process, `conformance.process`) keeps the limit itself.

    The call runs in a thread of its own: a `run` that never returns cannot be stopped, but the
    caller no longer waits for it (the thread is a daemon and ends with the process).
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
        raise ImplementationFailure(f"a run call of {len(cases)} case(s) did not return within {timeout:g} s")
    returned, value = answer[0]
    if not returned:
        raise value
    return value


def one_line(error: BaseException) -> str:
    """The first line of an exception's message (a JVM's stack trace stays in the log)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def entry_points(group: str) -> list:
    from importlib.metadata import entry_points as installed  # slow to import; only needed here

    return list(installed(group=group))


def registered_names() -> list[str]:
    return sorted(set(BUILTIN) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _resolve(target: str) -> object:
    module_name, _, attr = target.partition(":")
    if not attr:
        raise ImplementationNotFound(f"{target!r}: expected 'package.module:factory'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ImplementationNotFound(f"{target!r}: cannot import {module_name!r}: {e}") from e
    except Exception as e:  # the plug-in's own module failed while it was imported
        raise ImplementationNotFound(
            f"{target!r}: importing {module_name!r} failed: {type(e).__name__}: {one_line(e)}") from e
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImplementationNotFound(f"{target!r}: module {module_name!r} has no {attr!r}") from None


def load_implementation(spec: str) -> Implementation:
    """The implementation named `spec`: a registered name, an entry point, `module:factory`, or
    `exec:COMMAND` (a process speaking the JSON-lines protocol, `conformance.process`)."""
    if spec.startswith("exec:"):
        from conformance.process import exec_implementation  # starts the process: only when asked

        factory = exec_implementation(spec)
    elif spec in BUILTIN:
        factory = _resolve(BUILTIN[spec])
    elif ":" in spec:
        factory = _resolve(spec)
    else:
        found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == spec]
        if not found:
            raise ImplementationNotFound(
                f"no implementation {spec!r}; registered: {', '.join(registered_names())}, "
                "or give 'package.module:factory'")
        factory = found[0].load()
    if _members_missing(factory) == [] and not isinstance(factory, type):
        impl = factory
    elif callable(factory):
        try:
            impl = factory()
        except Exception as e:
            reason = failure_to_run(e)
            if reason is not None:
                raise ImplementationFailure(f"{spec!r} could not start: {reason}") from e
            raise ImplementationNotFound(f"{spec!r}: creating the implementation failed: "
                                         f"{type(e).__name__}: {one_line(e)}") from e
    else:
        raise ImplementationNotFound(f"{spec!r} is neither an implementation nor a factory of one")
    missing = _members_missing(impl)
    if missing:
        raise ImplementationNotFound(f"{spec!r} did not give an implementation: it has no "
                                     f"{', '.join(missing)} (needs {', '.join(REQUIRED_MEMBERS)})")
    _check_features(spec, impl.features)
    return impl if all(hasattr(impl, member) for member in OPTIONAL_MEMBERS) else WithDefaults(impl)


def _members_missing(obj: object) -> list[str]:
    return [member for member in REQUIRED_MEMBERS if not hasattr(obj, member)]


def _check_features(spec: str, features: object) -> None:
    """Declared features must be names of `FEATURES`: a misspelled one would silently be untested."""
    from conformance.features import ALL_FEATURES

    if not isinstance(features, frozenset | set) or not all(isinstance(f, str) for f in features):
        raise ImplementationNotFound(f"{spec!r}: features must be a frozenset of feature names")
    unknown = sorted(features - ALL_FEATURES)
    if unknown:
        raise ImplementationNotFound(
            f"{spec!r} declares unknown features: {', '.join(unknown)} "
            "(the names are those of conformance.features.FEATURES)")

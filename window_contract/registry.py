"""The registry of implementations: `load_implementation` finds one by registered name, by
`package.module:factory`, by `exec:COMMAND` (a process, `window_contract.process`), or through the
entry-point group `window_conformance.implementations` of installed packages. Nothing here imports an
implementation until it is asked for.
"""

from __future__ import annotations

import difflib
import importlib

from window_contract.features import ALL_FEATURES
from window_contract.guards import DEFAULT_LIMITS, Limits, guarded
from window_contract.implementation import (
    OPTIONAL_MEMBERS,
    REQUEST_TIMEOUT,
    REQUIRED_MEMBERS,
    Implementation,
    ImplementationFailure,
    ImplementationNotFound,
    WithDefaults,
    failure_to_run,
    one_line,
)
from window_contract.process import exec_implementation

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
    "beam": "engines.venv_engines:beam",
    "kafka-streams": "engines.jvm:kafka_streams",
    "kafka-streams-updates": "engines.jvm:kafka_streams_updates",
    "bytewax": "engines.venv_engines:bytewax",
    "quix-streams": "engines.venv_engines:quix_streams",
    "pathway": "engines.venv_engines:pathway",
    "hazelcast-jet": "engines.jvm:hazelcast_jet",
}

#: The extra of this package (pyproject.toml) that installs what a registered implementation imports;
#: without it the engine is missing, and the implementation could not run.
EXTRAS: dict[str, str] = {"spark": "spark", "spark-streaming": "spark", "pyflink-python": "pyflink"}


def entry_points(group: str) -> list:
    from importlib.metadata import entry_points as installed  # slow to import; only needed here

    return list(installed(group=group))


def registered_names() -> list[str]:
    return sorted(set(BUILTIN) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _resolve(target: str) -> object:
    """The object `package.module:attribute` names; an `ImportError` of the module is the caller's."""
    module_name, _, attr = target.partition(":")
    if not attr:
        raise ImplementationNotFound(f"{target!r}: expected 'package.module:factory'")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise
    except Exception as e:  # the plug-in's own module failed while it was imported
        raise ImplementationNotFound(
            f"{target!r}: importing {module_name!r} failed: {type(e).__name__}: {one_line(e)}") from e
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImplementationNotFound(f"{target!r}: module {module_name!r} has no {attr!r}") from None


def load_implementation(spec: str, timeout: float = REQUEST_TIMEOUT,
                        limits: Limits | None = DEFAULT_LIMITS) -> Implementation:
    """The implementation named `spec`: a registered name, an entry point, `module:factory`, or
    `exec:COMMAND` (a process speaking the JSON-lines protocol, `window_contract.process`, which says
    hello within `timeout` seconds, at most `HELLO_TIMEOUT`). A plug-in's `run` calls are guarded by
    `limits` (`window_contract.guards`: a time a case and a memory limit; `None`, not at all); the
    registered implementations are the project's own, and keep `timeout` alone.

    `ImplementationNotFound` (a usage error) when `spec` names nothing, or a plug-in that does not
    import or is not an implementation; `ImplementationFailure` (could not run) when a registered
    engine is not installed, or an implementation cannot start its engine."""
    if spec.startswith("exec:"):
        impl = exec_implementation(spec, timeout, limits)
    elif spec in BUILTIN:
        impl = _registered(spec)
    else:
        try:
            impl = _made(spec, _resolve(spec) if ":" in spec else _entry_point(spec))
        except ImportError as e:
            raise ImplementationNotFound(f"{spec!r}: cannot import {spec.partition(':')[0]!r}: {e}") from e
    missing = _members_missing(impl)
    if missing:
        raise ImplementationNotFound(f"{spec!r} did not give an implementation: it has no "
                                     f"{', '.join(missing)} (needs {', '.join(REQUIRED_MEMBERS)})")
    _check_members(spec, impl)
    if spec not in BUILTIN and not spec.startswith("exec:"):
        impl = guarded(impl, limits)
    return impl if all(hasattr(impl, member) for member in OPTIONAL_MEMBERS) else WithDefaults(impl)


def _registered(name: str) -> Implementation:
    """A registered implementation: an engine that does not import (an extra not installed) could not run."""
    try:
        return _made(name, _resolve(BUILTIN[name]))
    except ImportError as e:
        extra = f"pip install 'window-conformance[{EXTRAS[name]}]' installs it; " if name in EXTRAS else ""
        raise ImplementationFailure(f"{name} could not run: its engine is missing ({one_line(e)}): {extra}"
                                    "./dev setup installs every engine") from e


def _entry_point(name: str) -> object:
    """What an installed package registers as `name`; an unknown name suggests the nearest."""
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if found:
        return found[0].load()
    names = registered_names()
    nearest = difflib.get_close_matches(name, names, n=1)
    raise ImplementationNotFound(
        f"no implementation {name!r}" + (f" (did you mean {nearest[0]!r}?)" if nearest else "")
        + f"; registered: {', '.join(names)}, or give 'package.module:factory' or 'exec:COMMAND'")


def _made(spec: str, factory: object) -> Implementation:
    """`factory` itself when it is an implementation, else what calling it gives. Its `ImportError`
    goes to the caller; a failure to run (`failure_to_run`) could not start; any other exception is
    the plug-in's own (a usage error)."""
    if _members_missing(factory) == [] and not isinstance(factory, type):
        return factory
    if not callable(factory):
        raise ImplementationNotFound(f"{spec!r} is neither an implementation nor a factory of one")
    try:
        return factory()
    except ImportError:
        raise
    except Exception as e:
        reason = failure_to_run(e)
        if reason is not None:
            raise ImplementationFailure(f"{spec!r} could not start: {reason}") from e
        raise ImplementationNotFound(f"{spec!r}: creating the implementation failed: "
                                     f"{type(e).__name__}: {one_line(e)}") from e


def _members_missing(obj: object) -> list[str]:
    return [member for member in REQUIRED_MEMBERS if not hasattr(obj, member)]


def _check_members(spec: str, impl: Implementation) -> None:
    """The name a report shows must be a non-empty string, the flags booleans, and the declared
    features names of `FEATURES` (a misspelled one would silently be untested)."""
    if not isinstance(impl.name, str) or not impl.name.strip():
        raise ImplementationNotFound(f"{spec!r}: name must be a non-empty string, not {impl.name!r}")
    for flag in OPTIONAL_MEMBERS:
        if not isinstance(getattr(impl, flag, False), bool):
            raise ImplementationNotFound(f"{spec!r}: {flag} must be True or False, not {getattr(impl, flag)!r}")
    features = impl.features
    if not isinstance(features, frozenset | set) or not all(isinstance(f, str) for f in features):
        raise ImplementationNotFound(f"{spec!r}: features must be a frozenset of feature names")
    unknown = sorted(features - ALL_FEATURES)
    if unknown:
        raise ImplementationNotFound(
            f"{spec!r} declares unknown features: {', '.join(unknown)} "
            "(the names are those of window_contract.features.FEATURES)")

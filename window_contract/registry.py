"""The registry of implementations: `load_implementation` finds one by registered name, by
`package.module:factory`, by `exec:COMMAND` (a process, `window_contract.process`), or through the
entry-point group `window_conformance.implementations` of installed packages. Nothing here imports an
implementation until it is asked for.
"""

from __future__ import annotations

import importlib

from window_contract.features import ALL_FEATURES
from window_contract.implementation import (
    OPTIONAL_MEMBERS,
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
    "hazelcast-jet": "engines.jvm:hazelcast_jet",
}



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
    `exec:COMMAND` (a process speaking the JSON-lines protocol, `window_contract.process`)."""
    if spec.startswith("exec:"):
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
    if not isinstance(features, frozenset | set) or not all(isinstance(f, str) for f in features):
        raise ImplementationNotFound(f"{spec!r}: features must be a frozenset of feature names")
    unknown = sorted(features - ALL_FEATURES)
    if unknown:
        raise ImplementationNotFound(
            f"{spec!r} declares unknown features: {', '.join(unknown)} "
            "(the names are those of window_contract.features.FEATURES)")

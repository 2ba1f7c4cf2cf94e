"""The implementation interface and its registry (DESIGN.md §4).

An implementation has a `name`, the `features` it supports and `run(cases) -> observations`: a batch
in, one observation per case out, in the same order. `load_implementation` finds one by registered
name, by `package.module:factory`, or through the entry-point group `window_conformance.implementations`
of installed packages. Nothing here imports an implementation until it is asked for.
"""

from __future__ import annotations

import importlib
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
}


@runtime_checkable
class Implementation(Protocol):
    name: str
    features: frozenset[str]

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        """One observation per case, in order. A case that Flink rejects gets an `error`."""
        ...


class ImplementationNotFound(LookupError):
    pass


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
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ImplementationNotFound(f"{target!r}: module {module_name!r} has no {attr!r}") from None


def load_implementation(spec: str) -> Implementation:
    """The implementation named `spec`: a registered name, an entry point, or `module:factory`."""
    if spec in BUILTIN:
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
    if isinstance(factory, Implementation) and not isinstance(factory, type):
        impl = factory
    elif callable(factory):
        impl = factory()
    else:
        raise ImplementationNotFound(f"{spec!r} is neither an implementation nor a factory of one")
    if not isinstance(impl, Implementation):
        raise ImplementationNotFound(f"{spec!r} did not give an implementation (needs name, features, run)")
    return impl

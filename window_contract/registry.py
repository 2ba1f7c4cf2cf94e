"""The registry of implementations: `load_implementation` finds one by a name an installed package's catalogue
registers (the entry-point group `window_conformance.catalogues`: this project's reads its engine manifests), by
`package.module:factory`, by `exec:COMMAND` (a process, `window_contract.process`), or through the entry-point
group `window_conformance.implementations` of installed packages. The contract names no implementation: which
exist is its catalogues' business. Nothing here imports an implementation until it is asked for.
"""

from __future__ import annotations

import difflib
import functools
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from window_contract.features import ALL_JOIN_NAMES, DECLARABLE_FEATURES
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

#: The entry-point group of catalogues: each entry point names a callable that returns the implementations a
#: package registers by name, `{name: Registered}` (this project's reads its engine manifests); a plug-in of one
#: implementation registers it in `ENTRY_POINT_GROUP` instead.
CATALOGUE_GROUP = "window_conformance.catalogues"


@dataclass(frozen=True)
class Registered:
    """An implementation a catalogue names: its `factory` (`package.module:factory`), called with `arguments`,
    and what to tell a user when what it imports is not installed (`install`)."""

    factory: str
    arguments: Mapping[str, object] = field(default_factory=dict)
    install: str = ""


def entry_points(group: str) -> list:
    from importlib.metadata import entry_points as installed  # slow to import; only needed here

    return list(installed(group=group))


#: Catalogues added by the packages that hold them when they are imported (`add_catalogue`), beside the installed
#: ones: a checkout run without installing it (or installed before its catalogue was) still finds its names.
_ADDED: list[Callable[[], Mapping[str, Registered]]] = []


def add_catalogue(catalogue: Callable[[], Mapping[str, Registered]]) -> None:
    """Register the names `catalogue` gives, as an entry point of `CATALOGUE_GROUP` does."""
    if catalogue not in _ADDED:
        _ADDED.append(catalogue)


def catalogue() -> dict[str, Registered]:
    """Every implementation the catalogues (installed and added) register by name."""
    installed = [ep.load() for ep in entry_points(group=CATALOGUE_GROUP)]
    return {name: registered for each in dict.fromkeys([*installed, *_ADDED]) for name, registered in each().items()}


def registered_names() -> list[str]:
    return sorted(set(catalogue()) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


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
    registered = {} if spec.startswith("exec:") or ":" in spec else catalogue()
    if spec.startswith("exec:"):
        impl = exec_implementation(spec, timeout, limits)
    elif spec in registered:
        impl = _registered(spec, registered[spec])
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
    if spec not in registered and not spec.startswith("exec:"):
        impl = guarded(impl, limits)
    return impl if all(hasattr(impl, member) for member in OPTIONAL_MEMBERS) else WithDefaults(impl)


def _registered(name: str, registered: Registered) -> Implementation:
    """A registered implementation: an engine that does not import (what it needs not installed) could not run."""
    try:
        factory = _resolve(registered.factory)
        return _made(name, functools.partial(factory, **registered.arguments) if registered.arguments else factory)
    except ImportError as e:
        raise ImplementationFailure(f"{name} could not run: its engine is missing ({one_line(e)})"
                                    + (f": {registered.install}" if registered.install else "")) from e


def _entry_point(name: str) -> object:
    """What an installed package registers as `name`; an unknown name suggests the nearest."""
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if found:
        return found[0].load()
    names = registered_names()
    nearest = difflib.get_close_matches(name, names, n=1)
    registered = ", ".join(names) if names else (f"none (no installed package has a catalogue, {CATALOGUE_GROUP}: "
                                                 "is the suite installed, and up to date?)")
    raise ImplementationNotFound(
        f"no implementation {name!r}" + (f" (did you mean {nearest[0]!r}?)" if nearest else "")
        + f"; registered: {registered}, or give 'package.module:factory' or 'exec:COMMAND'")


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
    unknown = sorted(features - DECLARABLE_FEATURES)
    if unknown:
        raise ImplementationNotFound(
            f"{spec!r} declares unknown features: {', '.join(unknown)} "
            "(the names are those of window_contract.features.FEATURES, JOIN_FEATURES and SQL_JOIN_FEATURES)")
    joins = sorted(features & ALL_JOIN_NAMES)
    if joins and not callable(getattr(impl, "run_joins", None)):
        raise ImplementationNotFound(f"{spec!r} declares {', '.join(joins)} but has no run_joins(cases) to run "
                                     "join cases with")

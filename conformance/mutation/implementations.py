"""Every mutant as a `--impl` target: `--impl conformance.mutation.implementations:<mutant name>`."""

from __future__ import annotations

from conformance.mutation.catalogue import MUTANTS


def __getattr__(name: str):
    if name not in MUTANTS:
        raise AttributeError(name)

    def factory():
        from conformance.mutation.loader import load_mutant

        return load_mutant(name)

    return factory

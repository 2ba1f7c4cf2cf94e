"""Loading a mutant: a private copy of the `reference` package with one mutant's patches applied.

The copy is imported under its own package name (`_mutant_<name>`) from the reference's source
files, patched in memory: nothing on disk changes, the real `reference` package stays as it is (the
differential property still compares with it), and every module of the copy imports the copy's
modules, so a patched class is the one the mutant's operator uses.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import re
import sys
from pathlib import Path

from conformance.mutation.catalogue import MUTANTS, Mutant

REFERENCE = "reference"


class PatchError(ValueError):
    """A patch whose original text is not found exactly once in its module."""


def reference_dir() -> Path:
    spec = importlib.util.find_spec(REFERENCE)
    assert spec is not None and spec.submodule_search_locations, "the reference package is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def patched_source(mutant: Mutant, module: str, source: str) -> str:
    """`source` of reference module `module` with the mutant's patches for it applied."""
    for patch in mutant.patches:
        if patch.module != module:
            continue
        found = source.count(patch.original)
        if found != 1:
            raise PatchError(f"mutant {mutant.name}: the original text is found {found} times in "
                             f"reference/{module}.py, not once:\n{patch.original}")
        source = source.replace(patch.original, patch.replacement)
    return source


def package_name(mutant: Mutant) -> str:
    return f"_mutant_{mutant.name}"


class _MutantPackage(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds and loads the modules of one mutant's copy of the reference package."""

    def __init__(self, mutant: Mutant) -> None:
        self.mutant, self.package, self.directory = mutant, package_name(mutant), reference_dir()

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.package and not fullname.startswith(self.package + "."):
            return None
        module = fullname[len(self.package) + 1:] or "__init__"
        origin = self.directory / f"{module}.py"
        if not origin.exists():
            return None
        return importlib.util.spec_from_file_location(
            fullname, origin, loader=self,
            submodule_search_locations=[] if module == "__init__" else None)

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        name = module.__name__[len(self.package) + 1:] or "__init__"
        source = patched_source(self.mutant, name, (self.directory / f"{name}.py").read_text(encoding="utf-8"))
        # The copy's modules import each other, not the real reference package.
        source = re.sub(rf"\bfrom {REFERENCE}\b", f"from {self.package}", source)
        exec(compile(source, f"{module.__spec__.origin} [mutant {self.mutant.name}]", "exec"), module.__dict__)


def check_patches(mutant: Mutant) -> None:
    """Raise `PatchError` unless every patch's original text occurs exactly once in its module."""
    directory = reference_dir()
    for module in {p.module for p in mutant.patches}:
        patched_source(mutant, module, (directory / f"{module}.py").read_text(encoding="utf-8"))


def load_mutant(name: str):
    """The mutant `name` as an implementation named `mutant:<name>`, supporting every feature."""
    mutant = MUTANTS.get(name)
    if mutant is None:
        raise LookupError(f"no mutant {name!r}; the catalogue has {', '.join(MUTANTS)}")
    check_patches(mutant)
    package = package_name(mutant)
    if package not in sys.modules:
        sys.meta_path.insert(0, _MutantPackage(mutant))
    implementation = importlib.import_module(f"{package}.implementation")
    return implementation.ReferenceImplementation(name=f"mutant:{name}")

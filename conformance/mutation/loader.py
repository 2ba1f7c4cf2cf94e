"""Loading a mutant: a private copy of the `reference` package with one mutant's patches applied.

The copy is imported under its own package name (`_mutant_<name>`) from the reference's source
files, patched in memory: nothing on disk changes, the real `reference` package stays as it is (the
differential property still compares with it), and every module of the copy, subpackages such as
`watermarks` included, imports the copy's modules, so a patched class is the one the mutant's operator
uses and the copy's errors are the ones its driver catches.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.util
import re
import sys
from pathlib import Path

from conformance.mutation.catalogue import MUTANTS, Mutant, Patch

REFERENCE = "reference"


class PatchError(ValueError):
    """A patch whose function is missing from its module, or whose text is not found exactly once in
    that function."""


def reference_dir() -> Path:
    spec = importlib.util.find_spec(REFERENCE)
    assert spec is not None and spec.submodule_search_locations, "the reference package is not installed"
    return Path(next(iter(spec.submodule_search_locations)))


def module_file(directory: Path, module: str) -> tuple[Path, bool]:
    """The source of reference module `module` (dotted below the package: `operator`,
    `watermarks.valve`; `""` for the package itself) and whether it is a package."""
    base = directory.joinpath(*module.split(".")) if module else directory
    if (base / "__init__.py").exists():
        return base / "__init__.py", True
    return base.with_suffix(".py"), False


def function_lines(source: str, qualname: str) -> tuple[int, int] | None:
    """The 0-based `[first, last)` lines of the `def` of `qualname` (`Class.method` or `function`) in
    `source`, decorators excluded; None when the module has no such function."""
    body: list[ast.stmt] = ast.parse(source).body
    node = None
    for name in qualname.split("."):
        node = next((n for n in body if isinstance(n, ast.ClassDef | ast.FunctionDef) and n.name == name), None)
        if node is None:
            return None
        body = node.body
    if not isinstance(node, ast.FunctionDef):
        return None
    return node.lineno - 1, node.end_lineno


def apply_patch(mutant: Mutant, patch: Patch, source: str) -> str:
    """`source` with `patch` applied inside its function, which is dedented to its `def` for the
    match and indented back after."""
    where = f"{patch.module}.{patch.function}"
    span = function_lines(source, patch.function)
    if span is None:
        raise PatchError(f"mutant {mutant.name}: reference/{patch.module}.py has no function {patch.function}")
    lines = source.splitlines(keepends=True)
    first, last = span
    indent = lines[first][:len(lines[first]) - len(lines[first].lstrip())]
    function = "".join(line.removeprefix(indent) for line in lines[first:last])
    found = function.count(patch.original)
    if found != 1:
        raise PatchError(f"mutant {mutant.name}: the original text is found {found} times in {where}, "
                         f"not once:\n{patch.original}")
    patched = function.replace(patch.original, patch.replacement)
    reindented = "".join(indent + line if line.strip() else line for line in patched.splitlines(keepends=True))
    return "".join(lines[:first]) + reindented + "".join(lines[last:])


def patched_source(mutant: Mutant, module: str, source: str) -> str:
    """`source` of reference module `module` with the mutant's patches for it applied, in order."""
    for patch in mutant.patches:
        if patch.module == module:
            source = apply_patch(mutant, patch, source)
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
        origin, is_package = module_file(self.directory, fullname[len(self.package) + 1:])
        if not origin.exists():
            return None
        # A subpackage's modules are found here too (its search path stays empty for other finders),
        # so that they are patched and import the copy.
        return importlib.util.spec_from_file_location(
            fullname, origin, loader=self, submodule_search_locations=[] if is_package else None)

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        name = module.__name__[len(self.package) + 1:]
        source = patched_source(self.mutant, name, Path(module.__spec__.origin).read_text(encoding="utf-8"))
        # The copy's modules import each other, not the real reference package.
        source = re.sub(rf"\bfrom {REFERENCE}\b", f"from {self.package}", source)
        exec(compile(source, f"{module.__spec__.origin} [mutant {self.mutant.name}]", "exec"), module.__dict__)


def check_patches(mutant: Mutant) -> None:
    """Raise `PatchError` unless every patch's function exists and holds its original text exactly
    once, and every patched module still compiles."""
    directory = reference_dir()
    for module in {p.module for p in mutant.patches}:
        source = patched_source(mutant, module, module_file(directory, module)[0].read_text(encoding="utf-8"))
        try:
            compile(source, f"reference/{module}.py [mutant {mutant.name}]", "exec")
        except SyntaxError as e:
            raise PatchError(f"mutant {mutant.name}: reference/{module}.py does not compile once patched: "
                             f"{e}") from None


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

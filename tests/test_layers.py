"""The house's layers, held: the contract (`window_contract`) at the bottom imports nothing of the
project; the implementations, engines, strategies and reports import only the contract (and their own
package); the suite (`conformance`) stands on all of them; and no module imports another that imports
it back. The contract's public names are exactly its `__all__`.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import window_contract

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = "window_contract"
#: The packages of the floor above the contract: each imports the contract and itself only.
MIDDLE = ("reference", "spark_impl", "flink_impl", "engines", "strategies", "reports")
SUITE = "conformance"
PACKAGES = (CONTRACT, *MIDDLE, SUITE)
#: Imports across the middle floor that are plumbing, not semantics, each with its reason.
ALLOWED_ACROSS = {
    # Spark Structured Streaming's engine runs in the Spark session the suite's Spark implementation
    # starts (one JVM a process); it takes nothing of spark_impl's semantics.
    ("engines/spark_streaming.py", "spark_impl.session"),
}


def imports(path: Path) -> set[str]:
    """The project modules `path` imports (absolute imports, wherever they stand in the module); `from
    package import module` imports the module."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.update(f"{node.module}.{a.name}" if is_module(f"{node.module}.{a.name}") else node.module
                         for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.split(".")[0] in PACKAGES}


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_contract_imports_nothing_of_the_project():
    for path in modules(CONTRACT):
        assert {m.split(".")[0] for m in imports(path)} <= {CONTRACT}, path


def test_the_contract_names_no_module_above_it():
    """Not even as a string: which implementations exist, and where their modules are, is the catalogues'
    business (`window_contract.registry.CATALOGUE_GROUP`), not the contract's."""
    above = "|".join(PACKAGES[1:])
    for path in modules(CONTRACT):
        named = [node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)
                 and re.fullmatch(rf"(?:{above})(?:\.\w+)*(?::\w+)?", node.value)]
        assert not named, f"{path.relative_to(ROOT)} names {named}"


def test_the_middle_floor_imports_the_contract_and_itself_only():
    for package in MIDDLE:
        for path in modules(package):
            across = {m for m in imports(path) if m.split(".")[0] not in (package, CONTRACT)}
            across -= {m for (file, m) in ALLOWED_ACROSS if path.relative_to(ROOT).as_posix() == file}
            assert not across, f"{path.relative_to(ROOT)} imports {sorted(across)}"


def test_no_module_imports_one_that_imports_it_back():
    graph = {module_name(p): {m for m in imports(p)} for package in PACKAGES for p in modules(package)}
    # (`python -m engines.beam` imports itself as a module on purpose: not a circle of two)
    graph = {name: {m for m in targets if m in graph and m != name} for name, targets in graph.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            raise AssertionError("import circle: " + " -> ".join(path[path.index(name):] + [name]))
        if name in done:
            return
        for target in sorted(graph[name]):
            visit(target, path + [name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_importing_the_contract_loads_no_other_package_of_the_project():
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, window_contract; print(' '.join(sorted(sys.modules)))"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert {m.split(".")[0] for m in loaded} & set(PACKAGES) == {CONTRACT}


def test_every_kind_of_the_vocabulary_is_public():
    from window_contract.case import ASSIGNERS, EVENTS, EVICTORS, GENERATORS, TRIGGERS

    kinds = {kind.__name__ for vocabulary in (ASSIGNERS, TRIGGERS, EVICTORS, GENERATORS, EVENTS) for kind in vocabulary}
    assert kinds <= set(window_contract.__all__)


def test_the_contracts_public_names_are_its_all():
    public = {name for name in vars(window_contract) if not name.startswith("_")}
    modules_of = {name for name in public if type(getattr(window_contract, name)).__name__ == "module"}
    assert set(window_contract.__all__) == public - modules_of
    assert len(window_contract.__all__) == len(set(window_contract.__all__))

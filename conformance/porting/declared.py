"""The features each engine declares, read from its adapter's source without starting the engine.

An engine under test may live in an environment of its own (`.venv-beam`, ...) or in a JVM built by Maven, so the
pages cannot load it to ask its `features`. Each adapter declares them once, as a literal the source holds:

- a Python adapter under `engines/`: `FEATURES = frozenset({...})` in the module that names the engine (`NAME =
  "beam"`, or an implementation class's `name = "pyflink-python"`);
- a Java adapter under `engines/jvm/`: `new Translated("kafka-streams", Set.of(...))`, the features its hello
  declares; `kafka-streams-updates` is the same adapter run with `--emit=updates` (`SAME_ADAPTER`);
- the runners of `flink_impl/` (`flink`, `flink-1.20` and the SQL ones): their `Variant`s, imported (they need no
  engine to import).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from flink_impl import command, sql

ROOT = Path(__file__).resolve().parents[2]

#: Engines served by another's adapter, which declares the features of both.
SAME_ADAPTER = {"kafka-streams-updates": "kafka-streams"}

_TRANSLATED = re.compile(r'new Translated\("(?P<name>[\w.-]+)",\s*Set\.of\((?P<features>[^)]*)\)\)')


def declared_features(engine: str, root: Path = ROOT) -> frozenset[str]:
    """The features `engine` declares; a `LookupError` when no adapter declares it."""
    engine = SAME_ADAPTER.get(engine, engine)
    for variant in (command.FLINK, command.FLINK_1_20, sql.FLINK_SQL, sql.FLINK_SQL_1_20, sql.FLINK_SQL_LEGACY):
        if variant.name == engine:
            return frozenset(variant.features)
    for path in sorted((root / "engines").glob("*.py")):
        found = _python_features(path.read_text(encoding="utf-8"), engine)
        if found is not None:
            return found
    for path in sorted((root / "engines" / "jvm").rglob("*.java")):
        for match in _TRANSLATED.finditer(path.read_text(encoding="utf-8")):
            if match["name"] == engine:
                return frozenset(re.findall(r'"([\w.]+)"', match["features"]))
    raise LookupError(f"no adapter under engines/ declares the features of {engine!r}")


def _python_features(source: str, engine: str) -> frozenset[str] | None:
    """The module's `FEATURES` literal, if the module names `engine` (`NAME = ...` or a class's `name = ...`)."""
    tree = ast.parse(source)
    names, features = set(), None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            if target in ("NAME", "name") and isinstance(node.value, ast.Constant):
                names.add(node.value.value)
            elif target == "FEATURES" and node in tree.body:
                features = frozenset(ast.literal_eval(node.value.args[0]))
    return features if engine in names and features is not None else None

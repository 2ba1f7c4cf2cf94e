"""The machine's mutants: every variant of a reference module that one standard mutation operator makes.

The operators are the ones mutmut and cosmic-ray apply, written here over Python's `ast` instead of
taken from either tool: both run a test command per mutant from files they rewrite on disk, while the
loader's way (an in-memory copy of `reference/` imported afresh) lets one process fork per mutant and
run the recorded corpus in memory. Each operator changes one node:

- `compare`: `<` and `<=`, `>` and `>=` swapped at the boundary, `==`/`!=`, `is`/`is not`, `in`/`not in`;
- `arithmetic`: `+`/`-`, `*`/`//`, `//`/`*`, `%`/`//`, `<<`/`>>`, `&`/`|`, also in `+=`-style assignments;
- `constant`: an integer `n` becomes `n + 1` and `n - 1`, `True`/`False`;
- `negate`: the condition of `if`, `while`, `assert`, a conditional expression or a comprehension's
  `if` negated, and a `not` dropped;
- `boolean`: `and`/`or`;
- `min_max`: a call of `min` becomes `max` and the reverse;
- `remove`: a statement of a function body becomes `pass`.

Strings, docstrings, annotations and decorators are left alone: a string only changes a message, and
an annotation or a decorator argument changes no behaviour the corpus observes. A mutant's source is the
module's text with the node's span replaced by the mutated node (`ast.unparse`), so the rest of the
file keeps its lines. Its `key` names it without line numbers (module, function, the original and
mutated text, and an occurrence count when the same change repeats in the function), so the
equivalence file still names it after the module gains lines elsewhere.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

COMPARE_SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                 ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
ARITHMETIC_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
                    ast.Mod: ast.FloorDiv, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
                    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd}
BOOLEAN_SWAPS = {ast.And: ast.Or, ast.Or: ast.And}
MIN_MAX = {"min": "max", "max": "min"}


@dataclass(frozen=True)
class MachineMutant:
    module: str  # dotted below `reference`: `operator`, `watermarks.valve`
    function: str  # the qualified name of the enclosing function; "" at module or class level
    operator: str  # compare, arithmetic, constant, negate, boolean, min_max, remove
    line: int  # 1-based first line of the mutated node
    end_line: int
    original: str
    replacement: str
    occurrence: int  # 0 for the first mutant of this key in the module, then 1, 2, ...
    source: str  # the whole mutated module

    @property
    def key(self) -> str:
        where = f"{self.module}:{self.function}" if self.function else self.module
        suffix = f" #{self.occurrence + 1}" if self.occurrence else ""
        return f"{where}: {self.original} -> {self.replacement}{suffix}"


def _excluded(tree: ast.Module) -> set[int]:
    """The ids of nodes no operator touches: docstrings, annotations, decorators and what they hold."""
    roots: list[ast.AST] = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            roots.append(body[0])
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            roots += node.decorator_list
        if isinstance(node, ast.FunctionDef) and node.returns:
            roots.append(node.returns)
        if isinstance(node, ast.arg) and node.annotation:
            roots.append(node.annotation)
        if isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
        if isinstance(node, ast.JoinedStr):
            roots.append(node)  # a message, whose positions Python 3.11 does not keep
    return {id(n) for root in roots for n in ast.walk(root)}


def _variants(node: ast.AST) -> Iterator[tuple[str, ast.AST, ast.AST]]:
    """`(operator, node to replace, replacement)` for every mutation of `node` itself."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in COMPARE_SWAPS:
                changed = copy.deepcopy(node)
                changed.ops[i] = COMPARE_SWAPS[type(op)]()
                yield "compare", node, changed
    elif isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in ARITHMETIC_SWAPS:
        changed = copy.deepcopy(node)
        changed.op = ARITHMETIC_SWAPS[type(node.op)]()
        yield "arithmetic", node, changed
    elif isinstance(node, ast.BoolOp):
        yield "boolean", node, ast.BoolOp(BOOLEAN_SWAPS[type(node.op)](), node.values)
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield "constant", node, ast.Constant(not node.value)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield "constant", node, ast.Constant(node.value + 1)
        yield "constant", node, ast.Constant(node.value - 1)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "negate", node, node.operand
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MIN_MAX:
        yield "min_max", node.func, ast.Name(MIN_MAX[node.func.id])
    tests = [node.test] if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert) else []
    tests += node.ifs if isinstance(node, ast.comprehension) else []
    for test in tests:
        if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):  # dropping its `not` does it
            yield "negate", test, ast.UnaryOp(ast.Not(), test)


def _owners(tree: ast.Module) -> dict[int, str]:
    """The qualified name of the innermost function holding each node (by id); absent at module or
    class level."""
    owners: dict[int, str] = {}

    def visit(node: ast.AST, prefix: str, function: str) -> None:
        if isinstance(node, ast.FunctionDef):  # its defaults run where it is defined, not in its calls
            name = f"{prefix}{node.name}"
            visit(node.args, prefix, function)
            for statement in node.body:
                visit(statement, f"{name}.", name)
        elif isinstance(node, ast.ClassDef):
            for child in (*node.bases, *node.keywords, *node.body):
                visit(child, f"{prefix}{node.name}.", function)
        else:
            if function:
                owners[id(node)] = function
            for child in ast.iter_child_nodes(node):
                visit(child, prefix, function)
    for statement in tree.body:
        visit(statement, "", "")
    return owners


def _removals(node: ast.AST, owners: dict[int, str]) -> Iterator[tuple[str, ast.AST, ast.AST]]:
    """Every statement of a function body directly in `node` becomes `pass`."""
    for field in ("body", "orelse", "finalbody"):
        statements = getattr(node, field, None)
        for statement in statements if isinstance(statements, list) else ():
            if id(statement) not in owners or isinstance(
                    statement, ast.Pass | ast.FunctionDef | ast.ClassDef | ast.Import | ast.ImportFrom):
                continue
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            yield "remove", statement, ast.Pass()


def _span(lines: list[bytes], node: ast.AST) -> tuple[bytes, bytes, bytes]:
    """The source before `node`, its own text and the source after it (offsets are UTF-8 bytes)."""
    first, last = node.lineno - 1, node.end_lineno - 1
    before = b"".join(lines[:first]) + lines[first][:node.col_offset]
    if first == last:
        text = lines[first][node.col_offset:node.end_col_offset]
    else:
        text = lines[first][node.col_offset:] + b"".join(lines[first + 1:last]) + lines[last][:node.end_col_offset]
    return before, text, lines[last][node.end_col_offset:] + b"".join(lines[last + 1:])


def module_mutants(module: str, source: str) -> list[MachineMutant]:
    """Every mutant of reference module `module` (dotted below the package) whose `source` is given."""
    tree = ast.parse(source)
    excluded, owners = _excluded(tree), _owners(tree)
    lines = source.encode("utf-8").splitlines(keepends=True)
    found = [(owners.get(id(target), ""), *m) for node in ast.walk(tree) if id(node) not in excluded
             for m in (*_variants(node), *_removals(node, owners)) for target in [m[1]]]
    mutants, seen = [], Counter()
    for function, operator, target, replacement in sorted(found, key=lambda f: (f[2].lineno, f[2].col_offset,
                                                                                f[1])):
        before, original, after = (part.decode("utf-8") for part in _span(lines, target))
        changed = ast.unparse(replacement)
        if isinstance(replacement, ast.expr) and not isinstance(replacement, ast.Name) and changed[0] != "(" \
                and not (isinstance(replacement, ast.Constant) and replacement.value >= 0):
            changed = f"({changed})"  # the mutated node keeps its precedence where it stands
        key = (function, " ".join(original.split()), changed)
        mutants.append(MachineMutant(module, function, operator, target.lineno, target.end_lineno,
                                     key[1], changed, seen[key],
                                     before + changed + after))
        seen[key] += 1
    return mutants


def reference_modules(directory: Path) -> dict[str, Path]:
    """Every module of the reference package under `directory`, by dotted name below the package."""
    modules = {}
    for path in sorted(directory.rglob("*.py")):
        parts = path.relative_to(directory).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules

"""Reading untrusted JSON with every problem reported by its JSON path and the rule it breaks.

A `Fields` reader walks one JSON object: each `take_*` call checks one field, records a `Problem`
instead of raising, and returns a usable placeholder, so one pass over a file finds every problem.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from conformance.facts import LONG_MAX, LONG_MIN

T = TypeVar("T")
MISSING: Any = object()


@dataclass(frozen=True)
class Problem:
    path: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path}: {self.rule}"


class CaseFormatError(ValueError):
    """A case or observation file that does not follow its format; lists every problem found."""

    def __init__(self, problems: list[Problem], source: str | None = None) -> None:
        self.problems = problems
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(where + "; ".join(map(str, problems)))


class Problems:
    """The problems found so far in one document."""

    def __init__(self) -> None:
        self.found: list[Problem] = []

    def add(self, path: str, rule: str) -> None:
        self.found.append(Problem(path, rule))

    def raise_if_any(self, source: str | None = None) -> None:
        if self.found:
            raise CaseFormatError(self.found, source)


def is_long(value: Any) -> bool:
    return type(value) is int and LONG_MIN <= value <= LONG_MAX


class Fields:
    """One JSON object at `path`; unknown fields are reported by `done()`."""

    def __init__(self, value: Any, path: str, problems: Problems) -> None:
        self.path, self.problems = path, problems
        self.ok = isinstance(value, dict)
        if not self.ok:
            problems.add(path, f"must be an object, not {json_type(value)}")
        self.obj: dict = value if self.ok else {}
        self.seen: set[str] = set()

    def at(self, name: str) -> str:
        return f"{self.path}.{name}"

    def take(self, name: str, default: Any = MISSING) -> Any:
        self.seen.add(name)
        if name in self.obj:
            return self.obj[name]
        if default is MISSING:
            self.problems.add(self.at(name), "missing required field")
            return None
        return default

    def take_long(self, name: str, default: Any = MISSING, minimum: int = LONG_MIN) -> int:
        value = self.take(name, default)
        if value is None and default is MISSING:
            return 0
        if not is_long(value):
            self.problems.add(self.at(name), "must be an integer in Java long range "
                                             f"[{LONG_MIN}, {LONG_MAX}], not {json_repr(value)}")
            return 0
        if value < minimum:
            self.problems.add(self.at(name), f"must be >= {minimum}, not {value}")
        return value

    def take_bool(self, name: str, default: Any = MISSING) -> bool:
        value = self.take(name, default)
        if type(value) is not bool:
            if value is not None or default is not MISSING:
                self.problems.add(self.at(name), f"must be true or false, not {json_repr(value)}")
            return False
        return value

    def take_str(self, name: str, default: Any = MISSING, nullable: bool = False) -> str | None:
        value = self.take(name, default)
        if value is None and (nullable or default is MISSING):
            return None
        if not isinstance(value, str):
            self.problems.add(self.at(name), f"must be a string, not {json_repr(value)}")
            return ""
        return value

    def take_choice(self, name: str, choices: tuple[str, ...], default: Any = MISSING) -> str | None:
        value = self.take(name, default)
        if value is None and default is MISSING:
            return None
        if value not in choices:
            self.problems.add(self.at(name), f"must be one of {', '.join(map(repr, choices))}, "
                                             f"not {json_repr(value)}")
            return None
        return value

    def take_list(self, name: str, read: Callable[[Any, str], T], default: Any = MISSING) -> list[T]:
        value = self.take(name, default)
        if value is None and default is MISSING:
            return []
        if not isinstance(value, list):
            self.problems.add(self.at(name), f"must be an array, not {json_type(value)}")
            return []
        return [read(item, f"{self.at(name)}[{i}]") for i, item in enumerate(value)]

    def done(self) -> None:
        for name in self.obj:
            if name not in self.seen:
                self.problems.add(self.at(name), "unknown field")


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def json_repr(value: Any) -> str:
    text = repr(value) if not isinstance(value, dict | list) else json_type(value)
    return text if len(text) <= 40 else text[:37] + "..."

"""Reading untrusted JSON with every problem reported by its JSON path and the rule it breaks.

A `Fields` reader walks one JSON object: each `take_*` call checks one field, records a `Problem`
instead of raising, and returns a usable placeholder, so one pass over a file finds every problem.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from window_contract.facts import LONG_MAX, LONG_MIN

T = TypeVar("T")
MISSING: Any = object()


@dataclass(frozen=True)
class Problem:
    path: str
    rule: str

    def __str__(self) -> str:
        return f"{compact_path(self.path)}: {self.rule}"


#: A step of a JSON path repeated four times or more (nested triggers, `.inner.inner.inner...`).
_REPEATED_STEP = re.compile(r"((?:\.\w+|\[\d+\])+?)\1{3,}")


def compact_path(path: str) -> str:
    """`path` with a step repeated four times or more written once with its count:
    `$.trigger(.inner){64}`, where the whole path would take hundreds of characters."""
    return _REPEATED_STEP.sub(lambda m: f"({m.group(1)}){{{len(m.group(0)) // len(m.group(1))}}}", path)


class CaseFormatError(ValueError):
    """A case or observation file that does not follow its format; lists every problem found."""

    def __init__(self, problems: list[Problem], source: str | None = None) -> None:
        self.problems = problems
        self.source = source
        listed = "; ".join(map(str, problems))
        super().__init__(f"{source}: {listed}" if source and problems else source or listed)


class Problems:
    """The problems found so far in one document."""

    def __init__(self) -> None:
        self.found: list[Problem] = []

    def add(self, path: str, rule: str) -> None:
        self.found.append(Problem(path, rule))

    def raise_if_any(self, source: str | None = None) -> None:
        if self.found:
            raise CaseFormatError(self.found, source)


#: Integers longer than this many digits are not read as numbers: far beyond Java's `long` (19
#: digits), far below Python's own limit on converting digits (4,300), past which it raises.
MAX_DIGITS = 40


class HugeInteger:
    """An integer literal of more than `MAX_DIGITS` digits, kept as its length only."""

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


class JSONObject(dict):
    """A JSON object that remembers the names it held more than once (the last value is kept)."""

    duplicates: tuple[str, ...] = ()


def _object(pairs: list[tuple[str, Any]]) -> JSONObject:
    obj = JSONObject(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        obj.duplicates = tuple(dict.fromkeys(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


def parse_json(text: str, source: str) -> Any:
    """`text` parsed, keeping what the format must reject instead of losing it: duplicate names
    (`JSONObject.duplicates`) and integers too long to be numbers (`HugeInteger`). Nesting deeper
    than Python's parser goes is a `CaseFormatError`, not a `RecursionError`."""
    try:
        return json.loads(text, object_pairs_hook=_object,
                          parse_int=lambda s: int(s) if len(s) <= MAX_DIGITS else HugeInteger(s))
    except json.JSONDecodeError as e:
        raise CaseFormatError([], f"{source}: not JSON: {e}") from None
    except RecursionError:
        raise CaseFormatError([], f"{source}: nested too deeply to read (arrays or objects inside "
                                  "each other, hundreds of levels deep)") from None


def is_long(value: Any) -> bool:
    return type(value) is int and LONG_MIN <= value <= LONG_MAX


class Fields:
    """One JSON object at `path`; unknown fields are reported by `done()`."""

    def __init__(self, value: Any, path: str, problems: Problems) -> None:
        self.path, self.problems = path, problems
        self.ok = isinstance(value, dict)
        if not self.ok and value is not MISSING:  # a missing field was reported where it was taken
            problems.add(path, f"must be an object, not {json_type(value)}")
        self.obj: dict = value if self.ok else {}
        self.seen: set[str] = set()
        for name in getattr(value, "duplicates", ()):
            problems.add(self.at(name), "appears more than once in the object; which value is meant?")

    def at(self, name: str) -> str:
        return f"{self.path}.{name}"

    def take(self, name: str, default: Any = MISSING) -> Any:
        """The field's value; `default` when it is absent (a problem when there is no default).
        An explicit `null` is a value, not an absence: the typed `take_*` reject it."""
        self.seen.add(name)
        if name in self.obj:
            return self.obj[name]
        if default is MISSING:
            self.problems.add(self.at(name), "missing required field")
        return default

    def take_long(self, name: str, default: Any = MISSING, minimum: int = LONG_MIN) -> int:
        value = self.take(name, default)
        if value is MISSING:
            return 0
        if not is_long(value):
            absent = f" (leave the field out for its default, {default})" if value is None and default not in (
                MISSING, None) else ""
            self.problems.add(self.at(name), "must be an integer in Java long range "
                                             f"[{LONG_MIN}, {LONG_MAX}], not {json_repr(value)}{absent}")
            return 0
        if value < minimum:
            self.problems.add(self.at(name), f"must be >= {minimum}, not {value}")
        return value

    def take_double(self, name: str, default: Any = MISSING) -> float:
        """A Java `double`: a finite JSON number, integer or not, converted as Java's `Double.parseDouble`
        does (to the nearest double). JSON has no NaN or infinity; a literal beyond the double range
        (`1e400`) would be infinite, so it is refused too."""
        value = self.take(name, default)
        if value is MISSING:
            return 0.0
        if type(value) not in (int, float) or not math.isfinite(value):
            self.problems.add(self.at(name), f"must be a finite number (a Java double), not {json_repr(value)}")
            return 0.0
        return float(value)

    def take_bool(self, name: str, default: Any = MISSING) -> bool:
        value = self.take(name, default)
        if type(value) is not bool:
            if value is not MISSING:
                self.problems.add(self.at(name), f"must be true or false, not {json_repr(value)}")
            return False
        return value

    def take_str(self, name: str, default: Any = MISSING, nullable: bool = False) -> str | None:
        """A string that UTF-8 can encode (JSON's `\\ud800` escapes allow lone surrogates, which no
        engine can hold as a key); `null` only where `nullable`."""
        value = self.take(name, default)
        if value is MISSING or (value is None and nullable):
            return None
        if not isinstance(value, str):
            self.problems.add(self.at(name), f"must be a string, not {json_repr(value)}")
            return ""
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            self.problems.add(self.at(name), f"must be valid Unicode: {value[e.start]!r} at index {e.start} "
                                             "is a lone surrogate, which UTF-8 cannot encode")
            return ""
        return value

    def take_choice(self, name: str, choices: tuple[str, ...], default: Any = MISSING) -> str | None:
        value = self.take(name, default)
        if value is MISSING:
            return None
        if value not in choices:
            self.problems.add(self.at(name), f"must be one of {', '.join(map(repr, choices))}, "
                                             f"not {json_repr(value)}")
            return None
        return value

    def take_list(self, name: str, read: Callable[[Any, str], T], default: Any = MISSING) -> list[T]:
        value = self.take(name, default)
        if value is MISSING or name not in self.obj:
            return [] if value is MISSING else value
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
    """`value` shortened, with JSON's words for `null`, `true` and `false`; an array or object by its type."""
    if isinstance(value, dict | list):
        return json_type(value)
    text = json.dumps(value) if value is None or isinstance(value, bool) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

"""What a Python implementation's `run` call may give back: a list of `Observation`s made of the observation's
types.

A process's answers are read from JSON by the format's rules (`window_contract.process`); a Python plug-in
hands over objects, whose types are checked here. An answer of the wrong types says nothing about the cases
(`None`, a list of strings, a firing whose `at` is a string): the plug-in could not run them
(`ImplementationFailure`, naming the field and its type), never a difference and never a traceback from the
suite's own code. A value of the right type that is wrong (a timestamp past Java's `long`, a negative
position) is the implementation's answer, which the rules judge; and how many observations it gives is the
caller's rule: too few or too many for the cases breaks the interface for those cases (a difference).
"""

from __future__ import annotations

from window_contract.implementation import ImplementationFailure
from window_contract.observation import (
    Error,
    Firing,
    GlobalWindow,
    InputWatermark,
    LateRecord,
    Observation,
    TimeWindow,
)

ERROR_KINDS = ("invalid_spec", "runtime")


def checked_observations(answer: object, position_free: bool = False) -> list[Observation]:
    """`answer` as a list of observations, or `ImplementationFailure` naming what is of the wrong type.
    A `position_free` implementation's positions (`at`) are `None`, and so may its firings' watermarks
    be; any other's are integers."""
    if not isinstance(answer, list | tuple):
        raise ImplementationFailure(f"run returned {_described(answer)}, not a list of observations")
    for i, observation in enumerate(answer):
        problem = _problem(observation, f"run(cases)[{i}]", position_free)
        if problem:
            raise ImplementationFailure(f"run's answer is not made of observations: {problem}")
    return list(answer)


def _problem(o: object, path: str, position_free: bool) -> str | None:
    """The first thing of the wrong type in the observation `o` at `path`, as `path: must be ..., not ...`, or None.
    An answer may hold hundreds of thousands of items, each checked field by field: a check is a plain test of a
    type, and a problem is put into words only when there is one."""
    if not isinstance(o, Observation):
        return f"{path}: must be an Observation, not {_described(o)}"
    check = _Types(position_free)
    for name, kind in (("firings", Firing), ("late", LateRecord), ("dropped", LateRecord),
                       ("watermarks", InputWatermark)):
        for j, item in enumerate(getattr(o, name) or ()):
            problem = check.item(item, kind)
            if problem is not None:
                return f"{path}.{name}[{j}]{problem}"
    if o.error is not None:
        if not isinstance(o.error, Error):
            return f"{path}.error: must be an Error or None, not {_described(o.error)}"
        if o.error.kind not in ERROR_KINDS or not isinstance(o.error.message, str):
            return f"{path}.error: must be an Error of kind {' or '.join(ERROR_KINDS)} with a str message"
    return None


class _Types:
    """The type each field of an observation's parts must have."""

    def __init__(self, position_free: bool) -> None:
        self.position_free = position_free

    def item(self, item: object, kind: type) -> str | None:
        """The first field of `item` of the wrong type, as `.field: must be ..., not ...` (`: ...` for the item
        itself), or None."""
        if type(item) is not kind:
            return f": must be a {kind.__name__}, not {_described(item)}"
        if self.position_free:
            if item.at is not None:
                return f".at: must be None: the implementation is position-free, not {_described(item.at)}"
        elif type(item.at) is not int:
            return _not_an_int(".at", item.at)
        if kind is Firing:
            return self.firing(item)
        if kind is InputWatermark:
            return None if type(item.watermark) is int else _not_an_int(".watermark", item.watermark)
        return _not_a_str(".key", item.key) or _first_not_an_int(item, "", ("value", "ts"))

    def firing(self, item: Firing) -> str | None:
        if type(item.timestamp) is not int:
            return _not_an_int(".timestamp", item.timestamp)
        for k, value in enumerate(item.values):
            if type(value) is not int:
                return _not_an_int(f".values[{k}]", value)
        if type(item.watermark) is not int and not (self.position_free and item.watermark is None):
            return _not_an_int(".watermark", item.watermark)
        window = item.window
        if type(window) is TimeWindow:
            problem = _first_not_an_int(window, ".window", ("start", "end"))
            if problem is not None:
                return problem
        elif type(window) is not GlobalWindow:
            return f".window: must be a TimeWindow or GlobalWindow, not {_described(window)}"
        return _not_a_str(".key", item.key)


def _not_an_int(field: str, value: object) -> str:
    return f"{field}: must be an int, not {_described(value)}"


def _first_not_an_int(item: object, prefix: str, fields: tuple[str, ...]) -> str | None:
    """The first of `item`'s `fields` that is not an int, named after `prefix`, or None."""
    for field in fields:
        if type(getattr(item, field)) is not int:
            return _not_an_int(f"{prefix}.{field}", getattr(item, field))
    return None


def _not_a_str(field: str, value: object) -> str | None:
    return None if type(value) is str else f"{field}: must be a str, not {_described(value)}"


def _described(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"

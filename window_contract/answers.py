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

from collections.abc import Iterator

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
        problem = next(_problems(observation, f"run(cases)[{i}]", position_free), None)
        if problem:
            raise ImplementationFailure(f"run's answer is not made of observations: {problem}")
    return list(answer)


def _problems(o: object, path: str, position_free: bool) -> Iterator[str]:
    """What is of the wrong type in the observation `o` at `path`, each as `path: must be ..., not ...`."""
    if not isinstance(o, Observation):
        yield f"{path}: must be an Observation, not {_described(o)}"
        return
    check = _Types(position_free)
    for name, kind in (("firings", Firing), ("late", LateRecord), ("dropped", LateRecord)):
        for j, item in enumerate(getattr(o, name)):
            yield from check.item(item, kind, f"{path}.{name}[{j}]")
    for j, received in enumerate(o.watermarks or ()):
        yield from check.item(received, InputWatermark, f"{path}.watermarks[{j}]")
    if o.error is not None:
        if not isinstance(o.error, Error):
            yield f"{path}.error: must be an Error or None, not {_described(o.error)}"
        elif o.error.kind not in ERROR_KINDS or not isinstance(o.error.message, str):
            yield f"{path}.error: must be an Error of kind {' or '.join(ERROR_KINDS)} with a str message"


class _Types:
    """The type each field of an observation's parts must have."""

    def __init__(self, position_free: bool) -> None:
        self.position_free = position_free

    def item(self, item: object, kind: type, path: str) -> Iterator[str]:
        if type(item) is not kind:
            yield f"{path}: must be a {kind.__name__}, not {_described(item)}"
            return
        yield from self.position(item.at, f"{path}.at")
        if kind is Firing:
            yield from _integer(item.timestamp, f"{path}.timestamp")
            for k, value in enumerate(item.values):
                yield from _integer(value, f"{path}.values[{k}]")
            if not (self.position_free and item.watermark is None):
                yield from _integer(item.watermark, f"{path}.watermark")
            if not (type(item.window) is GlobalWindow or type(item.window) is TimeWindow):
                yield f"{path}.window: must be a TimeWindow or GlobalWindow, not {_described(item.window)}"
            elif type(item.window) is TimeWindow:
                yield from _integer(item.window.start, f"{path}.window.start")
                yield from _integer(item.window.end, f"{path}.window.end")
        if kind is InputWatermark:
            yield from _integer(item.watermark, f"{path}.watermark")
        else:
            if type(item.key) is not str:
                yield f"{path}.key: must be a str, not {_described(item.key)}"
        if kind is LateRecord:
            yield from _integer(item.value, f"{path}.value")
            yield from _integer(item.ts, f"{path}.ts")

    def position(self, at: object, path: str) -> Iterator[str]:
        if self.position_free:
            if at is not None:
                yield f"{path}: must be None: the implementation is position-free, not {_described(at)}"
        else:
            yield from _integer(at, path)


def _integer(value: object, path: str) -> Iterator[str]:
    if type(value) is not int:
        yield f"{path}: must be an int, not {_described(value)}"


def _described(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"

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
            yield from check.item(item, kind, (path, name, j))
    for j, received in enumerate(o.watermarks or ()):
        yield from check.item(received, InputWatermark, (path, "watermarks", j))
    if o.error is not None:
        if not isinstance(o.error, Error):
            yield f"{path}.error: must be an Error or None, not {_described(o.error)}"
        elif o.error.kind not in ERROR_KINDS or not isinstance(o.error.message, str):
            yield f"{path}.error: must be an Error of kind {' or '.join(ERROR_KINDS)} with a str message"


#: Where an item of an observation is: the observation's path, the part and the index (`run(cases)[0].firings[3]`),
#: put into words only for a problem, since an answer may hold hundreds of thousands of items.
Place = tuple[str, str, int]


def _where(place: Place, field: str = "", index: int | None = None) -> str:
    path, part, j = place
    return f"{path}.{part}[{j}]{field}" + ("" if index is None else f"[{index}]")


class _Types:
    """The type each field of an observation's parts must have."""

    def __init__(self, position_free: bool) -> None:
        self.position_free = position_free

    def item(self, item: object, kind: type, place: Place) -> Iterator[str]:
        if type(item) is not kind:
            yield f"{_where(place)}: must be a {kind.__name__}, not {_described(item)}"
            return
        yield from self.position(item.at, place)
        if kind is Firing:
            yield from _integer(item.timestamp, place, ".timestamp")
            for k, value in enumerate(item.values):
                yield from _integer(value, place, ".values", k)
            if not (self.position_free and item.watermark is None):
                yield from _integer(item.watermark, place, ".watermark")
            if not (type(item.window) is GlobalWindow or type(item.window) is TimeWindow):
                yield f"{_where(place, '.window')}: must be a TimeWindow or GlobalWindow, not {_described(item.window)}"
            elif type(item.window) is TimeWindow:
                yield from _integer(item.window.start, place, ".window.start")
                yield from _integer(item.window.end, place, ".window.end")
        if kind is InputWatermark:
            yield from _integer(item.watermark, place, ".watermark")
        else:
            if type(item.key) is not str:
                yield f"{_where(place, '.key')}: must be a str, not {_described(item.key)}"
        if kind is LateRecord:
            yield from _integer(item.value, place, ".value")
            yield from _integer(item.ts, place, ".ts")

    def position(self, at: object, place: Place) -> Iterator[str]:
        if self.position_free:
            if at is not None:
                yield f"{_where(place, '.at')}: must be None: the implementation is position-free, not {_described(at)}"
        else:
            yield from _integer(at, place, ".at")


def _integer(value: object, place: Place, field: str, index: int | None = None) -> Iterator[str]:
    if type(value) is not int:
        yield f"{_where(place, field, index)}: must be an int, not {_described(value)}"


def _described(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"

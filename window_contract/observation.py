"""The `Observation`: what a window operator emitted for one case (`window-observation/1`).

`at` is the index in `Case.events` of the event during which an output happened, and
`len(case.events)` stands for the end of input. A position-free implementation (one that cannot tell
when it emitted something) gives `None` for every `at`, and may give `None` for what it cannot
observe: a firing's `watermark`, the operator's input `watermarks` (`window_contract.equivalence` says
how such observations are compared).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal


@dataclass(frozen=True, order=True)
class TimeWindow:
    """The identity of a fired `TimeWindow`: `[start, end)`."""

    start: int
    end: int

    def __repr__(self) -> str:
        return f"[{self.start}, {self.end})"


@dataclass(frozen=True, order=True)
class GlobalWindow:
    """The identity of the single `GlobalWindow`."""

    def __repr__(self) -> str:
        return "GlobalWindow"


Window = TimeWindow | GlobalWindow


@dataclass(frozen=True)
class Firing:
    """One call of the window function: the window's contents, sorted, and where it happened."""

    at: int | None
    key: str
    window: Window
    timestamp: int
    values: tuple[int, ...]
    watermark: int | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(sorted(self.values)))


@dataclass(frozen=True)
class LateRecord:
    """A record that went to the late side output (`late`) or was dropped (`dropped`)."""

    at: int | None
    key: str
    value: int
    ts: int


@dataclass(frozen=True)
class InputWatermark:
    """A watermark the window operator received (what `StatusWatermarkValve` let through), at `at`."""

    at: int | None
    watermark: int


ErrorKind = Literal["invalid_spec", "runtime"]


@dataclass(frozen=True)
class Error:
    """What Flink rejects: an invalid specification (no outputs) or a failure at run time."""

    kind: ErrorKind
    message: str
    #: Which of Flink's rules failed (`window_contract.rules`): the model's own knowledge, never written nor read
    #: with an observation, and no part of comparing two errors.
    rules: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Observation:
    firings: tuple[Firing, ...] = ()
    late: tuple[LateRecord, ...] = ()
    dropped: tuple[LateRecord, ...] = ()
    error: Error | None = None
    #: Every watermark the window operator received, in order: present (not `None`) when the case
    #: has a watermark generator or several channels (`Case.observes_watermarks`).
    watermarks: tuple[InputWatermark, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("firings", "late", "dropped"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.watermarks is not None:
            object.__setattr__(self, "watermarks", tuple(self.watermarks))

    @classmethod
    def invalid_spec(cls, message: str) -> Observation:
        return cls(error=Error("invalid_spec", message))


def remapped(observation: Observation, position: Callable[[int], int]) -> Observation:
    """`observation`'s outputs with each position `at` replaced by `position(at)` (an unknown one, a
    position-free implementation's, stays unknown), without the operator's input watermarks."""
    def move(items):
        return tuple(o if o.at is None else replace(o, at=position(o.at)) for o in items)

    return Observation(move(observation.firings), move(observation.late), move(observation.dropped),
                       observation.error)

"""Flink's evictors as what they leave of one window's contents, for the per-key simulation (`spark_impl.operator`).

Each class evicts for one kind of the format (`window_contract.case`) and mirrors the `Evictor` of the same name
(`org.apache.flink.streaming.api.windowing.evictors`); the contents are `[(value, ts)]` in arrival order, and
`evict` gives what stays, as Flink's `Iterator.remove()` leaves it. `evictions(spec)` is the evictor a case names;
a new kind is one class here (`spark_impl.kinds`).
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from spark_impl.delta import get_delta
from spark_impl.javalong import sub
from spark_impl.kinds import OfKind
from window_contract import case as spec

Contents = list[tuple[int, int]]


class Evictor(OfKind):
    """An evictor of one window's contents; `after` (the kind's field): it evicts after the window function
    (`doEvictAfter`), else before. The fields of its kind are its attributes."""

    classes: ClassVar[dict[type, type]] = {}
    after: bool

    def __init__(self, evictor) -> None:
        for f in dataclasses.fields(evictor):
            setattr(self, f.name, getattr(evictor, f.name))

    def evict(self, contents: Contents) -> Contents:
        raise NotImplementedError


def evictions(evictor) -> Evictor:
    """The evictor a case names (`evictor`, a kind of `window_contract.case`)."""
    return Evictor.of_kind(evictor)


class CountEvictor(Evictor):
    """Keeps the last `max_count` elements by arrival."""

    kind = spec.CountEvictor
    max_count: int

    def evict(self, contents):
        size = len(contents)
        if size <= self.max_count:
            return contents
        excess = sub(size, self.max_count)  # Flink stops once evictedCount > size - maxCount
        return contents[min(size, max(0, excess)):]


class TimeEvictor(Evictor):
    """Keeps the elements with `ts > max(ts) - size`."""

    kind = spec.TimeEvictor
    size: int

    def evict(self, contents):
        cutoff = sub(max(ts for _, ts in contents), self.size)
        return [(v, ts) for v, ts in contents if ts > cutoff]


class DeltaEvictor(Evictor):
    """Removes every element whose delta to the last element by arrival reaches `threshold`."""

    kind = spec.DeltaEvictor
    threshold: float
    delta_function: spec.DeltaFunction

    def evict(self, contents):
        # Compared with the last element by arrival, itself included: it goes too when its delta to
        # itself reaches the threshold.
        last = contents[-1][0]
        return [(v, ts) for v, ts in contents if get_delta(self.delta_function, v, last) < self.threshold]

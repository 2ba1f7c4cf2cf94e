"""Evictors: remove elements from a window's contents before or after the window function.

Models `org.apache.flink.streaming.api.windowing.evictors`. The contents are the window's list of
`(value, timestamp)` in arrival order, changed in place as Flink's `Iterator.remove()` changes it.
Each class names the kind of the format it models (`@models`, `reference.kinds`).
"""

from __future__ import annotations

from reference.delta import DELTA_FUNCTIONS
from reference.javalong import lsub
from reference.kinds import models
from window_contract import case

Contents = list[tuple[int, int]]


class Evictor:
    """`Evictor`: `evict_before` runs before the window function, `evict_after` after it; a
    `doEvictAfter` evictor does its work in the second call, otherwise in the first."""

    def __init__(self, do_evict_after: bool) -> None:
        self.do_evict_after = do_evict_after

    def evict_before(self, elements: Contents, size: int) -> None:
        if not self.do_evict_after:
            self.evict(elements, size)

    def evict_after(self, elements: Contents, size: int) -> None:
        if self.do_evict_after:
            self.evict(elements, size)

    def evict(self, elements: Contents, size: int) -> None:
        raise NotImplementedError

    def evict_after_repr(self) -> str:
        """The `doEvictAfter` argument of the evictor's `of(...)`, which Flink's API leaves out when false."""
        return ", doEvictAfter=true" if self.do_evict_after else ""


@models(case.CountEvictor)
class CountEvictor(Evictor):
    """`CountEvictor`: keeps the last `max_count` elements by arrival.

    When `size > maxCount` it removes the first `size - maxCount` elements (a `long` difference).
    """

    def __init__(self, max_count: int, do_evict_after: bool) -> None:
        super().__init__(do_evict_after)
        self.max_count = max_count

    def __repr__(self) -> str:
        return f"CountEvictor.of({self.max_count}{self.evict_after_repr()})"

    def evict(self, elements: Contents, size: int) -> None:
        if size <= self.max_count:
            return
        del elements[:max(0, min(lsub(size, self.max_count), size))]


@models(case.TimeEvictor)
class TimeEvictor(Evictor):
    """`TimeEvictor`: keeps the elements with `timestamp > max(timestamp) - windowSize`."""

    def __init__(self, window_size: int, do_evict_after: bool) -> None:
        super().__init__(do_evict_after)
        self.window_size = window_size

    def __repr__(self) -> str:
        return f"TimeEvictor.of({self.window_size}{self.evict_after_repr()})"

    def evict(self, elements: Contents, size: int) -> None:
        if not elements:
            return
        cutoff = lsub(max(ts for _, ts in elements), self.window_size)
        elements[:] = [e for e in elements if e[1] > cutoff]


@models(case.DeltaEvictor)
class DeltaEvictor(Evictor):
    """`DeltaEvictor`: removes every element whose `getDelta(element, last) >= threshold`, where `last`
    is the window's last element by arrival (`Iterables.getLast`), compared with itself too."""

    def __init__(self, threshold: float, delta_function: str, do_evict_after: bool) -> None:
        super().__init__(do_evict_after)
        self.threshold, self.delta_function = threshold, delta_function
        self.get_delta = DELTA_FUNCTIONS[delta_function]

    def __repr__(self) -> str:
        return f"DeltaEvictor.of({self.threshold!r}, {self.delta_function}{self.evict_after_repr()})"

    def evict(self, elements: Contents, size: int) -> None:
        last = elements[-1][0]
        elements[:] = [e for e in elements if not self.get_delta(e[0], last) >= self.threshold]

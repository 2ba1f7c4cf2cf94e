"""Choosing between strategies with weights, so rare families stay rare and shrink to the usual one.

`st.one_of` picks each branch equally often; `weighted((6, usual), (1, rare))` picks `usual` six times
as often as `rare`. The choice is drawn before the value (structure first) and shrinks towards the
first branch, so a failing example that does not need the rare branch loses it while shrinking.
Both are plain draws of an integer: no strategy is built per example beyond the branches themselves.

Building and validating a tree of strategies for every example costs more than drawing from it (a third
of the property suite's drawing time, Hypothesis's `validate` and `is_empty` of each new strategy), so
the strategies' builders are `built_once` for each of their arguments: Hypothesis draws from the same
object exactly what it draws from a new one built alike, so the examples stay the same.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")
B = TypeVar("B", bound=Callable)


def built_once(builder: B) -> B:
    """`builder` (a function that returns a strategy, or an `st.composite`), building one strategy for
    each of its arguments and returning it again afterwards, as Hypothesis keeps `st.integers(0, 9)`
    (typed: `1` and `True` build apart). An argument that cannot be hashed (features given as a set)
    builds anew."""
    cached = functools.lru_cache(maxsize=4096, typed=True)(builder)

    @functools.wraps(builder)
    def build(*args, **kwargs):
        try:
            return cached(*args, **kwargs)
        except TypeError:  # unhashable: this call's own strategy
            return builder(*args, **kwargs)

    return build  # type: ignore[return-value]


#: `st.integers`, built once for each range (Hypothesis's own cache of it costs more to look up).
integers = built_once(st.integers)
#: `st.just`, built once for each value.
just = built_once(st.just)


@built_once
def choice_of(*options: T) -> st.SearchStrategy[T]:
    """`st.sampled_from(options)`, built once for each sequence of options (shrinks towards the first)."""
    return st.sampled_from(list(options))


@built_once
@st.composite
def weighted(draw, *branches: tuple[int, st.SearchStrategy[T]]) -> T:
    """One of `branches` (`(weight, strategy)` pairs), each drawn in proportion to its weight."""
    ends = list(accumulate(weight for weight, _ in branches))
    pick = draw(integers(0, ends[-1] - 1))
    return draw(branches[bisect_right(ends, pick)][1])


@built_once
def one_in(n: int) -> st.SearchStrategy[bool]:
    """`True` once in `n` draws; shrinks to `False`."""
    return st.integers(1, n).map(lambda i: i == n)

"""Choosing between strategies with weights, so rare families stay rare and shrink to the usual one.

`st.one_of` picks each branch equally often; `weighted((6, usual), (1, rare))` picks `usual` six times
as often as `rare`. The choice is drawn before the value (structure first) and shrinks towards the
first branch, so a failing example that does not need the rare branch loses it while shrinking.
Both are plain draws of an integer: no strategy is built per example beyond the branches themselves
(building and validating a tree of strategies for every example costs more than drawing from it).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


@st.composite
def weighted(draw, *branches: tuple[int, st.SearchStrategy[T]]) -> T:
    """One of `branches` (`(weight, strategy)` pairs), each drawn in proportion to its weight."""
    ends = list(accumulate(weight for weight, _ in branches))
    pick = draw(st.integers(0, ends[-1] - 1))
    return draw(branches[bisect_right(ends, pick)][1])


def one_in(n: int) -> st.SearchStrategy[bool]:
    """`True` once in `n` draws; shrinks to `False`."""
    return st.integers(1, n).map(lambda i: i == n)

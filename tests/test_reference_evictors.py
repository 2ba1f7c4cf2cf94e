"""`reference.evictors`: `CountEvictor` and `TimeEvictor`, before or after the window function.

Rules from Flink's `CountEvictor` / `TimeEvictor` (and their `CountEvictorTest` / `TimeEvictorTest`
in ...runtime.operators.windowing): the contents are `(value, timestamp)` in arrival order.
"""

import pytest

from reference.evictors import CountEvictor, TimeEvictor
from reference.javalong import LONG_MAX, LONG_MIN


def contents(*pairs):
    return list(pairs)


@pytest.mark.parametrize(
    "max_count, kept", [(5, [1, 2, 3, 4]), (4, [1, 2, 3, 4]), (2, [3, 4]), (0, []), (-1, [])]
)
def test_count_evictor_keeps_the_last_max_count_by_arrival(max_count, kept):
    elements = contents((1, 40), (2, 10), (3, 30), (4, 20))
    CountEvictor(max_count, False).evict_before(elements, len(elements))
    assert [v for v, _ in elements] == kept


def test_count_evictor_ignores_timestamps():
    elements = contents((1, 100), (2, 0))
    CountEvictor(1, False).evict_before(elements, 2)
    assert elements == [(2, 0)]  # the newest arrival stays even though it is the oldest in time


@pytest.mark.parametrize(
    "size, kept",
    [
        (10, [1, 3]),  # cutoff 40 - 10 = 30: ts 10 and 30 (<= cutoff) go, 40 and 35 stay
        (100, [1, 2, 3, 4]),
        (0, []),  # cutoff = the maximum itself: nothing survives
    ],
)
def test_time_evictor_keeps_elements_after_max_minus_size(size, kept):
    elements = contents((1, 40), (2, 10), (3, 35), (4, 30))
    TimeEvictor(size, False).evict_before(elements, len(elements))
    assert [v for v, _ in elements] == kept


def test_time_evictor_on_no_elements_does_nothing():
    elements = []
    TimeEvictor(5, False).evict_before(elements, 0)
    assert elements == []


def test_time_evictor_cutoff_wraps_around():
    """`max - windowSize` is a Java `long` subtraction: below Long.MIN_VALUE it wraps to a large
    positive cutoff, and every element is evicted."""
    elements = contents((1, LONG_MIN), (2, LONG_MIN + 1))
    TimeEvictor(LONG_MAX, False).evict_before(elements, 2)
    assert elements == []


def test_evict_before_or_after():
    """`doEvictAfter` moves the work from `evictBefore` to `evictAfter`."""
    before, after = CountEvictor(1, False), CountEvictor(1, True)
    a, b = contents((1, 0), (2, 0)), contents((1, 0), (2, 0))
    before.evict_after(a, 2), after.evict_before(b, 2)
    assert a == b == [(1, 0), (2, 0)]
    before.evict_before(a, 2), after.evict_after(b, 2)
    assert a == b == [(2, 0)]
    t = TimeEvictor(1, True)
    c = contents((1, 0), (2, 5))
    t.evict_before(c, 2)
    assert len(c) == 2
    t.evict_after(c, 2)
    assert c == [(2, 5)]


@pytest.mark.parametrize(("evictor", "expression"), [
    (CountEvictor(5, False), "CountEvictor.of(5)"),
    (CountEvictor(2, True), "CountEvictor.of(2, doEvictAfter=true)"),
    (TimeEvictor(100, False), "TimeEvictor.of(100)"),
    (TimeEvictor(7, True), "TimeEvictor.of(7, doEvictAfter=true)"),
])
def test_an_evictor_reads_as_the_expression_that_builds_it_in_flink(evictor, expression):
    assert repr(evictor) == expression

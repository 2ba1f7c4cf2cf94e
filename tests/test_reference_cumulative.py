"""`reference.assigners.CumulativeWindows`: Flink SQL's `CUMULATE`, its windows, checks and `long` arithmetic.

Scenarios from Flink's `CumulativeWindowAssignerTest` (flink-table-runtime, `...window.groupwindow.assigners`); the
messages are `WindowUtil.convertToWindowingStrategy`'s, as Flink 2.3's planner rejects a query (the runner's
`flink-sql` answers them, `cases/cumulative/`).
"""

import re

import pytest

from reference.assigners import CumulativeWindows
from reference.errors import InvalidSpec, JobFailure
from reference.javalong import LONG_MAX, LONG_MIN
from reference.windows import TimeWindow
from window_contract.facts import TOO_MANY_WINDOWS


def windows(assigner, ts):
    return sorted(assigner.assign_windows(ts, 0), key=lambda w: w.end)


def ending(start, *ends):
    return [TimeWindow(start, end) for end in ends]


@pytest.mark.parametrize("offset, ts, expected", [
    # CumulativeWindowAssignerTest.testWindowAssignment: of(5000, 1000)
    (0, 0, ending(0, 1000, 2000, 3000, 4000, 5000)),
    (0, 4999, ending(0, 5000)),
    (0, 5000, ending(5000, 6000, 7000, 8000, 9000, 10000)),
    # testWindowAssignmentWithOffset: withOffset(100)
    (100, 100, ending(100, 1100, 2100, 3100, 4100, 5100)),
    (100, 5099, ending(100, 5100)),
    (100, 5100, ending(5100, 6100, 7100, 8100, 9100, 10100)),
    # a record at end - 1 of a middle step, and at its end
    (0, 2999, ending(0, 3000, 4000, 5000)),
    (0, 3000, ending(0, 4000, 5000)),
    # negative timestamps align by floor (getWindowStartWithOffset)
    (0, -1, ending(-5000, 0)),
    (0, -5000, ending(-5000, -4000, -3000, -2000, -1000, 0)),
    # any offset: aligned modulo the size, a negative one or one beyond the size alike
    (-100, 0, ending(-100, 900, 1900, 2900, 3900, 4900)),
    (5100, 100, ending(100, 1100, 2100, 3100, 4100, 5100)),
    (-4900, 100, ending(100, 1100, 2100, 3100, 4100, 5100)),
])
def test_cumulative_assignment(offset, ts, expected):
    assert windows(CumulativeWindows(1000, 5000, offset), ts) == expected


def test_a_step_as_large_as_the_size_is_a_tumbling_window():
    assert windows(CumulativeWindows(10, 10, 3), 12) == ending(3, 13)


@pytest.mark.parametrize("step, size, message, rules", [
    (0, 60, "requires maxSize and step to be positive, but got maxSize 60 ms and step 0 ms.", ("cumulative.step",)),
    (10, -60, "requires maxSize and step to be positive, but got maxSize -60 ms and step 10 ms.", ("cumulative.size",)),
    # positivity is checked first, so a size no multiple of a negative step names positivity
    (-7, 60, "requires maxSize and step to be positive, but got maxSize 60 ms and step -7 ms.", ("cumulative.step",)),
    (0, 0, "requires maxSize and step to be positive, but got maxSize 0 ms and step 0 ms.",
     ("cumulative.step", "cumulative.size")),
    (25, 60, "requires maxSize must be an integral multiple of step, but got maxSize 60 ms and step 25 ms.",
     ("cumulative.multiple",)),
    (60, 25, "requires maxSize must be an integral multiple of step, but got maxSize 25 ms and step 60 ms.",
     ("cumulative.multiple",)),
])
def test_cumulative_rejects_with_flink_sqls_message(step, size, message, rules):
    with pytest.raises(InvalidSpec) as rejected:
        CumulativeWindows(step, size, 0)
    assert str(rejected.value) == "CUMULATE table function based aggregate " + message
    assert rejected.value.rules == rules


def test_a_last_end_past_long_max_wraps_and_leaves_the_first_step_in_no_window():
    """`lastEnd = start + maxSize` wraps to the bottom of the range: `end <= lastEnd` fails at once for a record
    whose own first end did not wrap, and holds once for one whose first end wrapped to the same value."""
    assigner = CumulativeWindows(5, 10, 0)
    start = LONG_MAX - 7  # LONG_MAX % 10 == 7
    assert windows(assigner, start) == []
    assert windows(assigner, LONG_MAX - 2) == [TimeWindow(start, LONG_MIN + 2)]


def test_a_loop_whose_step_wraps_past_the_last_end_stops_the_case():
    """A last end within a step of `Long.MAX_VALUE`: `end += step` wraps below it, and Flink's loop goes on over
    the whole range, which the contract stops."""
    start = LONG_MAX - 11
    assigner = CumulativeWindows(5, 10, start % 10)
    with pytest.raises(JobFailure, match=re.escape(TOO_MANY_WINDOWS)):
        assigner.assign_windows(start, 0)


def test_consecutive_elements_of_a_step_get_the_windows_a_fresh_assigner_gives():
    reused = CumulativeWindows(3, 12, 1)
    for ts in [5, 6, 7, 3, 13, 5, -4, -4, 100]:
        assert windows(reused, ts) == windows(CumulativeWindows(3, 12, 1), ts)


def test_it_reads_as_the_query_that_makes_it():
    assert repr(CumulativeWindows(1000, 5000, 100)) == "CUMULATE(step=1000, size=5000, offset=100)"

"""`reference.windows`: `TimeWindow`, `GlobalWindow`, the window start and `mergeWindows`.

Scenarios from Flink's `TimeWindowTest` and `EventTimeSessionWindowsTest` (flink-streaming-java,
org.apache.flink.streaming.runtime.operators.windowing).
"""

import pytest

from reference.javalong import LONG_MAX, LONG_MIN
from reference.windows import (
    GLOBAL_WINDOW,
    TimeWindow,
    get_window_start_with_offset,
    get_window_start_with_offset_flink_1_12,
    merge_windows,
)

# TimeWindowTest.testGetWindowStartWithOffset (the FLINK-26334 version, with negative timestamps)
TIME_WINDOW_TEST = [
    # [-21, -14), [-14, -7), [-7, 0), [0, 7), [7, 14), [14, 21)...
    (-8, 0, -14),
    (-7, 0, -7),
    (-6, 0, -7),
    (-1, 0, -7),
    (1, 0, 0),
    (6, 0, 0),
    (7, 0, 7),
    (8, 0, 7),
    # [-11, -4), [-4, 3), [3, 10), [10, 17)...
    (-10, 3, -11),
    (-9, 3, -11),
    (-3, 3, -4),
    (-2, 3, -4),
    (-1, 3, -4),
    (1, 3, -4),
    (2, 3, -4),
    (3, 3, 3),
    (9, 3, 3),
    (10, 3, 10),
    # [-16, -9), [-9, -2), [-2, 5), [5, 12), [12, 19)...
    (-12, -2, -16),
    (-7, -2, -9),
    (-4, -2, -9),
    (-3, -2, -9),
    (2, -2, -2),
    (-1, -2, -2),
    (1, -2, -2),
    (-2, -2, -2),
    (3, -2, -2),
    (4, -2, -2),
    (7, -2, 5),
    (12, -2, 12),
]


@pytest.mark.parametrize("ts, offset, start", TIME_WINDOW_TEST)
def test_window_start_of_flinks_time_window_test(ts, offset, start):
    assert get_window_start_with_offset(ts, offset, 7) == start


def test_window_start_for_gmt_plus_8_days():
    """TimeWindowTest: one-day windows aligned to midnight in GMT+08:00."""
    assert get_window_start_with_offset(1470902048450, -8 * 3600_000, 86_400_000) == 1470844800000


def test_window_start_at_the_long_edges_wraps_like_java():
    assert get_window_start_with_offset(LONG_MAX, 0, 1000) == LONG_MAX - LONG_MAX % 1000
    # (MIN + 1) % 1000 = -807, so the start is (MIN + 1) - 193: below Long.MIN_VALUE, it wraps
    # around to a large positive number, as it does in Java.
    assert get_window_start_with_offset(LONG_MIN + 1, 0, 1000) == LONG_MAX - 191


def test_old_formula_puts_an_element_outside_its_own_window():
    """Seed document 003 shows `timestamp - (timestamp - offset + windowSize) % windowSize`. With
    Java's truncating `%` it gives the "start" -5 for ts = -7, size = 5: after the timestamp."""
    assert get_window_start_with_offset_flink_1_12(-7, 0, 5) == -5
    assert get_window_start_with_offset(-7, 0, 5) == -10
    # both formulas agree from one window below the offset upwards
    for ts in range(-5, 20):
        assert get_window_start_with_offset_flink_1_12(ts, 0, 5) == get_window_start_with_offset(ts, 0, 5)


def test_max_timestamp_is_end_minus_one_and_wraps():
    assert TimeWindow(0, 1000).max_timestamp() == 999
    assert TimeWindow(-10, LONG_MIN).max_timestamp() == LONG_MAX
    assert GLOBAL_WINDOW.max_timestamp() == LONG_MAX


def test_intersects_is_symmetric_and_includes_touching_windows():
    """TimeWindowTest.testIntersect."""
    window = TimeWindow(10, 20)

    def intersects(a, b):
        assert a.intersects(b) == b.intersects(a)
        return a.intersects(b)

    assert window.intersects(window)
    assert intersects(window, TimeWindow(20, 30))  # next to each other
    assert not intersects(window, TimeWindow(21, 30))  # a gap between them
    assert intersects(window, TimeWindow(19, 22))  # overlap by one


def test_cover_spans_both_windows():
    assert TimeWindow(0, 5).cover(TimeWindow(3, 9)) == TimeWindow(0, 9)
    assert TimeWindow(4, 7).cover(TimeWindow(5, 6)) == TimeWindow(4, 7)


def test_repr_reads_like_the_docs():
    assert repr(TimeWindow(0, 5)) == "[0, 5)"
    assert repr(GLOBAL_WINDOW) == "GlobalWindow"


def _as_sets(merges):
    return {(result, frozenset(group)) for result, group in merges}


def test_merge_single_and_point_windows_does_nothing():
    """EventTimeSessionWindowsTest.testMergeSinglePointWindow / testMergeSingleWindow."""
    assert merge_windows([TimeWindow(0, 0)]) == []
    assert merge_windows([TimeWindow(0, 1)]) == []
    assert merge_windows([]) == []


def test_merge_consecutive_windows():
    """EventTimeSessionWindowsTest.testMergeConsecutiveWindows."""
    merges = merge_windows(
        [TimeWindow(0, 1), TimeWindow(1, 2), TimeWindow(2, 3), TimeWindow(4, 5), TimeWindow(5, 6)]
    )
    assert _as_sets(merges) == {
        (TimeWindow(0, 3), frozenset({TimeWindow(0, 1), TimeWindow(1, 2), TimeWindow(2, 3)})),
        (TimeWindow(4, 6), frozenset({TimeWindow(4, 5), TimeWindow(5, 6)})),
    }


def test_merge_covering_windows():
    """EventTimeSessionWindowsTest.testMergeCoveringWindow."""
    merges = merge_windows([TimeWindow(1, 1), TimeWindow(0, 2), TimeWindow(4, 7), TimeWindow(5, 6)])
    assert _as_sets(merges) == {
        (TimeWindow(0, 2), frozenset({TimeWindow(1, 1), TimeWindow(0, 2)})),
        (TimeWindow(4, 7), frozenset({TimeWindow(5, 6), TimeWindow(4, 7)})),
    }


def test_identical_windows_do_not_merge():
    """`TimeWindow.mergeWindows` collects a merge's windows in a set: a duplicate is no merge."""
    assert merge_windows([TimeWindow(1, 2), TimeWindow(1, 2)]) == []

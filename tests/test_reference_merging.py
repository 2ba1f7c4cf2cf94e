"""`reference.merging`: the `MergingWindowSet` of session windows.

Scenarios from Flink's `MergingWindowSetTest` (...runtime.operators.windowing), with the gap-3
session assigner; the merge function records what `WindowOperator` would be told.
"""

import pytest

from reference.merging import MergingWindowSet
from reference.windows import TimeWindow as W
from reference.windows import merge_windows


class MergeRecorder:
    """`TestingMergeFunction`: at most one merge per added window."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.target = self.sources = self.state_window = self.merged_state_windows = None

    def __call__(self, result, merged, state_result, merged_states):
        assert self.target is None, "more than one merge for adding a window"
        self.target, self.sources = result, list(merged)
        self.state_window, self.merged_state_windows = state_result, list(merged_states)

    @property
    def merged(self):
        return self.target is not None


@pytest.fixture
def ws():
    return MergingWindowSet(merge_windows)


@pytest.fixture
def mf():
    return MergeRecorder()


def add(ws, mf, window):
    mf.reset()
    return ws.add_window(window, mf)


def test_incremental_merging(ws, mf):
    """MergingWindowSetTest.testIncrementalMerging."""
    assert add(ws, mf, W(0, 4)) == W(0, 4) and not mf.merged
    assert ws.get_state_window(W(0, 4)) == W(0, 4)
    assert add(ws, mf, W(0, 4)) == W(0, 4) and not mf.merged

    assert add(ws, mf, W(3, 5)) == W(0, 5) and mf.merged
    assert (mf.target, mf.state_window, mf.sources, mf.merged_state_windows) == (
        W(0, 5),
        W(0, 4),
        [W(0, 4)],
        [],
    )
    assert add(ws, mf, W(4, 6)) == W(0, 6)
    assert (mf.target, mf.state_window, mf.sources, mf.merged_state_windows) == (
        W(0, 6),
        W(0, 4),
        [W(0, 5)],
        [],
    )
    assert ws.get_state_window(W(0, 6)) == W(0, 4)

    # windows within the merged region merge nothing
    for w in (W(1, 4), W(0, 4), W(3, 5), W(4, 6)):
        assert add(ws, mf, w) == W(0, 6) and not mf.merged
    assert ws.get_state_window(W(0, 6)) == W(0, 4)

    assert add(ws, mf, W(11, 14)) == W(11, 14) and not mf.merged
    assert ws.get_state_window(W(11, 14)) == W(11, 14)
    assert add(ws, mf, W(10, 13)) == W(10, 14)
    assert (mf.target, mf.state_window, mf.sources, mf.merged_state_windows) == (
        W(10, 14),
        W(11, 14),
        [W(11, 14)],
        [],
    )
    assert add(ws, mf, W(12, 15)) == W(10, 15)
    assert (mf.state_window, mf.sources) == (W(11, 14), [W(10, 14)])
    assert add(ws, mf, W(11, 14)) == W(10, 15) and not mf.merged

    ws.retire_window(W(0, 6))
    assert ws.get_state_window(W(0, 6)) is None
    assert ws.get_state_window(W(10, 15)) == W(11, 14)


def test_late_merging(ws, mf):
    """MergingWindowSetTest.testLateMerging: one new window bridging two, then all three."""
    for w in (W(0, 3), W(5, 8), W(10, 13)):
        assert add(ws, mf, w) == w and not mf.merged and ws.get_state_window(w) == w
    assert add(ws, mf, W(8, 10)) == W(5, 13)
    assert mf.target == W(5, 13)
    assert sorted(mf.sources, key=lambda w: w.start) == [W(5, 8), W(10, 13)]
    assert mf.state_window in (W(5, 8), W(10, 13))
    assert len(mf.merged_state_windows) == 1 and mf.merged_state_windows[0] in (W(5, 8), W(10, 13))
    assert mf.merged_state_windows[0] != mf.state_window
    assert ws.get_state_window(W(0, 3)) == W(0, 3)
    for w in (W(5, 8), W(8, 10), W(10, 13)):
        assert add(ws, mf, w) == W(5, 13) and not mf.merged

    assert add(ws, mf, W(3, 5)) == W(0, 13)
    assert sorted(mf.sources, key=lambda w: w.start) == [W(0, 3), W(5, 13)]
    assert mf.state_window in (W(0, 3), W(5, 8), W(10, 13))
    assert len(mf.merged_state_windows) == 1 and mf.target not in mf.merged_state_windows
    assert ws.get_state_window(W(0, 13)) == mf.state_window


def test_merge_large_window_covering_single_window(ws, mf):
    """MergingWindowSetTest.testMergeLargeWindowCoveringSingleWindow: the merge function is called
    (the result is a new window) and the old state window is kept."""
    assert add(ws, mf, W(1, 2)) == W(1, 2)
    assert add(ws, mf, W(0, 3)) == W(0, 3) and mf.merged
    assert ws.get_state_window(W(0, 3)) == W(1, 2)
    assert ws.get_state_window(W(1, 2)) is None


def test_adding_identical_windows(ws, mf):
    """MergingWindowSetTest.testAddingIdenticalWindows."""
    assert add(ws, mf, W(1, 2)) == W(1, 2) and not mf.merged
    assert add(ws, mf, W(1, 2)) == W(1, 2) and not mf.merged
    assert ws.get_state_window(W(1, 2)) == W(1, 2)


def test_merge_large_window_covering_multiple_windows(ws, mf):
    """MergingWindowSetTest.testMergeLargeWindowCoveringMultipleWindows."""
    for w in (W(1, 3), W(5, 8), W(10, 13)):
        add(ws, mf, w)
    assert add(ws, mf, W(0, 13)) == W(0, 13) and mf.merged
    assert len(mf.merged_state_windows) == 2
    assert set(mf.merged_state_windows) | {mf.state_window} == {W(1, 3), W(5, 8), W(10, 13)}
    assert ws.get_state_window(W(0, 13)) == mf.state_window


def test_adjacent_windows_merge(ws, mf):
    """`intersects` includes touching: [0, 3) and [3, 6) are one session."""
    add(ws, mf, W(0, 3))
    assert add(ws, mf, W(3, 6)) == W(0, 6) and mf.merged
    assert add(ws, mf, W(7, 9)) == W(7, 9) and not mf.merged


def test_retire_unknown_window_is_an_error(ws):
    with pytest.raises(RuntimeError, match=r"not in in-flight window set"):
        ws.retire_window(W(0, 1))

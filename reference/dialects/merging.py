"""Merging: which session windows merge, where a merge stands beside lateness, and what it keeps.

Flink's rules are `WindowOperator`'s and `MergingWindowSet`'s: sessions merge when they intersect, touching ones
included (`TimeWindow.intersects`); a record's window merges first, and the merged window decides lateness; a
trigger's reducing state merges by reducing (`mergePartitionedState`); and `clearAllState` retires a cleaned-up
window from the set. The switches below change one of these each; a mixin of the operator implements each
(`reference.dialects.dialect.MIXINS` puts them in order).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal

from reference.operator import Context
from reference.windows import TimeWindow, merge_windows
from window_contract.java_hash import hash_set_order


@dataclass(frozen=True)
class MergingSwitches:
    """The switches of merging; every default is Flink's."""

    #: that overlap merge.
    sessions_merge_when_touching: bool = True
    #: A merging assigner merges the element's window first, and the merged window decides lateness; False:
    #: the element's own window decides, before any merge (a late element never joins a live session).
    merges_before_lateness: bool = True
    #: A trigger's reducing state (`CountTrigger`'s count, a continuous trigger's next fire time) merges by
    #: reducing (`mergePartitionedState`); "first_of_bag": a bag of the merged windows' values whose value is
    #: its first, the merged window's own or else the first merged window's in the JVM's `HashSet` order (a
    #: PyFlink job's reducing state, kept in the JVM's list state).
    trigger_state_merges: Literal["reduce", "first_of_bag"] = "reduce"
    #: `WindowOperator.clearAllState` clears a window's contents and retires a merging one from its
    #: `MergingWindowSet`; True: a merging window's contents and its place in the set outlive its cleanup (the
    #: trigger's state and timers go), so a later element can merge into it and fire it again with them (Beam's
    #: direct runner keeps an expired session's state in its active window set).
    merging_windows_outlive_cleanup: bool = False


def overlaps(a: TimeWindow, b: TimeWindow) -> bool:
    """Two windows that share a millisecond (touching ones do not)."""
    return a.start < b.end and a.end > b.start


class TouchingSessionsStayApart:
    """`sessions_merge_when_touching=False`: sessions merge only when they overlap."""

    merge_windows = staticmethod(partial(merge_windows, intersects=overlaps))


class LatenessBeforeMerge:
    """`merges_before_lateness=False`: the element's own window decides its lateness before any merge."""

    def add_to_merging_windows(self, key, element, timestamp, windows):
        live = []
        for window in windows:
            if self.is_window_late(self.cleanup_time(window)):
                self.listener.window_late(key, window)
            else:
                live.append(window)
        return super().add_to_merging_windows(key, element, timestamp, live) if live else True


class FirstOfBagContext(Context):
    """`trigger_state_merges="first_of_bag"`: a merge keeps the merged window's own value, or else the value
    of the first merged window that has one, in the order the JVM's `HashSet` iterates them
    (`window_contract.java_hash`) when PyFlink sends them in its own set's order (`python_set_order`)."""

    __slots__ = ("adding",)

    def merge_state(self, name, reduce):
        state = self.op.trigger_state
        sent = python_set_order([*self.merged_windows, self.adding], self.adding)
        values = [v for w in hash_set_order(sent) if (v := state.pop((self.key, w, name), None)) is not None]
        if values and (self.key, self.window, name) not in state:
            state[(self.key, self.window, name)] = values[0]


class _PyFlinkTimeWindow:
    """A window hashed as PyFlink's `TimeWindow.__hash__`: `start + mod_inverse((end << 1) + 1)`."""

    __slots__ = ("window",)

    def __init__(self, window: TimeWindow) -> None:
        self.window = window

    def __hash__(self) -> int:
        x = (self.window.end << 1) + 1
        inverse = x * x * x  # PyFlink's mod_inverse, in Python's unbounded integers
        for _ in range(3):
            inverse *= 2 - x * inverse
        return self.window.start + inverse

    def __eq__(self, other) -> bool:
        return isinstance(other, _PyFlinkTimeWindow) and self.window == other.window


def python_set_order(windows: list[TimeWindow], added: TimeWindow) -> list[TimeWindow]:
    """The merged windows in the order PyFlink's `TimeWindow.merge_windows` yields them: a Python set, filled
    in the windows' order, from which the window being added is removed."""
    merged = set()
    for window in sorted(windows):
        merged.add(_PyFlinkTimeWindow(window))
    merged.discard(_PyFlinkTimeWindow(added))
    return [w.window for w in merged]


class MergesTriggerStateAsABag:
    """`trigger_state_merges="first_of_bag"`: the trigger's context merges its state as `FirstOfBagContext`
    does, told which window the element being merged brought."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.trigger_context = FirstOfBagContext(self)

    def add_to_merging_windows(self, key, element, timestamp, windows):
        for window in windows:  # a session assigner gives one
            self.trigger_context.adding = window
        return super().add_to_merging_windows(key, element, timestamp, windows)


class MergingWindowsOutliveCleanup:
    """`merging_windows_outlive_cleanup=True`: cleaning a merging window up clears its trigger only, and a merge
    into such a window is not checked against the watermark (Beam merges its active windows without Flink's
    `IllegalStateException`, and fires the result late)."""

    def check_merge(self, merge_result):
        pass

    def clear_all_state(self, key, window, state_window, merging):
        if merging is None:
            super().clear_all_state(key, window, state_window, merging)
        else:
            self.listener.cleared(key, window)
            self.trigger.clear(window, self.trigger_context)

"""Windows: which windows an assigner gives a record.

Flink's `TumblingEventTimeWindows` and `SlidingEventTimeWindows` give a record every window that holds it, aligned
on the offset on both sides of it. The switches below leave some of them out: the operator sees its assigner
through a view (`AssignerView`) that filters the windows.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.assigners import SlidingWindows, TumblingWindows


@dataclass(frozen=True)
class WindowSwitches:
    """The switches of the windows an assigner gives; every default is Flink's."""

    #: `SlidingEventTimeWindows` gives a record every window that holds it; True: only those that start at 0
    #: or later (Kafka Streams' `TimeWindows.windowsFor`).
    sliding_windows_from_zero: bool = False
    #: `TumblingEventTimeWindows` and `SlidingEventTimeWindows` with an offset align windows on it on both sides;
    #: True: with an offset other than 0, no window starts before the offset (Pathway's `origin`: windows whose
    #: `_pw_window_start` is below it are left out), and a record before it is in no window.
    windows_start_from_offset: bool = False


class AssignerView:
    """An assigner whose windows a dialect changes (`windows`); in every other way the assigner itself."""

    def __init__(self, assigner) -> None:
        self.assigner = assigner

    def __getattr__(self, name):
        return getattr(self.assigner, name)

    def assign_windows(self, timestamp, current_processing_time, value=0):
        return self.windows(self.assigner.assign_windows(timestamp, current_processing_time, value))


class _SlidingFromZero(AssignerView):
    """A sliding assigner that gives only the windows starting at 0 or later (`sliding_windows_from_zero`)."""

    def windows(self, windows):
        return [w for w in windows if w.start >= 0]


class SlidingWindowsFromZero:
    """`sliding_windows_from_zero=True`: a sliding assigner starts no window before 0."""

    def __init__(self, assigner, *args, **kwargs):
        if isinstance(assigner, SlidingWindows):
            assigner = _SlidingFromZero(assigner)
        super().__init__(assigner, *args, **kwargs)


class _FromOffset(AssignerView):
    """A tumbling or sliding assigner that gives only the windows starting at its offset or later
    (`windows_start_from_offset`)."""

    def windows(self, windows):
        return [w for w in windows if w.start >= self.assigner.offset]


class WindowsStartFromOffset:
    """`windows_start_from_offset=True`: a tumbling or sliding assigner with an offset starts no window before it."""

    def __init__(self, assigner, *args, **kwargs):
        if isinstance(assigner, (TumblingWindows, SlidingWindows)) and assigner.offset != 0:
            assigner = _FromOffset(assigner)
        super().__init__(assigner, *args, **kwargs)

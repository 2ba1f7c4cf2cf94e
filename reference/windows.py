"""Windows: `TimeWindow` (`[start, end)`) and `GlobalWindow`.

Models `org.apache.flink.streaming.api.windowing.windows.TimeWindow` and `GlobalWindow`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import NamedTuple

from reference.javalong import LONG_MAX, LONG_MIN, ladd, lrem, lsub


class TimeWindow(NamedTuple):
    """`[start, end)`: `start` is the first timestamp in the window, `end` the first one after it.

    A named tuple: windows are dictionary keys on the model's hot path, and tuples hash fastest.
    """

    start: int
    end: int

    def max_timestamp(self) -> int:
        """`TimeWindow.maxTimestamp()`: `end - 1`, the last timestamp that belongs to the window
        (in Java `long`: a window ending at `Long.MIN_VALUE` has `maxTimestamp` `Long.MAX_VALUE`)."""
        end = self.end
        return end - 1 if end != LONG_MIN else LONG_MAX

    def intersects(self, other: TimeWindow) -> bool:
        """True when the windows overlap *or touch*: `[0, 5)` and `[5, 10)` intersect (and merge)."""
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: TimeWindow) -> TimeWindow:
        """The smallest window that covers both."""
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    def __repr__(self) -> str:
        return f"[{self.start}, {self.end})"


@dataclass(frozen=True, slots=True)
class GlobalWindow:
    """The one window of `GlobalWindows`; it never ends."""

    def max_timestamp(self) -> int:
        """`GlobalWindow.maxTimestamp()`: `Long.MAX_VALUE`."""
        return LONG_MAX

    def __repr__(self) -> str:
        return "GlobalWindow"


GLOBAL_WINDOW = GlobalWindow()

Window = TimeWindow | GlobalWindow

#: `(timestamp, offset, size) -> start` of the window that holds `timestamp`.
WindowStart = Callable[[int, int, int], int]


def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
    """`TimeWindow.getWindowStartWithOffset`, as fixed in FLINK-26334: floor alignment.

    `remainder = (timestamp - offset) % windowSize` (Java `%`, which truncates); a negative remainder
    is moved up by one window, so the start never lies after the timestamp, negative ones included.
    """
    remainder = lrem(lsub(timestamp, offset), window_size)
    if remainder < 0:
        return lsub(timestamp, remainder + window_size)
    return lsub(timestamp, remainder)


def get_window_start_with_offset_flink_1_12(timestamp: int, offset: int, window_size: int) -> int:
    """The formula of Flink up to 1.12, shown in the seed document `003`:
    `timestamp - (timestamp - offset + windowSize) % windowSize`.

    Java's `%` truncates, so for timestamps below `offset - windowSize` the "start" lies *after* the
    timestamp (e.g. `ts = -7, size = 5` gives `-5`): the element falls outside its own window.
    """
    return lsub(timestamp, lrem(ladd(lsub(timestamp, offset), window_size), window_size))


_start = attrgetter("start")


def merge_windows(windows: Iterable[TimeWindow], intersects: Callable[[TimeWindow, TimeWindow], bool] =
                  TimeWindow.intersects) -> list[tuple[TimeWindow, set[TimeWindow]]]:
    """`TimeWindow.mergeWindows`: sort by start, merge runs of intersecting windows (`intersects`: Flink's
    `TimeWindow.intersects`, unless a dialect says otherwise).

    Returns `(merge result, merged windows)` for each run of more than one distinct window.
    """
    merged: list[tuple[TimeWindow, set[TimeWindow]]] = []
    current: TimeWindow | None = None
    members: set[TimeWindow] = set()
    for candidate in sorted(windows, key=_start):
        if current is not None and intersects(current, candidate):
            current = current.cover(candidate)
            members.add(candidate)
            continue
        if current is not None:
            merged.append((current, members))
        current, members = candidate, {candidate}
    if current is not None:
        merged.append((current, members))
    return [(result, group) for result, group in merged if len(group) > 1]

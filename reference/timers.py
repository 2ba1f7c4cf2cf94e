"""The timer service: event- and processing-time timers of one operator.

Models `InternalTimerServiceImpl`. A timer is `(timestamp, key, window)`; registering one that exists
does nothing (timers are deduplicated), deleting one removes it. `advance_watermark(t)` first sets the
current watermark to `t`, then fires every event-time timer with `timestamp <= t` in timestamp order,
timers registered while firing included. Processing time advances the same way, except that a
timer for t fires once the clock has passed t, as in a real task. The order of timers
with equal timestamps is unspecified in Flink; here they fire in registration order.

The loop fires until no timer is due, however many there are: a chain of periodic timers that never
gets past the watermark or the clock is told apart from one that does by arithmetic, where the
operator steps over it (`reference.timer_chains`), not by counting firings here.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable
from typing import NamedTuple

from reference.javalong import LONG_MIN


class InternalTimer(NamedTuple):
    """`TimerHeapInternalTimer`: a timestamp for one key and window (Flink's namespace)."""

    timestamp: int
    key: str
    window: Hashable


class TimerQueue:
    """A priority queue of timers with deduplication and deletion (`HeapPriorityQueueSet`).

    As in Flink, a hash map deduplicates and a binary heap orders timers by timestamp: registering a
    timer that exists is one lookup, adding and polling are O(log n). Timers are plain
    `(timestamp, key, window)` tuples inside the queue (cheap to build and hash: most registrations
    find the timer there already, and many timers are deleted before they fire); a polled one
    becomes an `InternalTimer`. Deletion is lazy: a deleted timer leaves the map at once but stays in
    the heap until it reaches the top, where its registration number no longer matches the map's
    (a timer deleted and added again has a new number, so it fires once).
    """

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, tuple]] = []  # (timestamp, registration, timer)
        self._live: dict[tuple[int, str, Hashable], int] = {}  # timer -> its registration number
        self._registrations = 0

    def add(self, timestamp: int, key: str, window: Hashable) -> bool:
        """Register a timer; False (and nothing changes) when it is registered already."""
        timer = (timestamp, key, window)
        if timer in self._live:
            return False
        self._registrations += 1
        self._live[timer] = self._registrations
        heapq.heappush(self._heap, (timestamp, self._registrations, timer))
        return True

    def remove(self, timestamp: int, key: str, window: Hashable) -> None:
        self._live.pop((timestamp, key, window), None)

    def poll_up_to(self, time: int) -> InternalTimer | None:
        """The earliest live timer with `timestamp <= time`, removed from the queue; else None."""
        heap, live = self._heap, self._live
        while heap and heap[0][0] <= time:
            _, registration, timer = heapq.heappop(heap)
            if live.get(timer) == registration:
                del live[timer]
                return InternalTimer(*timer)
        return None

    def __len__(self) -> int:
        return len(self._live)


TimerCallback = Callable[[InternalTimer], None]


class InternalTimerService:
    """Timers, the current watermark (initially `Long.MIN_VALUE`) and processing time (initially 0)."""

    def __init__(self) -> None:
        self.current_watermark = LONG_MIN
        #: The latest event-time timer the running (or last) watermark advance fires: its own time, which bounds
        #: a chain of periodic timers it fires (`WindowOperator.skipped_empty_firings`).
        self.event_time_due = LONG_MIN
        self.current_processing_time = 0
        self.event_time_timers = TimerQueue()
        self.processing_time_timers = TimerQueue()

    def advance_watermark(self, time: int, on_event_time: TimerCallback) -> None:
        """`InternalTimerServiceImpl.advanceWatermark`: set the watermark, then fire due timers."""
        self.event_time_due = time
        self.current_watermark = time
        _fire_due(self.event_time_timers, time, on_event_time)

    def advance_processing_time(self, time: int, on_processing_time: TimerCallback) -> None:
        """The clock moves to `time`; the processing-time timers it has passed fire in timestamp order.

        A timer for t fires once the clock reads more than t, as in a real task:
        `SystemProcessingTimeService.registerTimer(t)` waits `ProcessingTimeServiceUtil.getProcessingTimeDelay(t,
        now)`, that is `t - now + 1` ms (0 for a time already past), so that a record arriving while the
        clock reads t comes before the timer for t. (`TestProcessingTimeService`, behind Flink's own
        operator tests, fires it at t, a millisecond earlier than any real task.)
        """
        self.current_processing_time = time
        _fire_due(self.processing_time_timers, self.processing_time_due(), on_processing_time)

    def processing_time_due(self) -> int:
        """The latest processing-time timer the clock has passed: `current_processing_time - 1`."""
        return self.current_processing_time - 1


def _fire_due(queue: TimerQueue, time: int, callback: TimerCallback) -> None:
    while (timer := queue.poll_up_to(time)) is not None:
        callback(timer)

"""Lateness: when a window or a record is late, and what becomes of a late record.

Flink's rules are `WindowOperator`'s: a window is late once the watermark reaches its cleanup time,
`maxTimestamp + allowedLateness` (`isWindowLate`); a record goes to each of its windows that is not late and is a
late record (to the side output, or dropped) only when every one of them is late, or when no window took it and
`timestamp + allowedLateness <= watermark` (`isSkippedElement && isElementLate`). The switches below change one of
these each; a mixin of the operator implements each (`reference.dialects.dialect.MIXINS` puts them in order).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Literal

from reference.assigners import SlidingWindows
from window_contract.facts import LONG_MAX


@dataclass(frozen=True)
class LatenessSwitches:
    """The switches of lateness; every default is Flink's."""

    #: `WindowOperator` cleans a window up, and drops what comes for it, once the watermark reaches its
    #: cleanup time, `maxTimestamp + allowedLateness`; True: only once the watermark has passed it.
    drop_when_past_cleanup_strictly: bool = False
    #: A session window is late once the watermark reaches its cleanup time; True: once the watermark has
    #: passed it, while it still fires and is cleaned up when the watermark reaches it (Kafka Streams' session
    #: aggregate and `suppress`).
    session_late_strictly: bool = False
    #: A record goes to each of its windows that is not late, and is a late record only when every one of them
    #: was late; "behind_watermark": a record behind the watermark (`timestamp + allowedLateness <= watermark`)
    #: is late whatever its windows (Bytewax); "any_window": a tumbling or sliding window's record is a late
    #: record (once) when at least one of its windows is late, and still goes to every other (Quix Streams'
    #: `on_late`, called for each late window); "earliest_window": a tumbling or sliding window's record whose
    #: earliest window is late goes to none of its windows and is late (Hazelcast Jet's `SlidingWindowP`, which
    #: takes no "partially late" event); a session's record as in Flink.
    late_records: Literal["per_window", "behind_watermark", "any_window", "earliest_window"] = "per_window"
    #: `WindowOperator` drops a record that no window took when it is late (`isSkippedElement && isElementLate`);
    #: False: such a record is never late, it vanishes (Pathway, which windows it nowhere and drops nothing), and
    #: with `records_advance_watermark` does not move the time either.
    late_when_in_no_window: bool = True
    #: A record that went into no window is late only when `timestamp + allowedLateness <= watermark`; True: when
    #: the last window its pane belongs to is late (the table runtime's `WindowOperator`, whose sliding windows keep
    #: panes, `PanedWindowProcessFunction.isPaneLate`, and which counts such a record in `numLateRecordsDropped`: a
    #: sliding window with `size < slide`).
    dropped_when_in_no_window: bool = False
    #: `WindowOperator` keeps a window for its allowed lateness and fires it again for a late record;
    #: "ignored": the engine never reads the allowed lateness (a window table function never reads
    #: `table.exec.emit.allow-lateness`): every decision takes it as 0.
    allowed_lateness: Literal["honoured", "ignored"] = "honoured"


class DropWhenPastCleanupStrictly:
    """`drop_when_past_cleanup_strictly=True`: a window lives until the watermark has passed its cleanup time
    (`maxTimestamp + allowedLateness`): it is cleaned up one millisecond later, at `end + allowedLateness`
    (an engine that expires a window once the watermark passes its end plus the lateness), and an element
    is late only once `timestamp + allowedLateness < watermark`."""

    def cleanup_time(self, window):
        cleanup_time = super().cleanup_time(window)
        return cleanup_time if cleanup_time == LONG_MAX and self.dialect.long_arithmetic == "java" else cleanup_time + 1

    def is_element_late(self, timestamp):
        return self.is_event_time and self.with_lateness(timestamp) < self.timers.current_watermark


class SessionLateStrictly:
    """`session_late_strictly=True`: a merging window is late only once the watermark has passed its cleanup
    time; a record that comes when the watermark is at it opens the window again (it fired and was cleaned up
    then): the trigger decides on it (`EventTimeTrigger` fires it, past its `maxTimestamp`), and the window is
    cleaned up at once, as its cleanup timer is due."""

    def is_window_late(self, cleanup_time):
        if not self.assigner.is_merging:
            return super().is_window_late(cleanup_time)
        return self.is_event_time and cleanup_time < self.timers.current_watermark

    def add_to_window(self, key, element, timestamp, window, state_window, cleanup_time):
        super().add_to_window(key, element, timestamp, window, state_window, cleanup_time)
        if self.assigner.is_merging and self.is_event_time and cleanup_time == self.timers.current_watermark:
            self.delete_cleanup_timer(window)
            self.clear_all_state(key, window, state_window, self.merging_window_sets[key])


class LateBehindWatermark:
    """`late_records="behind_watermark"`: a record behind the watermark (`isElementLate`) goes to no window, to
    the side output or dropped; any other record goes to all its windows (none of which is late)."""

    def process_element(self, key, value, timestamp):
        if not self.is_element_late(timestamp):
            return super().process_element(key, value, timestamp)
        self.late_record(key, value, timestamp)
        return None


class LateForAnyWindow:
    """`late_records="any_window"`: a tumbling or sliding window's record goes to every window that is not late,
    and to the side output (or dropped) once when at least one of its windows is late."""

    def process_element(self, key, value, timestamp):
        if self.assigner.is_merging:
            return super().process_element(key, value, timestamp)
        windows = self.assigner.assign_windows(timestamp, self.timers.current_processing_time, value)
        self.listener.assigned(key, value, timestamp, windows)
        element = (value, timestamp) if self.keeps_timestamps else value
        self.trigger_context.key = key
        any_late = False
        for window in windows:
            cleanup_time = self.cleanup_time(window)
            if self.is_window_late(cleanup_time):
                self.listener.window_late(key, window)
                any_late = True
                continue
            self.add_to_window(key, element, timestamp, window, window, cleanup_time)
        if any_late and self.is_element_late(timestamp):
            self.late_record(key, value, timestamp)
        return None


class LateForEarliestWindow:
    """`late_records="earliest_window"`: a tumbling or sliding window's record of which one window is late (its
    earliest) goes to none of them, to the side output or dropped."""

    def process_element(self, key, value, timestamp):
        if not self.assigner.is_merging and any(
                self.is_window_late(self.cleanup_time(window))
                for window in self.assigner.assign_windows(timestamp, self.timers.current_processing_time, value)):
            self.late_record(key, value, timestamp)
            return None
        return super().process_element(key, value, timestamp)


class NeverLateInNoWindow:
    """`late_when_in_no_window=False`: a record that no window took is not late (the operator asks only for such a
    record: a merging window's record is late only by its window, before this asks)."""

    def process_element(self, key, value, timestamp):
        if self.assigner.is_merging or self.assigner.assign_windows(
                timestamp, self.timers.current_processing_time, value):
            return super().process_element(key, value, timestamp)
        self.listener.assigned(key, value, timestamp, [])
        return None


class DropsWhatNoWindowTakes:
    """`dropped_when_in_no_window=True`: a record that no window took is late when the last window of its pane is
    (the operator asks only for such a record): the table runtime's `SlidingWindowAssigner` puts a record in its pane
    of gcd(size, slide), `assignPane`, whose last window starts at the pane's start aligned to the slide,
    `getLastWindow`, and `PanedWindowProcessFunction` keeps the pane unless that window is late, `isPaneLate`. A
    record between two windows is thus late once the window before it is, whatever its own timestamp. (Any other
    record the operator asks about is in windows that are all late: late in either rule.)"""

    def is_element_late(self, timestamp):
        if not isinstance(self.assigner, SlidingWindows):
            return super().is_element_late(timestamp)
        sliding = self.assigner
        pane = sliding.window_start(timestamp, sliding.offset, gcd(sliding.size, sliding.slide))
        last = sliding.windows[sliding.window_start(pane, sliding.offset, sliding.slide)]
        return self.is_window_late(self.cleanup_time(last))


class IgnoresAllowedLateness:
    """`allowed_lateness="ignored"`: the operator decides as with an allowed lateness of 0, whatever the job says
    (a negative one is still Flink's rejection: the engine's acceptance is an explainer of its list)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.allowed_lateness = 0

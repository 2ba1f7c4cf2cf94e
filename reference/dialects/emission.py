"""Emission: what the operator emits, and what a firing carries.

Flink's rules: a window fires when its trigger says so (`TriggerResult.FIRE`), and a firing carries
`window.maxTimestamp()` (`Long.MAX_VALUE` for the global window) and the window as the operator holds it. The
switches below make every update of a window a firing (an engine without Flink's triggers), or stamp and name a
firing otherwise: the collector (`StampingCollector`) and mixins of the operator implement them
(`reference.dialects.dialect.MIXINS` puts the mixins in order).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from reference.operator import EvictingWindowOperator
from reference.output import Collector
from reference.triggers import Trigger, TriggerResult
from reference.windows import TimeWindow
from window_contract.facts import LONG_MAX, LONG_MIN


@dataclass(frozen=True)
class EmissionSwitches:
    """The switches of emission; every default is Flink's."""

    #: The trigger decides when a window fires; "every_update": every element a window takes fires it with its
    #: contents so far, and nothing else does (Kafka Streams without `suppress`).
    #: "every_session_update": a session window fires so at every element it takes, is never late and never
    #: cleaned up, whatever the watermark; tumbling and sliding windows fire on their trigger (Pathway's `session`
    #: windows, which `windowby` builds without its behavior).
    emits: Literal["on_trigger", "every_update", "every_session_update"] = "on_trigger"
    #: A firing carries `window.maxTimestamp()`; "trigger_time": the timestamp of the record, or the time of
    #: the timer, whose processing fired the window; "max_record_timestamp": the largest timestamp of the
    #: records the window holds; "window_start": the window's start (Quix Streams' `Window.final`).
    firing_timestamp: Literal["max_timestamp", "trigger_time", "max_record_timestamp", "window_start"] = \
        "max_timestamp"
    #: The timestamp of a firing of the global window (its `maxTimestamp()`, `Long.MAX_VALUE`, in Flink).
    global_window_timestamp: int = LONG_MAX
    #: A session fires as `[first, last + gap)`; "last_record": as `[first, last + 1)`, its records' first and
    #: last timestamps (Kafka Streams' `SessionWindow`, both ends inclusive); merging is unchanged.
    session_window_end: Literal["gap_after_last", "last_record"] = "gap_after_last"

    def collector(self, watermarks: list | None) -> Collector:
        if (self.firing_timestamp, self.global_window_timestamp, self.decides_on_less) == (
                "max_timestamp", LONG_MAX, 0):
            return Collector(watermarks=watermarks)
        return StampingCollector(self, watermarks=watermarks)


class StampingCollector(Collector):
    """A collector whose firings carry another timestamp than `maxTimestamp()` (`firing_timestamp`,
    `global_window_timestamp`: the operator tells it the time it processes, `TriggerTime`), or the engine's
    watermark where the operator decides on less (`decides_on_less`)."""

    def __init__(self, dialect: EmissionSwitches, watermarks: list | None) -> None:
        super().__init__(watermarks=watermarks)
        self.dialect, self.trigger_time, self.stamps = dialect, 0, []

    def emit(self, key, window, values, watermark):
        # the operator decides on one less than the engine's watermark (`decides_on_less`): it reports the engine's
        told = watermark if watermark in (LONG_MIN, LONG_MAX) else watermark + self.dialect.decides_on_less
        super().emit(key, window, values, told)
        if self.dialect.firing_timestamp == "window_start" and isinstance(window, TimeWindow):
            self.stamps.append(window.start)
        elif self.dialect.firing_timestamp not in ("max_timestamp", "window_start"):
            self.stamps.append(self.trigger_time)
        else:
            self.stamps.append(window.max_timestamp() if isinstance(window, TimeWindow)
                               else self.dialect.global_window_timestamp)

    def observation(self, error=None):
        observed = super().observation(error)
        return dataclasses.replace(observed, firings=tuple(
            dataclasses.replace(firing, timestamp=stamp) for firing, stamp in zip(observed.firings, self.stamps,
                                                                                   strict=True)))


class TriggerTime:
    """`firing_timestamp` or `global_window_timestamp`: the collector learns the time of the record or timer
    the operator processes, before it can fire."""

    def add_to_window(self, key, element, timestamp, window, state_window, cleanup_time):
        self.output.trigger_time = timestamp
        super().add_to_window(key, element, timestamp, window, state_window, cleanup_time)

    def on_event_time(self, timer):
        self.output.trigger_time = timer[0]
        super().on_event_time(timer)

    def on_processing_time(self, timer):
        self.output.trigger_time = timer[0]
        super().on_processing_time(timer)


class FromRecordTimestamps:
    """`firing_timestamp="max_record_timestamp"`, `session_window_end="last_record"`: the window keeps its
    records' timestamps; a firing carries the largest of them, and a session is reported as `[first, last + 1)`
    (before an evictor evicts anything)."""

    keeps_timestamps = True

    def emit_window_contents(self, key, window, state_window, contents):
        last = max(timestamp for _, timestamp in contents)
        if self.dialect.firing_timestamp == "max_record_timestamp":
            self.output.trigger_time = last
        if self.dialect.session_window_end == "last_record" and self.assigner.is_merging:
            window = TimeWindow(window.start, last + 1)
        if not isinstance(self, EvictingWindowOperator):  # the evicting operator keeps them itself
            contents = [value for value, _ in contents]
        super().emit_window_contents(key, window, state_window, contents)


class EveryUpdateTrigger(Trigger):
    """`emits="every_update"`: every element fires its window with the contents so far; no timer fires it."""

    can_merge = True

    def on_element(self, timestamp, window, ctx):
        return TriggerResult.FIRE

    def __repr__(self) -> str:
        return "every update"


class EmitsEveryUpdate:
    """`emits="every_update"`: the window's trigger is `EveryUpdateTrigger` (the cleanup is unchanged); a merge
    fires the merged window once, for the element that merged it."""

    def __init__(self, assigner, trigger, *args, **kwargs):
        super().__init__(assigner, EveryUpdateTrigger(), *args, **kwargs)


class EmitsEverySessionUpdate:
    """`emits="every_session_update"`: a session window's trigger is `EveryUpdateTrigger`, and no session is late
    or cleaned up (a merge fires the merged window once, for the element that merged it); tumbling and sliding
    windows keep theirs."""

    def __init__(self, assigner, trigger, *args, **kwargs):
        super().__init__(assigner, EveryUpdateTrigger() if assigner.is_merging else trigger, *args, **kwargs)

    def is_window_late(self, cleanup_time):
        return not self.assigner.is_merging and super().is_window_late(cleanup_time)

    def is_element_late(self, timestamp):
        return not self.assigner.is_merging and super().is_element_late(timestamp)

    def with_lateness(self, time):
        """A session's time with its lateness: the end of time (a merge never makes a late window)."""
        return LONG_MAX if self.assigner.is_merging else super().with_lateness(time)

    def register_cleanup_timer(self, cleanup_time):
        if not self.assigner.is_merging:
            super().register_cleanup_timer(cleanup_time)

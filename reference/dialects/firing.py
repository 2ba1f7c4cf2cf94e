"""Firing: when the watermark fires a window, cleans it up and makes it late.

Flink's rule is `WindowOperator`'s: an event-time window's trigger (`EventTimeTrigger`) fires it, and its cleanup
timer cleans it up, when the watermark reaches its `maxTimestamp` (`end - 1`) plus the allowed lateness; a session
is `[first, last + gap)`. The switches below move that point: a window that closes at its end (the operator
decides on one less than the watermark it receives), a session that closes later (the operator keeps it longer
than it reports it), or windows that expire on a grid without timers. A mixin of the operator implements each but
the first (`reference.dialects.dialect.MIXINS` puts them in order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal

from reference.dialects.merging import overlaps
from reference.dialects.windows import AssignerView
from reference.windows import TimeWindow, merge_windows
from window_contract.facts import LONG_MAX


@dataclass(frozen=True)
class FiringSwitches:
    """The switches of firing; every default is Flink's."""

    #: A window fires, and turns late, when the watermark reaches its `maxTimestamp` (`end - 1`); "end":
    #: only when it reaches the window's end.
    windows_close_at: Literal["max_timestamp", "end"] = "max_timestamp"
    #: A session fires, is cleaned up and turns late when the watermark reaches its `maxTimestamp`; "end": when
    #: it reaches the session's end, one millisecond later (Bytewax's `_SessionWindowerLogic.close_for`);
    #: "gap_after_end": it fires and is cleaned up when the watermark reaches its end plus a gap (`last + 2 *
    #: gap`), and a record is late when the watermark has reached the end of its own session `[ts, ts + gap)`,
    #: before any merge (Quix Streams' `SessionWindow`: late below `time - gap - grace`, closed once `last + 1 +
    #: 2 * gap + grace <= time`).
    session_fires_at: Literal["max_timestamp", "end", "gap_after_end"] = "max_timestamp"
    #: A tumbling or sliding window fires and is cleaned up when the watermark reaches its `maxTimestamp`, and is
    #: late from then on; "last_expired_grid": as Quix Streams' partition closing strategy, no timer: the
    #: operator keeps `E`, the last window end it expired (0: none yet), on the grid of the slide (the size of a
    #: tumbling window). When the watermark reaches `W`, with `M = W + 1` (the largest timestamp less the grace,
    #: the generator's bound; at the end of input the largest timestamp plus the size), it expires the windows
    #: whose end is on the grid after `E` up to `M` (where `E` is 0: every window ending at or below `M` rounded
    #: down to the grid), and `E` becomes the last grid point it listed; a window whose end is off the grid (a size
    #: no multiple of the slide) so never expires once `E` is set. A record's window is late when its end is at
    #: most `max(ts, E) - grace`, and a window that is not late goes on taking records, fired or not: one
    #: expired less than a grace ago takes the record into state that never fires (`windows_to_expire`,
    #: `FixedTimeWindow.process_window`).
    window_expiry: Literal["cleanup_timer", "last_expired_grid"] = "cleanup_timer"

    @property
    def decides_on_less(self) -> int:
        """How much less than the watermark it receives the operator decides on (`windows_close_at`)."""
        return 1 if self.windows_close_at == "end" else 0

    def deciding(self, process_watermark: Callable[[int], None]) -> Callable[[int], None]:
        """What the operator decides on, after the watermark is recorded (`decides_on_less`)."""
        return _shifted(process_watermark, -self.decides_on_less)


def _shifted(receive: Callable[[int], None], shift: int) -> Callable[[int], None]:
    if not shift:
        return receive
    return lambda watermark: receive(watermark if watermark == LONG_MAX else watermark + shift)


class _SessionsReach(AssignerView):
    """A merging assigner whose windows reach `extra` milliseconds further, `[start, end + extra)`."""

    def __init__(self, assigner, extra: int) -> None:
        super().__init__(assigner)
        self.extra = extra

    def windows(self, windows):
        return [TimeWindow(w.start, w.end + self.extra) for w in windows]


class SessionFiresAtEnd:
    """`session_fires_at="end"`: the operator keeps a session `[start, end)` as `[start, end + 1)`, whose sessions
    merge as before (their own bounds touch or overlap; only overlap with `sessions_merge_when_touching=False`),
    so that its `maxTimestamp` is the session's end: it fires, is cleaned up and turns late there; it is reported
    as `[start, end)`."""

    def __init__(self, assigner, *args, **kwargs):
        if assigner.is_merging:
            assigner = _SessionsReach(assigner, 1)
        super().__init__(assigner, *args, **kwargs)
        if assigner.is_merging:
            own = TimeWindow.intersects if self.dialect.sessions_merge_when_touching else overlaps

            def intersects(a: TimeWindow, b: TimeWindow) -> bool:
                return own(TimeWindow(a.start, a.end - 1), TimeWindow(b.start, b.end - 1))
            self.merge_windows = partial(merge_windows, intersects=intersects)

    def emit_window_contents(self, key, window, state_window, contents):
        if self.assigner.is_merging:
            window = TimeWindow(window.start, window.end - 1)
        super().emit_window_contents(key, window, state_window, contents)


class SessionClosesGapAfterEnd:
    """`session_fires_at="gap_after_end"`: the operator keeps a session `[start, end)` as `[start, end + gap + 1)`,
    so that its `maxTimestamp` is `end + gap` (`last + 2 * gap`): it fires and is cleaned up there; sessions
    merge as before (their own bounds touch or overlap); a record whose own session `[ts, ts + gap)` ends at or
    below the watermark is late before any merge (never merged: to the side output, or dropped); a session is
    reported as `[start, end)`."""

    def __init__(self, assigner, *args, **kwargs):
        if assigner.is_merging:
            assigner = _SessionsReach(assigner, assigner.gap + 1)
        super().__init__(assigner, *args, **kwargs)
        if assigner.is_merging:
            extra = assigner.extra

            def intersects(a: TimeWindow, b: TimeWindow) -> bool:
                return TimeWindow(a.start, a.end - extra).intersects(TimeWindow(b.start, b.end - extra))
            self.merge_windows = partial(merge_windows, intersects=intersects)

    def add_to_merging_windows(self, key, element, timestamp, windows):
        live = []
        for window in windows:
            if self.is_event_time and window.end - self.assigner.extra <= self.timers.current_watermark:
                self.listener.window_late(key, window)
            else:
                live.append(window)
        return super().add_to_merging_windows(key, element, timestamp, live) if live else True

    def emit_window_contents(self, key, window, state_window, contents):
        if self.assigner.is_merging:
            window = TimeWindow(window.start, window.end - self.assigner.extra)
        super().emit_window_contents(key, window, state_window, contents)


def with_grace(build: Callable[[], tuple], grace: int) -> tuple:
    operator, inputs = build()
    operator.grace = grace
    return operator, inputs


class ExpiresOnLastExpiredGrid:
    """`window_expiry="last_expired_grid"`: tumbling and sliding windows as Quix Streams' partition closing
    strategy keeps them (see the switch): no trigger and no timer; the operator keeps the last end it expired
    (`last_expired`, 0: none), the largest timestamp it has seen (`latest`, a watermark `W` counting as `W + 1 +
    grace`) and the grace (`Dialect.parts` sets it). With `late_records="any_window"` a record with a late window
    is a late record."""

    grace = 0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.last_expired, self.latest = 0, 0

    @property
    def grid(self) -> int:
        return getattr(self.assigner, "slide", None) or self.assigner.size

    def process_element(self, key, value, timestamp):
        if self.assigner.is_merging or not self.is_event_time:
            return super().process_element(key, value, timestamp)
        windows = self.assigner.assign_windows(timestamp, self.timers.current_processing_time, value)
        self.listener.assigned(key, value, timestamp, windows)
        element = (value, timestamp) if self.keeps_timestamps else value
        self.latest = max(self.latest, timestamp)
        bound = max(timestamp, self.last_expired) - self.grace
        late = 0
        for window in windows:
            if window.end <= bound:
                self.listener.window_late(key, window)
                late += 1
                continue
            self.window_state.setdefault((key, window), []).append(element)
        if late and (late == len(windows) or self.dialect.late_records == "any_window"):
            self.late_record(key, value, timestamp)
        return None

    def process_watermark(self, time):
        super().process_watermark(time)
        if self.assigner.is_merging or not self.is_event_time:
            return
        if time == LONG_MAX:  # the end of input: the adapter's last heartbeat, `latest + size + grace`
            until = self.latest + self.assigner.size
            self.latest = until + self.grace
        else:
            until = time + 1
            self.latest = max(self.latest, until + self.grace)
        grid, last = self.grid, self.last_expired
        if last:
            if until < last + grid:
                return
            self.last_expired = last + (until - last) // grid * grid
            due = [(k, w) for k, w in self.window_state if last < w.end <= self.last_expired
                   and (w.end - last) % grid == 0]
        else:
            self.last_expired = until - until % grid
            due = [(k, w) for k, w in self.window_state if w.end <= self.last_expired]
        for key, window in sorted(due, key=lambda kw: (kw[1].end, kw[1].start, kw[0])):
            self.emit_window_contents(key, window, window, self.window_state.pop((key, window)))

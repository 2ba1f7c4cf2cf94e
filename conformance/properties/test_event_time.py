"""When event-time windows fire: not before the watermark reaches their end, and as soon as it does."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import property_settings, run_and_check
from conformance.properties.timeline import (
    Timeline,
    assigned_windows,
    cleanup_time,
    firings_of,
    has_event_time_trigger,
    max_timestamp,
)
from window_contract.case import Count, PurgingTrigger, nested_triggers
from window_contract.difference import Positions, firing_text, record_text, time_text


def never_fires_before_watermark_reaches_max_timestamp(case, observation):
    if not has_event_time_trigger(case):
        return None
    timeline = Timeline(case)
    for f in observation.firings:
        if timeline.watermark_at(f.at) < max_timestamp(f.window):
            return (f"{firing_text(f, len(case.events))} comes where the watermark "
                    f"{time_text(timeline.watermark_at(f.at))} has not reached its maxTimestamp "
                    f"{time_text(max_timestamp(f.window))}")
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_event_time_window_never_fires_before_watermark_reaches_max_timestamp(data, suite, tally):
    """`EventTimeTrigger` fires a window only once `maxTimestamp <= watermark` (by its timer, or at
    once for an element that arrives after that)."""
    run_and_check(data, suite, tally,
                   "an event-time window never fires before the watermark reaches its maxTimestamp",
                   never_fires_before_watermark_reaches_max_timestamp)


def fires_once_watermark_passes_max_timestamp(case, observation):
    if not has_event_time_trigger(case) or observation.error is not None or case.time != "event":
        return None
    timeline = Timeline(case)
    for arrival in timeline.arrivals:
        for window in assigned_windows(case, arrival) or ():
            if cleanup_time(case, window) <= arrival.watermark:
                continue  # a late window: the element is skipped
            due = timeline.first_position_with_watermark_at_least(max_timestamp(window), arrival.at)
            if due is None:
                continue
            fired = [f for f in firings_of(observation.firings, arrival.record.key, window) if f.at == due]
            where = Positions(len(case.events))(due)
            if not fired:
                return (f"{window!r} of key {arrival.record.key} holds {record_text(arrival.record)} but does not "
                        f"fire {where}, where the watermark becomes {time_text(timeline.watermark_at(due))}, at or "
                        f"past its maxTimestamp {time_text(max_timestamp(window))}")
            if case.evictor is None and not any(arrival.record.value in f.values for f in fired):
                return (f"{window!r} of key {arrival.record.key} fires {where} without "
                        f"{record_text(arrival.record)}, which it holds")
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_window_fires_once_watermark_passes_max_timestamp(data, suite, tally):
    """A tumbling, sliding or cumulative window that received an element fires, with it, at the first position
    where the watermark reaches its `maxTimestamp` (at the element itself if it came late)."""
    run_and_check(data, suite, tally,
                   "a window with contents fires once the watermark passes its maxTimestamp",
                   fires_once_watermark_passes_max_timestamp)


def _purges(case) -> bool:
    """A `PurgingTrigger` anywhere in the trigger's nest (a `ProcessingTimeoutTrigger` passes its
    inner trigger's results on, `FIRE_AND_PURGE` included), or a count window (Flink builds
    `countWindow` purging)."""
    return any(isinstance(t, PurgingTrigger) for t in nested_triggers(case.trigger)) or isinstance(case.window, Count)


def late_firings_contain_everything_the_window_held(case, observation):
    # A processing-time window is never late: once its state is cleared at its cleanup time, a new
    # element re-creates it with less than it held (WindowOperator.clearAllState, then processElement).
    if _purges(case) or case.evictor is not None or case.time == "processing":
        return None
    held: dict = {}
    for f in observation.firings:
        before = held.get((f.key, f.window), Counter())
        now = Counter(f.values)
        if before - now:
            return (f"{firing_text(f, len(case.events))} lacks the values {sorted((before - now).elements())}, "
                    "which an earlier firing of the "
                    "same window held and nothing purged")
        held[(f.key, f.window)] = now
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_late_firings_contain_everything_the_window_held(data, suite, tally):
    """FIRE keeps the contents: without purging or an evictor, each firing of an event-time (or the
    global) window holds everything its earlier firings held (accumulating late firings); after its
    cleanup an event-time window is late, so nothing re-creates it."""
    run_and_check(data, suite, tally,
                   "later firings of a window contain everything it held, unless purged",
                   late_firings_contain_everything_the_window_held)

"""Allowed lateness, cleanup and the late-data side output: every record ends up somewhere."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import property_settings, run_and_check
from conformance.properties.timeline import (
    Timeline,
    assigned_windows,
    cleanup_time,
    has_event_time_trigger,
    is_element_late,
    is_event_time,
)
from window_contract.case import MERGING_ASSIGNERS
from window_contract.difference import firing_text, record_text, time_text
from window_contract.observation import TimeWindow


def nothing_accepted_after_cleanup_time(case, observation):
    if not is_event_time(case):
        return None
    arrivals = Timeline(case).by_value()
    for f in observation.firings:
        if not isinstance(f.window, TimeWindow):
            continue
        cleanup = cleanup_time(case, f.window)
        for value in f.values:
            arrival = arrivals.get(value)
            if arrival is not None and arrival.watermark >= cleanup:
                return (f"{firing_text(f, len(case.events))} holds {record_text(arrival.record)}, which arrived "
                        f"at position {arrival.at} when the watermark {time_text(arrival.watermark)} had reached "
                        f"the cleanup time {time_text(cleanup)}")
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_nothing_accepted_after_cleanup_time(data, suite, tally):
    """Once the watermark reaches `cleanupTime = maxTimestamp + allowedLateness`, the window is late:
    an element that arrives then is not added to it."""
    run_and_check(data, suite, tally, "nothing is accepted into a window after its cleanup time",
                   nothing_accepted_after_cleanup_time)


def _late_records(observation) -> set[tuple]:
    return {(r.at, r.key, r.value, r.ts) for r in observation.late + observation.dropped}


def _records_text(records: set[tuple]) -> str:
    """Late records `(at, key, value, ts)` in the case format's words, by position."""
    if not records:
        return "none"
    return ", ".join(f"{key}={value} @ {time_text(ts)} at position {at}" for at, key, value, ts in sorted(records))


def side_output_exactly_for_late_elements(case, observation):
    if observation.error is not None or isinstance(case.window, MERGING_ASSIGNERS):
        return None  # a merged window decides for sessions: the differential property checks them
    expected = set()
    if is_event_time(case):
        for arrival in Timeline(case).arrivals:
            windows = assigned_windows(case, arrival)
            every_window_late = all(cleanup_time(case, w) <= arrival.watermark for w in windows)
            if every_window_late and is_element_late(case, arrival):
                r = arrival.record
                expected.add((arrival.at, r.key, r.value, r.ts))
    actual = _late_records(observation)
    if actual != expected:
        part = "late (side output)" if case.late_side_output else "dropped"
        return (f"the {part} records should be {_records_text(expected)}, not {_records_text(actual)}: exactly the "
                "records whose every window is late and ts + allowedLateness <= watermark")
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_side_output_exactly_for_elements_whose_every_window_is_late(data, suite, tally):
    """An element goes to the side output (or is dropped) exactly when every window it belongs to was
    late and `ts + allowedLateness <= watermark`; processing-time and global windows are never late."""
    run_and_check(data, suite, tally,
                   "side output exactly for elements whose every window is late",
                   side_output_exactly_for_late_elements)


def every_record_is_accounted_for(case, observation):
    if (not is_event_time(case) or not has_event_time_trigger(case) or case.evictor is not None
            or not case.end_of_input or observation.error is not None):
        return None
    late = {(r.at, r.value) for r in observation.late + observation.dropped}
    for arrival in Timeline(case).arrivals:
        r = arrival.record
        if (arrival.at, r.value) in late or assigned_windows(case, arrival) == []:
            continue
        fired = (f for f in observation.firings if f.key == r.key and f.at >= arrival.at)
        if not any(r.value in f.values for f in fired):
            return (f"{record_text(r)} (position {arrival.at}) is in no firing, not late and not outside every "
                    "window, although the input ends")
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_every_record_is_accounted_for(data, suite, tally):
    """With `EventTimeTrigger` and a bounded input, every record is in some firing, late (side
    output or dropped), or in no window at all (sliding windows shorter than their slide)."""
    run_and_check(data, suite, tally, "every record is accounted for", every_record_is_accounted_for)

"""What every firing and every late record must look like, whatever the trigger."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import property_settings, run_and_check
from conformance.properties.timeline import Timeline, has_event_time_trigger, max_timestamp
from window_contract.case import Count, Global, ProcessingTime, Watermark, case_to_json
from window_contract.difference import firing_text, record_text, time_text
from window_contract.observation import GlobalWindow, TimeWindow


def _words(case, f) -> str:
    """A firing's words (`the firing of [0, 10) for key a at position 3 (values [1])`), put together only for a
    message: a case may fire hundreds of thousands of times, and the rules read every firing."""
    return firing_text(f, len(case.events))


def fired_values_lie_in_their_window(case, observation):
    arrivals = Timeline(case).by_value()
    for f in observation.firings:
        for value in f.values:
            arrival = arrivals.get(value)
            if arrival is None:
                return f"{_words(case, f)} fires value {value}, which never arrived"
            if f.at is not None and arrival.at > f.at:
                return f"{_words(case, f)} fires value {value}, which had not arrived by then"
            if arrival.record.key != f.key:
                return f"{_words(case, f)} fires {record_text(arrival.record)} of another key"
            t = arrival.record.ts if case.time == "event" else arrival.processing_time
            if isinstance(f.window, TimeWindow) and not f.window.start <= t < f.window.end:
                return f"{_words(case, f)} fires value {value} whose time {t} lies outside {f.window!r}"
    return None


@property_settings()
@given(data=st.data())
def test_fired_values_lie_in_their_window(data, suite, tally):
    """A firing holds only records of its key that arrived before it and whose time (the timestamp,
    or the processing time at arrival) lies in `[start, end)`."""
    run_and_check(data, suite, tally, "every fired value lies in [start, end) of its window",
                   fired_values_lie_in_their_window)


def firing_timestamp_is_max_timestamp(case, observation):
    global_windows = isinstance(case.window, Global | Count)
    for f in observation.firings:
        if isinstance(f.window, GlobalWindow) != global_windows:
            return (f"{_words(case, f)} has a {type(f.window).__name__} for a "
                    f"{case_to_json(case)['window']['assigner']} assigner")
        if f.timestamp != max_timestamp(f.window):
            return (f"{_words(case, f)} carries timestamp {time_text(f.timestamp)}, not its maxTimestamp "
                    f"{time_text(max_timestamp(f.window))}")
    return None


@property_settings()
@given(data=st.data())
def test_firing_timestamp_is_max_timestamp(data, suite, tally):
    """The output record's timestamp is `window.maxTimestamp()`: `end - 1`, `Long.MAX_VALUE` for the
    global window."""
    run_and_check(data, suite, tally, "a firing's timestamp is its window's maxTimestamp (end - 1)",
                   firing_timestamp_is_max_timestamp)


def firing_watermark_is_the_current_watermark(case, observation):
    timeline = Timeline(case)
    for f in observation.firings:
        if 0 <= f.at < len(timeline.watermarks) and f.watermark != timeline.watermark_at(f.at):
            return (f"{_words(case, f)} reports the watermark {time_text(f.watermark)}; the current watermark there "
                    f"is {time_text(timeline.watermark_at(f.at))} (non-increasing watermarks are ignored)")
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_firing_watermark_is_the_current_watermark(data, suite, tally):
    """A firing reports the operator's current watermark: the highest watermark so far, set before
    the timers it triggers fire; `Long.MAX_VALUE` at the end of input."""
    run_and_check(data, suite, tally, "a firing reports the current watermark",
                   firing_watermark_is_the_current_watermark)


def outputs_come_in_event_order(case, observation):
    end = len(case.events)
    for part in ("firings", "late", "dropped"):
        ats = [o.at for o in getattr(observation, part)]
        if ats != sorted(ats):
            return f"{part} are not in the order of their positions: {ats}"
        if any(not 0 <= at <= end for at in ats) or (not case.end_of_input and end in ats):
            return f"{part} at a position outside the case (0..{end}, end of input only if bounded): {ats}"
    for r in observation.late + observation.dropped:
        event = case.events[r.at] if r.at < end else None
        if (r.key, r.value, r.ts) != (getattr(event, "key", None), getattr(event, "value", None),
                                      getattr(event, "ts", None)):
            return f"the late {record_text(r)} at position {r.at} is not the record that arrived there"
    if observation.late and not case.late_side_output:
        return "late records went to a side output that was not requested"
    if observation.dropped and case.late_side_output:
        return "late records were dropped although the side output was requested"
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_outputs_come_in_event_order(data, suite, tally):
    """Outputs are ordered by position (so each key's firings are ordered); a late record is reported
    at its own arrival, to the side output if requested and as dropped otherwise."""
    run_and_check(data, suite, tally, "outputs come in the order of the events that caused them",
                   outputs_come_in_event_order)


def timers_fire_in_timestamp_order(case, observation):
    processing = case.time == "processing" and case.trigger is None
    if not (has_event_time_trigger(case) or processing):
        return None
    clock = ProcessingTime if processing else Watermark
    by_at: dict[int, list[int]] = {}
    for f in observation.firings:
        if f.at == len(case.events) or isinstance(case.events[f.at], clock):
            by_at.setdefault(f.at, []).append(f.timestamp)
    for at, stamps in by_at.items():
        if stamps != sorted(stamps):
            return f"the timers fired at position {at} fired out of timestamp order: {stamps}"
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_timers_fire_in_timestamp_order(data, suite, tally):
    """One watermark (or processing-time advance) fires its due timers in timestamp order: with
    `EventTimeTrigger` (`ProcessingTimeTrigger`) the firings within one position come by
    `maxTimestamp`, whatever their keys."""
    run_and_check(data, suite, tally, "firings within one position come in non-decreasing timer order",
                   timers_fire_in_timestamp_order)


def has_evictor(case) -> bool:
    """An explicit evictor, or the `CountEvictor` that `countWindow(size, slide)` brings."""
    return case.evictor is not None or (isinstance(case.window, Count) and case.window.slide is not None)


def no_empty_firing_without_evictor(case, observation):
    if not has_evictor(case):
        for f in observation.firings:
            if not f.values:
                return f"{_words(case, f)} calls the window function with no values and no evictor"
    return None


@property_settings()
@given(data=st.data())
def test_no_empty_firing_without_evictor(data, suite, tally):
    """An empty window never calls the window function; only an evictor can empty a window after
    its firing began."""
    run_and_check(data, suite, tally, "an empty window does not fire (unless an evictor emptied it)",
                   no_empty_firing_without_evictor)


def rejected_specification_has_no_outputs(case, observation):
    if observation.error is not None and observation.error.kind == "invalid_spec":
        if observation.firings or observation.late or observation.dropped:
            return "an invalid_spec observation has outputs"
    return None


@property_settings(share=0.5)
@given(data=st.data())
def test_rejected_specification_has_no_outputs(data, suite, tally):
    """A specification Flink rejects when the job is built produces nothing."""
    run_and_check(data, suite, tally, "a rejected specification has no outputs",
                   rejected_specification_has_no_outputs)

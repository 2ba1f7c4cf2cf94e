"""The property suite's checks hold on what Flink does: each case here once broke a check on the
reference's observation, and real Flink agrees with the reference on it (it is in `cases/`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from conformance.properties.test_event_time import late_firings_contain_everything_the_window_held
from window_contract.case_json import load_cases

CASES = Path(__file__).resolve().parent.parent / "cases"


def test_a_purging_trigger_inside_a_processing_timeout_trigger_purges():
    [case] = [c for c in load_cases(CASES / "processing_timeout" / "processing_timeout.json")
              if c.name.startswith("ProcessingTimeoutTrigger.of(PurgingTrigger")]
    assert late_firings_contain_everything_the_window_held(case, case.expected) is None
    # The same firings without the purge break the rule: the late firing lacks what the window held.
    unpurged = replace(case, trigger=replace(case.trigger, inner=case.trigger.inner.inner))
    assert "lacks the values [1]" in late_firings_contain_everything_the_window_held(unpurged, case.expected)


def test_a_checks_account_is_in_the_case_formats_words():
    """No Python repr (`Firing(at=3, ...)`, `Record(..., channel=0)`), the late output the case has (dropped
    without a side output), and the end of input named as such."""
    from conformance.properties.test_event_time import fires_once_watermark_passes_max_timestamp
    from conformance.properties.test_firings import firing_timestamp_is_max_timestamp
    from conformance.properties.test_lateness import side_output_exactly_for_late_elements
    from window_contract import Case, record, tumbling, watermark
    from window_contract.observation import Firing, Observation, TimeWindow

    case = Case(window=tumbling(10), events=[record("a", 1, ts=5), watermark(9), record("a", 2, ts=3)])
    wrong_timestamp = Observation((Firing(1, "a", TimeWindow(0, 10), 5, (1,), 9),))
    assert firing_timestamp_is_max_timestamp(case, wrong_timestamp) == (
        "the firing of [0, 10) for key a at position 1 (values [1]) carries timestamp 5, not its maxTimestamp 9")
    assert side_output_exactly_for_late_elements(case, wrong_timestamp) == (
        "the dropped records should be a=2 @ 3 at position 2, not none: exactly the records whose every window is "
        "late and ts + allowedLateness <= watermark")
    at_the_end = Case(window=tumbling(10), events=[record("a", 1, ts=0)])
    assert fires_once_watermark_passes_max_timestamp(at_the_end, Observation()) == (
        "[0, 10) of key a holds record a=1 @ 0 but does not fire at the end of input, where the watermark becomes "
        "+inf (Long.MAX_VALUE), at or past its maxTimestamp 9")


def test_a_watermark_arrives_only_past_the_periodic_timers_due_time_and_after_the_firing_its_record_caused():
    from conformance.properties.test_watermark_positions import watermarks_where_flink_makes_them
    from reference.implementation import ReferenceImplementation
    from window_contract import Case, CountTrigger, MonotonousWatermarks, processing_time, record, tumbling
    from window_contract.observation import InputWatermark

    periodic = Case(window=tumbling(10), events=[record("a", 1, ts=5), processing_time(10), processing_time(11)],
                    watermark_generator=MonotonousWatermarks(interval=10))
    observed = ReferenceImplementation().run([periodic])[0]
    assert watermarks_where_flink_makes_them(periodic, observed) is None
    at_due_time = replace(observed, watermarks=(InputWatermark(1, 4), *observed.watermarks[1:]))
    assert watermarks_where_flink_makes_them(periodic, at_due_time) == (
        "the operator received the watermark 4 at position 1, a processing_time event, which makes none there")
    punctuated = Case(window=tumbling(10), trigger=CountTrigger(1), events=[record("a", 1, ts=5)],
                      watermark_generator=MonotonousWatermarks(punctuated=True))
    observed = ReferenceImplementation().run([punctuated])[0]
    assert watermarks_where_flink_makes_them(punctuated, observed) is None
    overtaken = replace(observed, firings=(replace(observed.firings[0], watermark=4),))
    assert "carries the watermark 4, not -9223372036854775808" in watermarks_where_flink_makes_them(punctuated,
                                                                                                    overtaken)


def test_a_purging_trigger_nested_in_another_is_read_through_as_one():
    """`PurgingTrigger.of(PurgingTrigger.of(T))` fires when `T` does, as `PurgingTrigger.of(T)`: the checks of an
    event-time trigger's timer order and of a count trigger's watermarks hold it to that; a
    `ProcessingTimeoutTrigger` also fires on its own timers, and they leave it out."""
    from conformance.properties.test_firings import timers_fire_in_timestamp_order
    from conformance.properties.test_watermark_positions import fires_only_on_arrival
    from conformance.properties.timeline import has_event_time_trigger
    from window_contract import (
        Case,
        CountTrigger,
        EventTimeTrigger,
        ProcessingTimeoutTrigger,
        purging,
        record,
        tumbling,
        watermark,
    )
    from window_contract.observation import Firing, Observation, TimeWindow

    events = [record("a", 1, ts=15), record("b", 2, ts=5), watermark(100)]
    out_of_order = Observation((Firing(2, "a", TimeWindow(10, 20), 19, (1,), 100),
                                Firing(2, "b", TimeWindow(0, 10), 9, (2,), 100)))
    for trigger in (purging(EventTimeTrigger()), purging(purging(EventTimeTrigger()))):
        case = Case(window=tumbling(10), trigger=trigger, events=events, end_of_input=False)
        assert "out of timestamp order" in timers_fire_in_timestamp_order(case, out_of_order), trigger
    timeout = ProcessingTimeoutTrigger(EventTimeTrigger(), 5)
    assert not has_event_time_trigger(Case(window=tumbling(10), trigger=purging(timeout), events=events))
    assert fires_only_on_arrival(Case(window=tumbling(10), trigger=purging(purging(CountTrigger(2))), events=events))
    assert not fires_only_on_arrival(Case(window=tumbling(10), trigger=ProcessingTimeoutTrigger(CountTrigger(2), 5),
                                          events=events))

"""The strategies build valid cases, fit the features they are given, and reach the edges."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from conformance.properties.situations import (
    BRIDGE,
    CLEANUP,
    DROPPED,
    EVICTION,
    EXACT_CLEANUP,
    IGNORED_WATERMARK,
    LATE_FIRING,
    MERGE,
    PARTLY_LATE,
    PURGE,
    RESCUE,
    SIDE_OUTPUT,
    situations,
)
from strategies import case_batches, cases, extreme_cases, out_of_order_streams, window_specs
from strategies.bursts import MAX_BURST, SHORT_JUMP, burst_cases, can_burst
from strategies.specs import window_count_limit
from strategies.streams import window_edges
from strategies.wrapped import wrapped_session_cases
from window_contract.case import (
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountTrigger,
    Cumulative,
    Global,
    ProcessingTime,
    ProcessingTimeoutTrigger,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TimeEvictor,
    Tumbling,
    Watermark,
    case_to_json,
    innermost_trigger,
)
from window_contract.case_json import case_from_json
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.features import ALL_FEATURES, EXTREME, required_features

SMALL = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))

#: An implementation with few features: tumbling and sliding windows with the default trigger.
FEW = frozenset({"assigner.tumbling", "assigner.sliding"})


def _round_trip(case: Case) -> Case:
    return case_from_json(json.loads(json.dumps(case_to_json(case))))


@SMALL
@given(cases())
def test_cases_round_trip_through_the_json_format(case):
    assert _round_trip(case) == case


@SMALL
@given(extreme_cases())
def test_extreme_cases_round_trip_through_the_json_format(case):
    assert _round_trip(case) == case


@SMALL
@given(cases())
def test_processing_time_never_goes_back(case):
    times = [e.time for e in case.events if not isinstance(e, Record | Watermark)]
    assert times == sorted(times) and all(t >= 0 for t in times)


@SMALL
@given(cases(FEW))
def test_restricted_cases_fit_the_features(case):
    assert required_features(case) <= FEW


@SMALL
@given(st.sets(st.sampled_from(sorted(ALL_FEATURES)), min_size=1).map(
    lambda fs: frozenset(fs) | {"assigner.session"}).flatmap(lambda fs: st.tuples(st.just(fs), cases(fs))))
def test_cases_fit_any_feature_set(features_and_case):
    features, case = features_and_case
    assert required_features(case) <= features


@SMALL
@given(case_batches(FEW, max_size=4))
def test_batches_fit_the_features(batch):
    assert 1 <= len(batch) <= 4
    assert all(required_features(c) <= FEW for c in batch)


@SMALL
@given(cases(ALL_FEATURES - {"extreme_values"}))
def test_plain_cases_stay_away_from_the_ends_of_the_long_range(case):
    assert "extreme_values" not in required_features(case)


@SMALL
@given(extreme_cases())
def test_extreme_cases_reach_the_ends_of_the_long_range(case):
    assert "extreme_values" in required_features(case)


def _draw_one(strategy) -> None:
    given(strategy)(lambda _: None)()


def test_extreme_cases_are_opt_in():
    with pytest.raises(InvalidArgument, match="extreme_values"):
        _draw_one(extreme_cases(ALL_FEATURES - {"extreme_values"}))


def test_features_must_name_an_assigner_and_be_known():
    with pytest.raises(InvalidArgument, match="assigner"):
        _draw_one(cases({"offset"}))
    with pytest.raises(InvalidArgument, match="unknown feature"):
        _draw_one(cases({"assigner.tumbling", "no-such-feature"}))


def _collect(strategy, n=300):
    found = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x):
        found.append(x)

    collect()
    return found


def test_window_specs_cover_the_format():
    specs = _collect(window_specs(), 500)
    kinds = Counter(type(s.window).__name__ for s in specs)
    assert set(kinds) == {"Tumbling", "Sliding", "Cumulative", "Session", "Global", "Count", "DynamicSession"}
    triggers = Counter(type(s.trigger).__name__ for s in specs)
    assert {"NoneType", "EventTimeTrigger", "CountTrigger", "PurgingTrigger", "ContinuousEventTimeTrigger",
            "ProcessingTimeTrigger", "NeverTrigger", "ProcessingTimeoutTrigger",
            "AfterEndOfWindowTrigger"} <= set(triggers)
    assert {type(s.evictor).__name__ for s in specs} >= {"NoneType", "CountEvictor", "TimeEvictor"}
    lateness = {s.allowed_lateness for s in specs}
    assert 0 in lateness and LONG_MAX in lateness and any(0 < x < LONG_MAX for x in lateness)
    assert {s.late_side_output for s in specs} == {False, True}
    sliding = [s.window for s in specs if isinstance(s.window, Sliding)]
    assert any(w.size < w.slide for w in sliding) and any(w.size == w.slide for w in sliding)
    assert any(w.size % w.slide for w in sliding if w.size > w.slide)
    offsets = [s.window.offset for s in specs if isinstance(s.window, Tumbling | Sliding)]
    assert any(o < 0 for o in offsets) and any(o > 0 for o in offsets)
    assert any(isinstance(s.window, Tumbling) and abs(s.window.offset) == s.window.size - 1 > 0 for s in specs)


def test_some_specifications_are_invalid():
    from reference.implementation import simulate

    errors = Counter(getattr(simulate(s).error, "kind", None) for s in _collect(window_specs(), 300))
    assert 0 < errors["invalid_spec"] < 60


def test_streams_hit_window_edges():
    spec = Case(window=Tumbling(10, 3))
    streams = _collect(out_of_order_streams(spec), 200)
    timestamps = [e.ts for events in streams for e in events if isinstance(e, Record)]
    watermarks = [e.timestamp for events in streams for e in events if isinstance(e, Watermark)]
    assert any((t - 3) % 10 == 0 for t in timestamps), "a record at a window's start"
    assert any((t - 3) % 10 == 9 for t in timestamps), "a record at a window's end - 1"
    assert any((w - 3) % 10 == 9 for w in watermarks), "a watermark at a window's maxTimestamp"
    assert any(t < 0 for t in timestamps), "negative timestamps"
    orders = [[e.ts for e in events if isinstance(e, Record)] for events in streams]
    assert any(ts != sorted(ts) for ts in orders), "out-of-order records"
    assert any(len({e.key for e in events if isinstance(e, Record)}) > 1 for events in streams), "several keys"


def test_watermarks_at_max_timestamp_plus_lateness():
    spec = Case(window=Tumbling(10), allowed_lateness=4)
    watermarks = {e.timestamp % 10 for events in _collect(out_of_order_streams(spec), 300)
                  for e in events if isinstance(e, Watermark)}
    assert {9, 3, 2, 4} <= watermarks, "maxTimestamp, maxTimestamp + lateness and one either side"


def test_without_negative_timestamps_no_time_is_negative():
    features = ALL_FEATURES - {"negative_timestamps"}
    for case in _collect(cases(features), 200):
        assert "negative_timestamps" not in required_features(case)


def test_extreme_cases_include_the_no_timestamp_marker_and_times_near_long_max():
    found = _collect(extreme_cases(), 200)
    stamps = [e.ts for c in found for e in c.records]
    assert LONG_MIN in stamps
    assert any(t > LONG_MAX - 1000 for t in stamps)
    assert any(abs(getattr(c.window, "size", 0)) >= EXTREME for c in found)


def test_records_at_a_time_evictors_cutoff():
    spec = Case(window=Tumbling(10), evictor=TimeEvictor(4))
    found = 0
    for events in _collect(out_of_order_streams(spec), 200):
        stamps = [e.ts for e in events if isinstance(e, Record)]
        found += any(b == a - 4 for i, a in enumerate(stamps) for b in stamps[i + 1:])
    assert found, "a record exactly at max(ts) - size, after the record that sets max(ts)"


def test_session_edges_merge_and_just_fail_to_merge():
    assert window_edges(Case(window=Session(5)), 10) == [10, 14, 15, 16, 5, 4]


def test_cumulative_edges_are_the_steps_end_and_the_periods_first_and_last_step():
    # step 10, size 30, offset 3: t = 17 lies in the step [13, 23) of the period [3, 33)
    assert window_edges(Case(window=Cumulative(10, 30, 3)), 17) == [13, 22, 23, 32, 33, 12, 3]


def test_cumulative_windows_drawn_are_valid_and_reach_every_shape_and_offset():
    windows = [s.window for s in _collect(window_specs(frozenset({"assigner.cumulative", "offset"})), 300)
               if isinstance(s.window, Cumulative)]
    valid = [w for w in windows if w.step > 0 and w.size > 0 and w.size % w.step == 0]
    assert len(valid) > len(windows) * 3 // 4, "mostly valid; the rest Flink SQL rejects"
    assert any(w.size == w.step for w in valid) and any(w.size // w.step > 5 for w in valid)
    assert any(0 < abs(w.offset) < w.size for w in valid) and any(abs(w.offset) >= w.size for w in valid)
    assert any(w.offset < 0 for w in valid)
    assert {w.step <= 0 or w.size <= 0 for w in windows if w not in valid} == {True, False}


def test_cumulative_streams_put_records_at_each_steps_end_minus_one_and_in_the_last_step():
    spec = Case(window=Cumulative(10, 30))
    timestamps = [e.ts for events in _collect(out_of_order_streams(spec), 200) for e in events if isinstance(e, Record)]
    assert any(t % 30 == 9 for t in timestamps), "the first step's end - 1"
    assert any(t % 30 == 19 for t in timestamps), "a middle step's end - 1"
    assert any(t % 30 == 29 for t in timestamps), "the last step's end - 1: the period's maxTimestamp"


def test_cumulative_cases_reach_a_record_late_for_some_of_its_windows_only():
    found = Counter()
    for case in _collect(cases(frozenset({"assigner.cumulative"})), 200):
        found.update(situations(case).keys())
    assert found[PARTLY_LATE] > 0 and found[DROPPED] > 0


def test_situations_are_reported_and_the_rare_ones_occur():
    found = Counter()
    for case in _collect(cases(), 400):
        found.update(situations(case).keys())
    for situation in (LATE_FIRING, SIDE_OUTPUT, DROPPED, PARTLY_LATE, MERGE, BRIDGE, RESCUE, CLEANUP,
                      EXACT_CLEANUP, EVICTION, PURGE, IGNORED_WATERMARK):
        assert found[situation] > 0, situation


def test_situations_name_a_merge_that_rescues_a_late_element():
    from window_contract import record, session, watermark

    case = Case(window=session(5), events=[record("a", 1, 8), watermark(10), record("a", 2, 4)])
    assert {MERGE, RESCUE} <= set(situations(case))


def test_a_failing_case_shrinks_to_a_few_events():
    from hypothesis import find

    def fails(case: Case) -> bool:  # a stand-in bug: any late record
        from reference.implementation import simulate

        return bool(simulate(case).dropped)

    minimal = find(cases(FEW), fails, settings=settings(max_examples=2000, database=None, derandomize=True))
    assert len(minimal.events) <= 3, minimal


def test_every_kind_in_the_vocabulary_has_a_strategy():
    from strategies.specs import ASSIGNER_PARAMETERS, EVICTOR_PARAMETERS, TRIGGER_PARAMETERS
    from window_contract.case import ASSIGNERS, EVICTORS, TRIGGERS

    assert set(ASSIGNERS) == set(ASSIGNER_PARAMETERS)
    assert set(TRIGGERS) == set(TRIGGER_PARAMETERS)
    assert set(EVICTORS) == set(EVICTOR_PARAMETERS)


def test_every_family_is_reached_without_extreme_values():
    from strategies.families import FAMILIES, families

    found = Counter()
    for case in _collect(cases(ALL_FEATURES - {"extreme_values"}, report=False), 800):
        found.update(families(case))
        assert "extreme_values" not in required_features(case), case
    assert set(found) == set(FAMILIES), set(FAMILIES) - set(found)
    # Rare families stay rare: none in more than a quarter of the cases.
    assert max(found.values()) < 800 // 4, found.most_common(3)


def test_a_continuous_event_time_trigger_on_the_global_window_never_ends_its_input():
    from strategies.families import continuous_on_global

    found = [c for c in _collect(cases(report=False), 800) if continuous_on_global(c)]
    assert found and not any(c.end_of_input for c in found)
    # count windows are global windows (Flink's countWindow): their continuous triggers are held to it too
    assert any(isinstance(c.window, Count) for c in found) and any(isinstance(c.window, Global) for c in found)
    assert not any(isinstance(e, Watermark) and e.timestamp == LONG_MAX for c in found for e in c.events)


def test_a_family_reads_a_trigger_through_every_wrapper():
    """A family is named from the trigger's own values: a count, an interval or a continuous trigger on the global
    window counts as much inside a `ProcessingTimeoutTrigger` as inside a `PurgingTrigger` (Flink divides by the
    interval, and chains the continuous trigger's timers, in both)."""
    from strategies.families import continuous_on_global, large_counts, zero_interval

    for wrap in (PurgingTrigger, lambda t: ProcessingTimeoutTrigger(t, 10)):
        assert continuous_on_global(Case(window=Global(), trigger=wrap(ContinuousEventTimeTrigger(5))))
        assert zero_interval(Case(window=Global(), trigger=wrap(wrap(ContinuousEventTimeTrigger(0)))))
        assert large_counts(Case(window=Global(), trigger=wrap(CountTrigger(5))))


def test_without_unbounded_input_no_continuous_event_time_trigger_on_the_global_window():
    from strategies.families import continuous_on_global

    features = ALL_FEATURES - {"unbounded_input"}
    assert not any(continuous_on_global(c) for c in _collect(cases(features, report=False), 300))


@SMALL
@given(st.data())
def test_any_step_can_go(data):
    """A stream without any one of its steps still plays: each step is read against the running
    state, never against a position in the list, so the shrinker may delete any of them."""
    from strategies.streams import Stream, normal_frame, shapes, steps

    spec = data.draw(window_specs(FEW))
    shape = data.draw(shapes(spec, max_steps=8))
    played = data.draw(st.lists(steps(shape), min_size=1, max_size=8))
    frame = normal_frame(shape.unit, negative=False)
    for gone in range(len(played)):
        stream = Stream(spec, shape, frame, origin=0)
        for step in played[:gone] + played[gone + 1:]:
            step.play(stream)
        case = Case(window=spec.window, events=stream.events)
        assert _round_trip(case) == case
        assert required_features(case) <= FEW


@settings(max_examples=100, deadline=None, database=None, derandomize=True)
@given(wrapped_session_cases(ALL_FEATURES))
def test_a_wrapped_session_keeps_apart_two_that_overlap_until_it_is_cleaned_up(case):
    events, lateness = case.events, case.allowed_lateness
    windows = sorted((r.ts, r.ts + r.value) for r in events[:3])  # ends beyond Long.MAX_VALUE not wrapped yet
    [(a_start, a_end), (b_start, b_end), (c_start, c_end)] = windows
    assert a_end <= LONG_MAX and c_end <= LONG_MAX < b_end  # only the middle one wraps
    assert a_end - 1 + lateness <= LONG_MAX and c_end - 1 + lateness <= LONG_MAX  # their merge is not late
    assert a_end >= c_start  # A and C overlap across B
    assert events[2].ts != b_start  # B comes before A or C: they never merge before it is gone
    cleanup = b_end - 2**64 - 1 + lateness  # B's wrapped maxTimestamp + lateness
    assert isinstance(events[3], Watermark) and events[3].timestamp >= cleanup > LONG_MIN
    times = [e.time for e in events if isinstance(e, ProcessingTime)]
    assert times == sorted(times)


@settings(max_examples=50, deadline=None, database=None, derandomize=True)
@given(wrapped_session_cases(ALL_FEATURES - {"time.processing", "trigger.purging", "allowed_lateness"}))
def test_the_wrapped_family_draws_only_what_the_features_allow(case):
    assert required_features(case) <= ALL_FEATURES - {"time.processing", "trigger.purging", "allowed_lateness"}


def test_the_wrapped_family_merges_both_ways_under_triggers_with_timers():
    family: list[Case] = []

    @settings(max_examples=100, deadline=None, database=None, derandomize=True)
    @given(wrapped_session_cases(ALL_FEATURES))
    def draw(case):
        family.append(case)

    draw()

    def ends(case: Case) -> tuple[int, int]:
        """A's end and C's (B, between them, wraps)."""
        [(_, a_end), _, (_, c_end)] = sorted((r.ts, r.ts + r.value) for r in case.records[:3])
        return a_end, c_end

    def merge(case: Case) -> str:
        a_end, c_end = ends(case)
        return "A contains C" if a_end >= c_end else "a fresh cover"

    def clock_at_the_merged_end(case: Case) -> bool:
        before = case.events[:case.events.index(case.records[3])]
        return any(isinstance(e, ProcessingTime) and e.time == max(ends(case)) - 1 for e in before)

    assert set(map(merge, family)) == {"A contains C", "a fresh cover"}
    assert {type(c.trigger).__name__ for c in family} >= {
        "NoneType", "ProcessingTimeTrigger", "CountTrigger", "PurgingTrigger"}
    assert any(map(clock_at_the_merged_end, family))


def test_the_window_count_limit_is_drawn_on_both_sides_in_java_long_division():
    """`window_count_limit` reaches the exact multiple, and the band above ten million slides that is no
    multiple on both sides of `size / slide > 10,000,000` (Java's division truncates)."""
    limits = [window_count_limit(slide) for slide in range(1, 11)]
    assert {(w.size // w.slide, w.size % w.slide == 0) for w in limits} == {
        (10_000_001, True), (10_000_000, False), (10_000_001, False)}
    assert (window_count_limit(2).size, window_count_limit(2).slide) == (20_000_001, 2)


# --- bursts of periodic timers (strategies.bursts, issue 48) ----------------------------------------------------


def _largest_jump(case) -> int:
    """The largest move of the case's watermark or clock, in intervals of its continuous trigger (0 for none)."""
    trigger = innermost_trigger(case.trigger)
    if not isinstance(trigger, ContinuousEventTimeTrigger | ContinuousProcessingTimeTrigger) or trigger.interval <= 0:
        return 0
    times = [getattr(e, "timestamp", getattr(e, "time", None)) for e in case.events
             if isinstance(e, Watermark | ProcessingTime) and getattr(e, "timestamp", 0) != LONG_MAX]
    return max((b - a for a, b in zip([0, *times], times, strict=False)), default=0) // trigger.interval


def test_bursts_are_continuous_triggers_whose_clock_jumps_past_the_old_limit_without_ending_event_time():
    found = _collect(burst_cases(), 300)
    kinds = Counter((type(c.trigger).__name__, type(c.window).__name__) for c in found)
    assert {"PurgingTrigger", "ContinuousEventTimeTrigger", "ContinuousProcessingTimeTrigger"} <= {k for k, _ in kinds}
    assert {"Global", "Tumbling", "Session"} <= {w for _, w in kinds}
    purging = [c for c in found if isinstance(c.trigger, PurgingTrigger)]
    # bursts past 100,000 timers in one step, the contract's old limit, and none past what the Flink runner fires
    assert any(_largest_jump(c) > 100_000 for c in purging)
    assert all(_largest_jump(c) <= MAX_BURST for c in found)
    # a trigger that keeps its contents fires them at every timer: short jumps only
    assert all(_largest_jump(c) <= SHORT_JUMP for c in found if c not in purging)
    # no end of input in event time: the chain would run to the window's end (Long.MAX_VALUE for the global window)
    assert not any(c.end_of_input for c in found if any(isinstance(e, Watermark) for e in c.events))


def test_bursts_fit_the_features_and_need_a_continuous_trigger():
    only_event_time = ALL_FEATURES - {"time.processing"}
    assert all(required_features(c) <= only_event_time for c in _collect(burst_cases(only_event_time), 100))
    assert not can_burst(ALL_FEATURES - {"trigger.continuous_event_time", "trigger.continuous_processing_time"})


def test_the_differential_batches_hold_bursts_now_and_then():
    batches = _collect(case_batches(bursts=True, report=False), 100)
    bursts = [c for b in batches for c in b if _largest_jump(c) > 1000]
    assert bursts and len(bursts) < sum(map(len, batches)) // 4

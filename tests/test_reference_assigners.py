"""`reference.assigners`: window assignment, preconditions and Flink's messages.

Scenarios from Flink's `TumblingEventTimeWindowsTest`, `SlidingEventTimeWindowsTest` and
`EventTimeSessionWindowsTest` (flink-streaming-java, ...runtime.operators.windowing), the sliding
demo of seed document 001, and the preconditions as `javap` shows them in flink-dist 2.3.0.
"""

import re

import pytest

from reference.assigners import (
    NO_TIMESTAMP_MESSAGE,
    RECENT_WINDOWS_LIMIT,
    GlobalWindows,
    SessionWindows,
    SlidingWindows,
    TumblingWindows,
)
from reference.errors import InvalidSpec, JobFailure
from reference.javalong import LONG_MAX, LONG_MIN
from reference.triggers import EventTimeTrigger, NeverTrigger, ProcessingTimeTrigger
from reference.windows import GLOBAL_WINDOW, TimeWindow, get_window_start_with_offset_flink_1_12
from window_contract.facts import TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT

CTX = 0  # the current processing time, all `WindowAssignerContext` offers


def windows(assigner, ts, ctx=CTX):
    return sorted(assigner.assign_windows(ts, ctx), key=lambda w: w.start)


def tw(*bounds):
    return [TimeWindow(s, e) for s, e in bounds]


# --- tumbling -------------------------------------------------------------------------------


@pytest.mark.parametrize("size, offset, ts, window", [
    # TumblingEventTimeWindowsTest.testWindowAssignment
    (5000, 0, 0, (0, 5000)), (5000, 0, 4999, (0, 5000)), (5000, 0, 5000, (5000, 10000)),
    # testWindowAssignmentWithGlobalOffset
    (5000, 100, 100, (100, 5100)), (5000, 100, 5099, (100, 5100)), (5000, 100, 5100, (5100, 10100)),
    # testWindowAssignmentWithNegativeGlobalOffset
    (5000, -100, 0, (-100, 4900)), (5000, -100, 4899, (-100, 4900)), (5000, -100, 4900, (4900, 9900)),
    # testTimeUnits
    (5000, 1000, 1000, (1000, 6000)), (5000, 1000, 5999, (1000, 6000)), (5000, 1000, 6000, (6000, 11000)),
    # negative timestamps: floor alignment (FLINK-26334)
    (5000, 0, -1, (-5000, 0)), (5000, 0, -5000, (-5000, 0)), (5000, 0, -5001, (-10000, -5000)),
])
def test_tumbling_event_time_assignment(size, offset, ts, window):
    assert windows(TumblingWindows(size, offset, True), ts) == tw(window)


def test_tumbling_windows_near_long_max_may_end_past_it():
    """The last window's `end` wraps around; its `maxTimestamp` wraps back to Long.MAX_VALUE."""
    [w] = windows(TumblingWindows(1000, 0, True), LONG_MAX)
    assert w.start == LONG_MAX - 807 and w.end == LONG_MIN + 192


@pytest.mark.parametrize("size, offset", [
    (-1000, 0),  # TumblingEventTimeWindowsTest.testInvalidParameters: of(Time.seconds(-1))
    (10_000, 20_000),  # of(10 s, 20 s)
    (10_000, -11_000),  # of(10 s, -11 s)
    (0, 0), (5, 5), (5, -5),
    (5, LONG_MIN + 1),
])
def test_tumbling_rejects_abs_offset_not_below_size(size, offset):
    with pytest.raises(InvalidSpec) as e:
        TumblingWindows(size, offset, True)
    assert str(e.value) == "TumblingEventTimeWindows parameters must satisfy abs(offset) < size"


def test_tumbling_accepts_offset_long_min_value_because_math_abs_overflows():
    """`Math.abs(Long.MIN_VALUE) < size` holds; the window start then uses `offset % size`."""
    assigner = TumblingWindows(1000, LONG_MIN, True)  # no exception
    # Long.MIN_VALUE % 1000 = -808: windows are aligned to -808 (mod 1000)
    assert windows(assigner, 0) == tw((-808, 192))


def test_tumbling_processing_time_message_and_clock():
    with pytest.raises(InvalidSpec, match=r"^TumblingProcessingTimeWindows parameters must satisfy "
                                          r"abs\(offset\) < size$"):
        TumblingWindows(10, 10, False)
    assigner = TumblingWindows(3000, 0, False)
    # WindowOperatorTest.testProcessingTimeTumblingWindows: the record's timestamp is ignored
    assert windows(assigner, LONG_MAX, 3) == tw((0, 3000))
    assert windows(assigner, LONG_MIN, 5000) == tw((3000, 6000))


@pytest.mark.parametrize("assigner", [TumblingWindows(10, 0, True), SlidingWindows(10, 5, 0, True)])
def test_long_min_timestamp_is_the_no_timestamp_marker(assigner):
    with pytest.raises(JobFailure) as e:
        assigner.assign_windows(LONG_MIN, CTX)
    assert str(e.value) == NO_TIMESTAMP_MESSAGE
    assert assigner.assign_windows(LONG_MIN + 1, CTX)  # one above is a real timestamp


def test_old_window_start_formula_is_pluggable():
    """The variant of Flink <= 1.12 (seed document 003): ts = -7 lands in [-5, 0)."""
    assigner = TumblingWindows(5, 0, True, get_window_start_with_offset_flink_1_12)
    assert windows(assigner, -7) == tw((-5, 0))
    assert windows(TumblingWindows(5, 0, True), -7) == tw((-10, -5))


# --- sliding --------------------------------------------------------------------------------


@pytest.mark.parametrize("size, slide, offset, ts, starts", [
    # SlidingEventTimeWindowsTest.testWindowAssignment
    (5000, 1000, 0, 0, [-4000, -3000, -2000, -1000, 0]),
    (5000, 1000, 0, 4999, [0, 1000, 2000, 3000, 4000]),
    (5000, 1000, 0, 5000, [1000, 2000, 3000, 4000, 5000]),
    # testWindowAssignmentWithOffset
    (5000, 1000, 100, 100, [-3900, -2900, -1900, -900, 100]),
    (5000, 1000, 100, 5099, [100, 1100, 2100, 3100, 4100]),
    (5000, 1000, 100, 5100, [1100, 2100, 3100, 4100, 5100]),
    # testWindowAssignmentWithNegativeOffset
    (5000, 1000, -100, 0, [-4100, -3100, -2100, -1100, -100]),
    (5000, 1000, -100, 4899, [-100, 900, 1900, 2900, 3900]),
    (5000, 1000, -100, 4900, [900, 1900, 2900, 3900, 4900]),
    # testTimeUnits
    (5000, 1000, 500, 100, [-4500, -3500, -2500, -1500, -500]),
    (5000, 1000, 500, 5499, [500, 1500, 2500, 3500, 4500]),
    (5000, 1000, 500, 5100, [500, 1500, 2500, 3500, 4500]),
])
def test_sliding_event_time_assignment(size, slide, offset, ts, starts):
    assert windows(SlidingWindows(size, slide, offset, True), ts) == [TimeWindow(s, s + size) for s in starts]


def test_sliding_demo_of_seed_001():
    """Seed 001: `SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(5))` puts every
    element in size / slide = 2 windows, the last one starting at the slide-aligned start."""
    assigner = SlidingWindows(10_000, 5_000, 0, True)
    assert windows(assigner, 12_000) == tw((5_000, 15_000), (10_000, 20_000))
    assert windows(assigner, 5_000) == tw((0, 10_000), (5_000, 15_000))
    assert windows(assigner, 4_999) == tw((-5_000, 5_000), (0, 10_000))


def test_sliding_size_not_a_multiple_of_slide():
    """`for (start = lastStart; start > ts - size; start -= slide)`: 7 / 3 gives 2 or 3 windows."""
    assigner = SlidingWindows(7, 3, 0, True)
    assert windows(assigner, 6) == tw((0, 7), (3, 10), (6, 13))
    assert windows(assigner, 7) == tw((3, 10), (6, 13))


def test_sliding_with_size_below_slide_leaves_gaps():
    assigner = SlidingWindows(2, 5, 0, True)
    assert windows(assigner, 0) == tw((0, 2))
    assert windows(assigner, 1) == tw((0, 2))
    assert windows(assigner, 2) == []
    assert windows(assigner, 4) == []
    assert windows(assigner, -2) == []
    assert windows(assigner, -4) == tw((-5, -3))


@pytest.mark.parametrize("size, slide, offset", [
    # SlidingEventTimeWindowsTest.testInvalidParameters
    (-2000, 1000, 0), (2000, -1000, 0), (-20_000, 10_000, -1000), (20_000, 10_000, -11_000),
    (20_000, 10_000, 11_000),
    (0, 10, 0), (10, 0, 0), (10, 5, 5),
])
def test_sliding_rejects_offset_or_size(size, slide, offset):
    with pytest.raises(InvalidSpec) as e:
        SlidingWindows(size, slide, offset, True)
    assert str(e.value) == "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0"


def test_sliding_event_time_limits_windows_per_element():
    SlidingWindows(10_000_000, 1, 0, True)  # exactly the limit
    with pytest.raises(InvalidSpec) as e:
        SlidingWindows(10_000_001, 1, 0, True)
    assert str(e.value) == "SlidingEventTimeWindows parameters must satisfy size / slide <= 10000000"


def test_sliding_processing_time_has_only_the_first_precondition():
    SlidingWindows(10_000_001, 1, 0, False)  # SlidingProcessingTimeWindows has no window limit
    with pytest.raises(InvalidSpec, match=r"^SlidingProcessingTimeWindows parameters must satisfy "
                                          r"abs\(offset\) < slide and size > 0$"):
        SlidingWindows(0, 1, 0, False)


def test_sliding_processing_time_uses_the_clock():
    """WindowOperatorTest.testProcessingTimeSlidingWindows: size 3 s, slide 1 s, clock at 3."""
    assigner = SlidingWindows(3000, 1000, 0, False)
    assert windows(assigner, LONG_MAX, 3) == tw((-2000, 1000), (-1000, 2000), (0, 3000))


def test_sliding_negative_int_capacity_throws_illegal_capacity():
    """`new ArrayList<>((int) (size / slide))` with offset Long.MIN_VALUE (its Math.abs is negative,
    so a negative slide passes the precondition) and size / slide = -5."""
    assigner = SlidingWindows(10, -2, LONG_MIN, True)
    with pytest.raises(JobFailure, match=r"^Illegal Capacity: -5$"):
        assigner.assign_windows(0, CTX)


def _java_sliding(size, slide, offset, ts, limit=10):
    """Flink 2.3.0's loop, transcribed from `javap -c SlidingEventTimeWindows.assignWindows`, with
    every `long` operation wrapped; stops after `limit` windows."""
    from reference.javalong import ladd, lsub
    from reference.windows import get_window_start_with_offset
    start, lower, out = get_window_start_with_offset(ts, offset, slide), lsub(ts, size), []
    while start > lower and len(out) < limit:
        out.append(TimeWindow(start, ladd(start, size)))
        start = lsub(start, slide)
    return sorted(out, key=lambda w: w.start)


def test_sliding_loop_that_wraps_around_once_and_ends():
    """`start -= slide` wraps past Long.MIN_VALUE to the top of the range; Java's loop goes on from
    there and ends when the start drops to `ts - size` again: three windows, one of them ending
    past Long.MAX_VALUE."""
    slide = 3 * 2**61
    size, ts = slide + 1, -(2**61) + 1
    expected = _java_sliding(size, slide, 0, ts)
    assert len(expected) == 3
    assert windows(SlidingWindows(size, slide, 0, True), ts) == expected


def test_sliding_loop_that_wraps_around_and_ends_after_thousands_of_windows():
    """slide = 2^62 + 2^50: each pass through the range lands 2^52 lower, and the loop ends after
    2,047 windows, as real Flink 2.3 does (it was once cut off at 1,000 as if it never ended)."""
    slide, ts = 2**62 + 2**50, LONG_MIN + 2**61
    expected = _java_sliding(1, slide, 0, ts, limit=WINDOWS_PER_ELEMENT_LIMIT + 1)
    assert len(expected) == 2047
    assert sorted(windows(SlidingWindows(1, slide, 0, True), ts), key=lambda w: w.start) == expected


@pytest.mark.parametrize("size, slide, offset, ts", [
    # slide = 2^62, offset 1, ts - size = Long.MIN_VALUE: the starts cycle through four values, forever
    (2**62 + 2**61, 2**62, 1, LONG_MIN + 2**62 + 2**61),
    # slide = 2^62 + 2^40: the loop ends, after 2,097,151 windows
    (1, 2**62 + 2**40, 0, LONG_MIN + 2**61),
])
def test_sliding_loop_that_wraps_past_the_limit_stops_the_case(size, slide, offset, ts):
    assert len(_java_sliding(size, slide, offset, ts, limit=WINDOWS_PER_ELEMENT_LIMIT + 1)) > WINDOWS_PER_ELEMENT_LIMIT
    with pytest.raises(JobFailure, match=re.escape(TOO_MANY_WINDOWS)):
        SlidingWindows(size, slide, offset, True).assign_windows(ts, CTX)


@pytest.mark.parametrize("size, slide", [(WINDOWS_PER_ELEMENT_LIMIT, 1), (WINDOWS_PER_ELEMENT_LIMIT * 2 - 1, 2)])
def test_sliding_assignment_at_the_windows_per_element_limit_yields_them_all(size, slide):
    """`ceil(size / slide)` windows an element, up to the contract's limit, are all assigned."""
    assert len(windows(SlidingWindows(size, slide, 0, True), 0)) == WINDOWS_PER_ELEMENT_LIMIT


@pytest.mark.parametrize("size, slide", [(WINDOWS_PER_ELEMENT_LIMIT + 1, 1), (10_000_000, 1)])
def test_sliding_assignment_past_the_limit_stops_the_case_without_wrapping(size, slide):
    """The limit holds for every sliding assignment, not only one that wraps: Flink accepts up to
    `MAX_WINDOW_NUM` windows an element, the contract stops the case past `WINDOWS_PER_ELEMENT_LIMIT`."""
    assigner = SlidingWindows(size, slide, 0, True)  # within Flink's own precondition
    with pytest.raises(JobFailure, match=re.escape(TOO_MANY_WINDOWS)):
        assigner.assign_windows(0, CTX)


# --- windows reused across elements -----------------------------------------------------------


def _timestamps_back_and_forth(step, count):
    """Timestamps that move forward, jump back over many windows and forward again."""
    forward = [i * step for i in range(count)]
    return forward + forward[::-3] + [-t for t in forward] + forward[::7]


@pytest.mark.parametrize("window_start", [None, get_window_start_with_offset_flink_1_12])
def test_a_tumbling_assigner_that_reuses_its_last_window_assigns_as_a_fresh_one(window_start):
    """The assigner builds a window only when the start changes; whatever the order of the
    timestamps, it assigns what an assigner that never saw an element before assigns."""
    args = (1000, 300, True) + ((window_start,) if window_start else ())
    assigner = TumblingWindows(*args)
    for ts in _timestamps_back_and_forth(337, 40):
        assert assigner.assign_windows(ts, CTX) == TumblingWindows(*args).assign_windows(ts, CTX)


@pytest.mark.parametrize("size, slide, offset", [(1000, 100, 0), (1000, 300, 50), (250, 1000, -10)])
def test_a_sliding_assigner_that_keeps_recent_windows_assigns_as_a_fresh_one(size, slide, offset):
    """Windows kept from earlier elements are the windows the loop would build; the store stays
    bounded even when the elements cover far more windows than it holds."""
    assigner = SlidingWindows(size, slide, offset, True)
    timestamps = _timestamps_back_and_forth(slide // 3 + 1, 3 * RECENT_WINDOWS_LIMIT)
    for ts in timestamps:
        assert assigner.assign_windows(ts, CTX) == SlidingWindows(size, slide, offset, True).assign_windows(ts, CTX)
        assert len(assigner.windows) <= RECENT_WINDOWS_LIMIT
    distinct_starts = {w.start for ts in timestamps for w in assigner.assign_windows(ts, CTX)}
    assert len(distinct_starts) > RECENT_WINDOWS_LIMIT  # the store was emptied on the way


# --- sessions and global --------------------------------------------------------------------


@pytest.mark.parametrize("ts", [0, 4999, 5000, -7])
def test_session_window_is_ts_plus_gap(ts):
    """EventTimeSessionWindowsTest.testWindowAssignment / testTimeUnits."""
    assert windows(SessionWindows(5000, True), ts) == tw((ts, ts + 5000))


def test_session_window_end_wraps_and_min_timestamp_is_not_checked():
    assert windows(SessionWindows(10, True), LONG_MAX) == tw((LONG_MAX, LONG_MIN + 9))
    assert windows(SessionWindows(10, True), LONG_MIN) == tw((LONG_MIN, LONG_MIN + 10))


@pytest.mark.parametrize("gap", [-1000, 0])
def test_session_rejects_non_positive_gap(gap):
    """EventTimeSessionWindowsTest.testInvalidParameters."""
    with pytest.raises(InvalidSpec, match=r"^EventTimeSessionWindows parameters must satisfy 0 < size$"):
        SessionWindows(gap, True)
    with pytest.raises(InvalidSpec, match=r"^ProcessingTimeSessionWindows parameters must satisfy 0 < size$"):
        SessionWindows(gap, False)


def test_processing_time_session_uses_the_clock():
    assert windows(SessionWindows(3000, False), 1, 1000) == tw((1000, 4000))


def test_properties_and_default_triggers():
    """`testProperties` of each assigner test: event time, default trigger, merging."""
    for assigner in (TumblingWindows(5, 0, True), SlidingWindows(5, 1, 0, True), SessionWindows(5, True)):
        assert assigner.is_event_time
        assert isinstance(assigner.default_trigger(), EventTimeTrigger)
    for assigner in (TumblingWindows(5, 0, False), SlidingWindows(5, 1, 0, False), SessionWindows(5, False)):
        assert not assigner.is_event_time
        assert isinstance(assigner.default_trigger(), ProcessingTimeTrigger)
    assert SessionWindows(5, True).is_merging and not TumblingWindows(5, 0, True).is_merging
    g = GlobalWindows()
    assert not g.is_event_time and not g.is_merging
    assert isinstance(g.default_trigger(), NeverTrigger)
    assert g.assign_windows(LONG_MIN, CTX) == [GLOBAL_WINDOW]


@pytest.mark.parametrize(("assigner", "expression"), [
    (TumblingWindows(1000, 0, True), "TumblingEventTimeWindows.of(1000, offset=0)"),
    (TumblingWindows(60, -7, False), "TumblingProcessingTimeWindows.of(60, offset=-7)"),
    (SlidingWindows(1000, 100, 5, True), "SlidingEventTimeWindows.of(1000, 100, offset=5)"),
    (SlidingWindows(10, 5, 0, False), "SlidingProcessingTimeWindows.of(10, 5, offset=0)"),
    (SessionWindows(150, True), "EventTimeSessionWindows.withGap(150)"),
    (SessionWindows(3, False), "ProcessingTimeSessionWindows.withGap(3)"),
    (GlobalWindows(), "GlobalWindows.create()"),
])
def test_an_assigner_reads_as_the_expression_that_builds_it_in_flink(assigner, expression):
    assert repr(assigner) == expression

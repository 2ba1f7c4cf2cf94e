"""`reference.operator` through the driver: Flink's `WindowOperatorTest` scenarios and the worked
examples of the seed documents, each as a `Case` run by `reference.implementation.simulate`.

Flink's tests sum the values with a reduce function; here the window function sees the values
themselves, so "key2, 3" in a Flink test reads `values (1, 1, 1)` below. Flink's tests never send
the final `Watermark(Long.MAX_VALUE)`; the cases that follow them say `end_of_input=False`.
"""

from __future__ import annotations

from conformance import (
    LONG_MAX,
    LONG_MIN,
    Case,
    ContinuousEventTimeTrigger,
    CountEvictor,
    CountTrigger,
    EventTimeTrigger,
    TimeEvictor,
    count_window,
    global_window,
    processing_time,
    purging,
    record,
    session,
    sliding,
    tumbling,
    watermark,
)
from conformance.observation import Error, GlobalWindow
from reference.implementation import simulate

G = "global"


def fired(case: Case) -> list[tuple]:
    """`(at, key, (start, end) or "global", values)` for each firing, in a fixed order."""
    obs = simulate(case)
    assert obs.error is None, obs.error
    return sorted(
        (f.at, f.key, G if isinstance(f.window, GlobalWindow) else (f.window.start, f.window.end), f.values)
        for f in obs.firings
    )


def late(case: Case) -> list[tuple]:
    return sorted((r.at, r.key, r.value, r.ts) for r in simulate(case).late)


def dropped(case: Case) -> list[tuple]:
    return sorted((r.at, r.key, r.value, r.ts) for r in simulate(case).dropped)


def ones(n):
    return (1,) * n


# --- the seed documents -------------------------------------------------------------------------


def test_seed_004_w4_w9_example():
    """Seed 004: windows of 4 time units whose timers are Timer(4), Timer(8), Timer(12), i.e.
    `[1, 5)`, `[5, 9)`, `[9, 13)` (offset 1). Events 2, 3, 1, 3, 7; W(4) fires T1-T4 (2+3+1+3);
    then 5, 9, 6; W(9) fires T5-T8 (7+5+6); Timer(12) waits ("以此类推") for the end of input."""
    events = [record("k", v, v) for v in (2, 3, 1, 3, 7)] + [watermark(4)]
    events += [record("k", v, v) for v in (5, 9, 6)] + [watermark(9)]
    case = Case(window=tumbling(4, offset=1), trigger=EventTimeTrigger(), events=events)
    assert fired(case) == [
        (5, "k", (1, 5), (1, 2, 3, 3)),
        (9, "k", (5, 9), (5, 6, 7)),
        (10, "k", (9, 13), (9,)),
    ]
    [first, *_] = simulate(case).firings
    assert first.timestamp == 4 and first.watermark == 4  # Timer(4) == maxTimestamp == W(4)


def test_seed_003_sensor_example():
    """Seed 003, `Flink02_Window_WaterMark_Lateness`: 5 s tumbling windows, a
    `BoundedOutOfOrdernessTimestampExtractor` with a 2 s bound (watermark = max timestamp - 2 s,
    emitted after each record here), `allowedLateness(2 s)` and a side output. The readings
    sensor_1,1610506280..290 (×1000 ms) with temperatures 10..100, plus two stragglers: 283 s
    while the watermark is 285 s (within the lateness: the window fires again at once) and 284 s
    after the cleanup of `[280 s, 285 s)` at 286.999 s (to the side output)."""
    base = 1610506280_000
    readings = [(0, 10), (1, 20), (2, 30), (3, 40), (4, 50), (5, 60), (6, 70), (7, 80), (8, 90), (10, 100)]
    events, high = [], None
    for sec, temp in readings:
        ts = base + sec * 1000
        events.append(record("sensor_1", temp, ts))
        high = ts if high is None else max(high, ts)
        events.append(watermark(high - 2000))
        if sec == 7:  # watermark 285 s: [280, 285) has fired, its cleanup (286.999 s) is pending
            events.append(record("sensor_1", 45, base + 3000))
        if sec == 10:  # watermark 288 s: [280, 285) is gone
            events.append(record("sensor_1", 55, base + 4000))
    case = Case(window=tumbling(5000), allowed_lateness=2000, late_side_output=True, events=events)
    assert [e for e in events if hasattr(e, "timestamp")][7].timestamp == base + 5000
    assert fired(case) == [
        (15, "sensor_1", (base, base + 5000), (10, 20, 30, 40, 50)),  # watermark 285 s
        (16, "sensor_1", (base, base + 5000), (10, 20, 30, 40, 45, 50)),  # the straggler refires it
        (len(events), "sensor_1", (base + 5000, base + 10000), (60, 70, 80, 90)),
        (len(events), "sensor_1", (base + 10000, base + 15000), (100,)),
    ]
    assert late(case) == [(len(events) - 1, "sensor_1", 55, base + 4000)]
    # the window before the readings (275 s..280 s) never had an element: no firing for it


def test_seed_001_sliding_demo():
    """Seed 001: `SlidingEventTimeWindows.of(10 s, 5 s)`, counting words per key: every element is in
    two windows, and each window fires when the watermark passes its end."""
    events = [
        record("a", 1, 1000),
        record("a", 1, 6000),
        record("b", 1, 7000),
        watermark(4999),
        record("a", 1, 12000),
        watermark(9999),
        watermark(14999),
    ]
    case = Case(window=sliding(10_000, 5_000), events=events)
    assert fired(case) == [
        (3, "a", (-5000, 5000), (1,)),
        (5, "a", (0, 10000), (1, 1)),
        (5, "b", (0, 10000), (1,)),
        (6, "a", (5000, 15000), (1, 1)),
        (6, "b", (5000, 15000), (1,)),
        (7, "a", (10000, 20000), (1,)),
    ]


# --- WindowOperatorTest: tumbling and sliding ---------------------------------------------------

FLINK_INPUT = [
    record("key2", 1, 3999),
    record("key2", 1, 3000),
    record("key1", 1, 20),
    record("key1", 1, 0),
    record("key1", 1, 999),
    record("key2", 1, 1998),
    record("key2", 1, 1999),
    record("key2", 1, 1000),
]


def test_sliding_event_time_windows():
    """WindowOperatorTest.testSlidingEventTimeWindows (size 3 s, slide 1 s)."""
    marks = [999, 1999, 2999, 3999, 4999, 5999, 6999, 7999]
    case = Case(
        window=sliding(3000, 1000), events=FLINK_INPUT + [watermark(t) for t in marks], end_of_input=False
    )
    at = {t: 8 + i for i, t in enumerate(marks)}
    assert fired(case) == sorted(
        [
            (at[999], "key1", (-2000, 1000), ones(3)),
            (at[1999], "key1", (-1000, 2000), ones(3)),
            (at[1999], "key2", (-1000, 2000), ones(3)),
            (at[2999], "key1", (0, 3000), ones(3)),
            (at[2999], "key2", (0, 3000), ones(3)),
            (at[3999], "key2", (1000, 4000), ones(5)),
            (at[4999], "key2", (2000, 5000), ones(2)),
            (at[5999], "key2", (3000, 6000), ones(2)),
        ]
    )


def test_tumbling_event_time_windows():
    """WindowOperatorTest.testTumblingEventTimeWindows (size 3 s)."""
    marks = [999, 1999, 2999, 3999, 4999, 5999, 6999, 7999]
    case = Case(window=tumbling(3000), events=FLINK_INPUT + [watermark(t) for t in marks], end_of_input=False)
    assert fired(case) == [
        (10, "key1", (0, 3000), ones(3)),
        (10, "key2", (0, 3000), ones(3)),
        (13, "key2", (3000, 6000), ones(2)),
    ]


# --- WindowOperatorTest: sessions --------------------------------------------------------------

SESSION_INPUT = [
    record("key2", 1, 0),
    record("key2", 2, 1000),
    record("key2", 3, 2500),
    record("key1", 1, 10),
    record("key1", 2, 1000),
    record("key1", 3, 2500),
    record("key2", 4, 5501),
    record("key2", 5, 6000),
    record("key2", 5, 6000),
    record("key2", 6, 6050),
]


def test_session_windows():
    """WindowOperatorTest.testSessionWindows (gap 3 s): "key1-6" [10, 5500), "key2-6" [0, 5500),
    "key2-20" [5501, 9050) at watermark 12000; "key2-30" [15000, 18000) at 17999."""
    events = SESSION_INPUT + [
        watermark(12000),
        record("key2", 10, 15000),
        record("key2", 20, 15000),
        watermark(17999),
    ]
    case = Case(window=session(3000), events=events, end_of_input=False)
    assert fired(case) == [
        (10, "key1", (10, 5500), (1, 2, 3)),
        (10, "key2", (0, 5500), (1, 2, 3)),
        (10, "key2", (5501, 9050), (4, 5, 5, 6)),
        (13, "key2", (15000, 18000), (10, 20)),
    ]
    assert {f.timestamp for f in simulate(case).firings} == {5499, 9049, 17999}


def test_session_windows_with_count_trigger():
    """WindowOperatorTest.testSessionWindowsWithCountTrigger: PurgingTrigger(CountTrigger(4)); the
    late element 4500 merges two key1 sessions of three elements each, so the count is 7 and the
    merged session [10, 10000) fires ("key1-22")."""
    events = [
        record("key2", 1, 0),
        record("key2", 2, 1000),
        record("key2", 3, 2500),
        record("key2", 4, 3500),
        record("key1", 1, 10),
        record("key1", 2, 1000),
        record("key1", 3, 2500),
        record("key1", 1, 6000),
        record("key1", 2, 6500),
        record("key1", 3, 7000),
        record("key1", 10, 4500),
    ]
    case = Case(window=session(3000), trigger=purging(CountTrigger(4)), events=events, end_of_input=False)
    assert fired(case) == [
        (3, "key2", (0, 6500), (1, 2, 3, 4)),
        (10, "key1", (10, 10000), (1, 1, 2, 2, 3, 3, 10)),
    ]


def test_session_windows_with_continuous_event_time_trigger():
    """WindowOperatorTest.testSessionWindowsWithContinuousEventTimeTrigger (interval 2 s)."""
    events = [
        record("key1", 1, 1500),
        record("key2", 1, 0),
        record("key2", 3, 2500),
        record("key2", 2, 1000),
        watermark(2500),
        record("key2", 5, 4000),
        watermark(3000),
        record("key1", 2, 4000),
        record("key2", 4, 3500),
        watermark(4000),
    ]
    case = Case(
        window=session(3000), trigger=ContinuousEventTimeTrigger(2000), events=events, end_of_input=False
    )
    assert fired(case) == [
        (4, "key1", (1500, 4500), (1,)),
        (4, "key2", (0, 5500), (1, 2, 3)),
        (9, "key1", (1500, 7000), (1, 2)),
        (9, "key2", (0, 7000), (1, 2, 3, 4, 5)),
    ]


def test_processing_time_session_windows():
    """WindowOperatorTest.testProcessingTimeSessionWindows (gap 3 s)."""
    events = [
        processing_time(3),
        record("key2", 1, 1),
        processing_time(1000),
        record("key2", 1, 1002),
        processing_time(5000),
        record("key2", 1, 5000),
        record("key2", 1, 5000),
        record("key1", 1, 5000),
        record("key1", 1, 5000),
        record("key1", 1, 5000),
        processing_time(10000),
    ]
    case = Case(window=session(3000, time="processing"), events=events)
    assert fired(case) == [
        (4, "key2", (3, 4000), ones(2)),
        (10, "key1", (5000, 8000), ones(3)),
        (10, "key2", (5000, 8000), ones(2)),
    ]


# --- WindowOperatorTest: global windows, count and continuous triggers ----------------------------


def test_continuous_watermark_trigger_on_global_window():
    """WindowOperatorTest.testContinuousWatermarkTrigger (interval 3 s). Without end of input: a
    final Watermark(Long.MAX_VALUE) would make the trigger fire every 3 s up to Long.MAX_VALUE."""
    events = [
        record("key1", 1, 0),
        record("key2", 1, 3000),
        record("key2", 1, 3999),
        record("key1", 1, 20),
        record("key1", 1, 999),
        record("key2", 1, 1998),
        record("key2", 1, 1999),
        record("key2", 1, 1000),
    ]
    events += [watermark(t) for t in (1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000)]
    case = Case(
        window=global_window(), trigger=ContinuousEventTimeTrigger(3000), events=events, end_of_input=False
    )
    assert fired(case) == [(10, "key1", G, ones(3)), (13, "key1", G, ones(3)), (13, "key2", G, ones(5))]
    assert {f.timestamp for f in simulate(case).firings} == {LONG_MAX}


def test_count_trigger():
    """WindowOperatorTest.testCountTrigger: GlobalWindows + PurgingTrigger(CountTrigger(4)), which
    is `countWindow(4)`."""
    events = [
        record("key2", 1, 3000),
        record("key2", 1, 3999),
        record("key1", 1, 20),
        record("key1", 1, 0),
        record("key1", 1, 999),
        record("key2", 1, 1998),
        record("key2", 1, 1999),
        record("key2", 1, 1000),
        record("key1", 1, 10999),
        record("key2", 1, 1000),
        record("key2", 1, 1000),
        record("key2", 1, 1000),
    ]
    expected = [(6, "key2", G, ones(4)), (8, "key1", G, ones(4)), (11, "key2", G, ones(4))]
    assert fired(Case(window=count_window(4), events=events)) == expected
    assert fired(Case(window=global_window(), trigger=purging(CountTrigger(4)), events=events)) == expected


def test_sliding_count_window_keeps_the_last_size_elements():
    """`countWindow(3, 2)` = CountTrigger(2) + CountEvictor(3): fires every second element with the
    three most recent ones, and never purges."""
    events = [record("k", v, 0) for v in range(1, 7)]
    assert fired(Case(window=count_window(3, 2), events=events)) == [
        (1, "k", G, (1, 2)),
        (3, "k", G, (2, 3, 4)),
        (5, "k", G, (4, 5, 6)),
    ]


# --- WindowOperatorTest: processing time ----------------------------------------------------------


def test_processing_time_tumbling_windows():
    """WindowOperatorTest.testProcessingTimeTumblingWindows (size 3 s)."""
    events = [
        processing_time(3),
        record("key2", 1, LONG_MAX),
        record("key2", 1, 7000),
        record("key2", 1, 7000),
        record("key1", 1, 7000),
        record("key1", 1, 7000),
        processing_time(5000),
        record("key1", 1, 7000),
        record("key1", 1, 7000),
        record("key1", 1, 7000),
        processing_time(7000),
    ]
    case = Case(window=tumbling(3000, time="processing"), events=events)
    assert fired(case) == [
        (6, "key1", (0, 3000), ones(2)),
        (6, "key2", (0, 3000), ones(3)),
        (10, "key1", (3000, 6000), ones(3)),
    ]


def test_processing_time_sliding_windows():
    """WindowOperatorTest.testProcessingTimeSlidingWindows (size 3 s, slide 1 s)."""
    events = [
        processing_time(3),
        record("key2", 1, LONG_MAX),
        processing_time(1000),
        record("key2", 1, LONG_MAX),
        record("key2", 1, LONG_MAX),
        processing_time(2000),
        record("key1", 1, LONG_MAX),
        record("key1", 1, LONG_MAX),
        processing_time(3000),
        record("key1", 1, LONG_MAX),
        record("key1", 1, LONG_MAX),
        record("key1", 1, LONG_MAX),
        processing_time(7000),
    ]
    case = Case(window=sliding(3000, 1000, time="processing"), events=events)
    assert fired(case) == [
        (2, "key2", (-2000, 1000), ones(1)),
        (5, "key2", (-1000, 2000), ones(3)),
        (8, "key1", (0, 3000), ones(2)),
        (8, "key2", (0, 3000), ones(3)),
        (12, "key1", (1000, 4000), ones(5)),
        (12, "key1", (2000, 5000), ones(5)),
        (12, "key1", (3000, 6000), ones(3)),
        (12, "key2", (1000, 4000), ones(2)),
    ]


def test_pending_processing_time_timers_do_not_fire_at_end_of_input():
    events = [record("k", 1, 0)]
    assert fired(Case(window=tumbling(10, time="processing"), events=events)) == []


# --- WindowOperatorTest: lateness, side output and cleanup ----------------------------------------


def test_lateness_with_purging_trigger():
    """WindowOperatorTest.testLateness: size 2 s, lateness 500, PurgingTrigger(EventTimeTrigger).
    1997 arrives within the lateness and fires alone ("1 and not 3" because of the purge); 1998
    comes after the cleanup and goes to the side output."""
    events = [
        record("key2", 1, 500),
        watermark(1500),
        record("key2", 1, 1300),
        watermark(2300),
        record("key2", 1, 1997),
        watermark(6000),
        record("key2", 1, 1998),
        watermark(7000),
    ]
    case = Case(
        window=tumbling(2000),
        trigger=purging(EventTimeTrigger()),
        allowed_lateness=500,
        late_side_output=True,
        events=events,
        end_of_input=False,
    )
    assert fired(case) == [(3, "key2", (0, 2000), ones(2)), (4, "key2", (0, 2000), ones(1))]
    assert late(case) == [(6, "key2", 1, 1998)]


def test_cleanup_time_overflow():
    """WindowOperatorTest.testCleanupTimeOverflow: maxTimestamp + lateness overflows, so there is no
    cleanup timer that would wrap around and fire at Watermark(Long.MAX_VALUE - 1500)."""
    ts = LONG_MAX - 1750
    max_ts = LONG_MAX - 808  # window [LONG_MAX - 1807, LONG_MAX - 807)
    events = [record("key2", 1, ts), watermark(LONG_MAX - 1500), watermark(max_ts)]
    case = Case(window=tumbling(1000), allowed_lateness=2000, events=events)
    assert fired(case) == [(2, "key2", (max_ts - 999, max_ts + 1), ones(1))]


def test_side_output_due_to_lateness_tumbling():
    """WindowOperatorTest.testSideOutputDueToLatenessTumbling (size 2 s, no lateness)."""
    events = [
        record("key2", 1, 1000),
        watermark(1985),
        record("key2", 1, 1980),
        watermark(1999),
        record("key2", 1, 1998),
        record("key2", 1, 2001),
        watermark(2999),
        watermark(3999),
    ]
    case = Case(window=tumbling(2000), late_side_output=True, events=events, end_of_input=False)
    assert fired(case) == [(3, "key2", (0, 2000), ones(2)), (7, "key2", (2000, 4000), ones(1))]
    assert late(case) == [(4, "key2", 1, 1998)]
    assert simulate(case).firings[0].timestamp == 1999


def test_side_output_due_to_lateness_sliding():
    """WindowOperatorTest.testSideOutputDueToLatenessSliding: 2400 at watermark 3000 is late for
    [0, 3000) only; it still counts in [1000, 4000) and [2000, 5000) and is not a late record."""
    events = [
        record("key2", 1, 1000),
        watermark(1999),
        record("key2", 1, 2000),
        watermark(3000),
        record("key1", 1, 3001),
        record("key2", 1, 2400),
        record("key2", 1, 2400),
        record("key1", 1, 3001),
        record("key2", 1, 3900),
        watermark(6000),
        record("key1", 1, 3001),
        watermark(25000),
    ]
    case = Case(window=sliding(3000, 1000), late_side_output=True, events=events, end_of_input=False)
    assert fired(case) == sorted(
        [
            (1, "key2", (-1000, 2000), ones(1)),
            (3, "key2", (0, 3000), ones(2)),
            (9, "key2", (1000, 4000), ones(5)),
            (9, "key1", (1000, 4000), ones(2)),
            (9, "key2", (2000, 5000), ones(4)),
            (9, "key1", (2000, 5000), ones(2)),
            (9, "key2", (3000, 6000), ones(1)),
            (9, "key1", (3000, 6000), ones(2)),
        ]
    )
    assert late(case) == [(10, "key1", 1, 3001)]


SESSION_LATENESS_INPUT = [
    record("key2", 1, 1000),
    watermark(1999),
    record("key2", 1, 2000),
    watermark(4998),
    record("key2", 1, 4500),
    record("key2", 1, 8500),
    watermark(7400),
    record("key2", 1, 7000),
    watermark(11501),
    record("key2", 1, 11600),
    watermark(14600),
]
FIRST_FIRINGS = [(8, "key2", (1000, 11500), ones(5)), (10, "key2", (11600, 14600), ones(1))]
LATE_AND_ON_TIME = (10000, 14500)


def session_lateness_case(timestamps, trigger=None, allowed_lateness=0) -> Case:
    """The session-lateness scenario of `WindowOperatorTest` (gap 3 s, a side output), then
    `timestamps` for key2, `Watermark(20000)` and `Watermark(100000)`."""
    tail = [record("key2", 1, ts) for ts in timestamps] + [watermark(20000), watermark(100000)]
    return Case(
        window=session(3000),
        trigger=trigger,
        allowed_lateness=allowed_lateness,
        late_side_output=True,
        events=SESSION_LATENESS_INPUT + tail,
        end_of_input=False,
    )


def test_side_output_due_to_lateness_session_zero_lateness_purging_trigger():
    """WindowOperatorTest.testSideOutputDueToLatenessSessionZeroLatenessPurgingTrigger: 10000 and
    10100 are both late, and not merged with each other."""
    case = session_lateness_case((10000, 10100, 14500), trigger=purging(EventTimeTrigger()))
    assert fired(case) == FIRST_FIRINGS + [(14, "key2", (14500, 17500), ones(1))]
    assert late(case) == [(11, "key2", 1, 10000), (12, "key2", 1, 10100)]


def test_side_output_due_to_lateness_session_zero_lateness():
    """WindowOperatorTest.testSideOutputDueToLatenessSessionZeroLateness."""
    case = session_lateness_case(LATE_AND_ON_TIME)
    assert fired(case) == FIRST_FIRINGS + [(13, "key2", (14500, 17500), ones(1))]
    assert late(case) == [(11, "key2", 1, 10000)]


def test_drop_due_to_lateness_session_with_lateness_purging_trigger():
    """WindowOperatorTest.testDropDueToLatenessSessionWithLatenessPurgingTrigger (lateness 10): the
    late element merges into [11600, 14600), which is not yet cleaned up, and fires at once."""
    case = session_lateness_case(LATE_AND_ON_TIME, trigger=purging(EventTimeTrigger()), allowed_lateness=10)
    assert fired(case) == FIRST_FIRINGS + [
        (11, "key2", (10000, 14600), ones(1)),
        (13, "key2", (10000, 17500), ones(1)),
    ]
    assert late(case) == []


def test_not_side_output_due_to_lateness_session_with_lateness():
    """WindowOperatorTest.testNotSideOutputDueToLatenessSessionWithLateness: the accumulating
    trigger fires the merged session [10000, 14600) with both elements ("key2-2")."""
    case = session_lateness_case(LATE_AND_ON_TIME, allowed_lateness=10)
    assert fired(case) == FIRST_FIRINGS + [
        (11, "key2", (10000, 14600), ones(2)),
        (13, "key2", (10000, 17500), ones(3)),
    ]
    assert late(case) == []


def test_not_side_output_session_with_huge_lateness_purging_trigger():
    """WindowOperatorTest.testNotSideOutputDueToLatenessSessionWithHugeLatenessPurgingTrigger
    (lateness 10000): 10000 bridges both earlier sessions, whose contents were purged."""
    case = session_lateness_case(LATE_AND_ON_TIME, trigger=purging(EventTimeTrigger()), allowed_lateness=10000)
    assert fired(case) == FIRST_FIRINGS + [
        (11, "key2", (1000, 14600), ones(1)),
        (13, "key2", (1000, 17500), ones(1)),
    ]
    assert late(case) == []


def test_not_side_output_session_with_huge_lateness():
    """WindowOperatorTest.testNotSideOutputDueToLatenessSessionWithHugeLateness: "key2-7", "key2-8"."""
    case = session_lateness_case(LATE_AND_ON_TIME, allowed_lateness=10000)
    assert fired(case) == FIRST_FIRINGS + [
        (11, "key2", (1000, 14600), ones(7)),
        (13, "key2", (1000, 17500), ones(8)),
    ]
    assert late(case) == []


def test_cleanup_timer_with_empty_state_for_tumbling_and_session_windows():
    """WindowOperatorTest.testCleanupTimerWithEmptyListStateForTumblingWindows /
    ...ForSessionWindows: the cleanup timer after a firing emits nothing."""
    events = [record("key2", 1, 1000), watermark(1599), watermark(1999), watermark(2000), watermark(5000)]
    assert fired(Case(window=tumbling(2000), allowed_lateness=1, events=events)) == [
        (2, "key2", (0, 2000), ones(1))
    ]
    events = [record("key2", 1, 1000), watermark(4998), watermark(14600)]
    assert fired(Case(window=session(3000), allowed_lateness=10, events=events)) == [
        (1, "key2", (1000, 4000), ones(1))
    ]


def test_dropped_without_side_output():
    events = [watermark(5000), record("k", 1, 10)]
    case = Case(window=tumbling(100), events=events)
    assert fired(case) == [] and late(case) == []
    assert dropped(case) == [(1, "k", 1, 10)]


def test_lateness_cleanup_fires_late_elements_until_cleanup():
    """With lateness, the window keeps its contents after the firing: each element within the
    lateness fires it again with everything, until the cleanup timer clears it."""
    events = [
        record("k", 1, 0),
        watermark(9),
        record("k", 2, 5),
        watermark(13),
        record("k", 3, 6),
        watermark(14),
        record("k", 4, 7),
    ]
    case = Case(window=tumbling(10), allowed_lateness=5, late_side_output=True, events=events)
    assert fired(case) == [(1, "k", (0, 10), (1,)), (2, "k", (0, 10), (1, 2)), (4, "k", (0, 10), (1, 2, 3))]
    assert late(case) == [(6, "k", 4, 7)]


# --- timers, watermarks, end of input -----------------------------------------------------------


def test_timers_registered_while_firing_fire_in_the_same_watermark():
    """ContinuousEventTimeTrigger registers its next timer while firing; one watermark jump fires
    the whole chain 2, 4, 6, 8 and then maxTimestamp 9."""
    case = Case(
        window=tumbling(10), trigger=ContinuousEventTimeTrigger(2), events=[record("k", 1, 1), watermark(100)]
    )
    assert fired(case) == [(1, "k", (0, 10), (1,))] * 5


def test_non_increasing_watermarks_are_ignored():
    events = [record("k", 1, 5), watermark(3), watermark(3), watermark(2), record("k", 2, 2), watermark(9)]
    obs = simulate(Case(window=tumbling(10), events=events))
    assert [(f.at, f.values, f.watermark) for f in obs.firings] == [(5, (1, 2), 9)]


def test_end_of_input_fires_what_is_left_and_none_leaves_it():
    events = [record("k", 1, 5)]
    assert fired(Case(window=tumbling(10), events=events)) == [(1, "k", (0, 10), (1,))]
    assert simulate(Case(window=tumbling(10), events=events)).firings[0].watermark == LONG_MAX
    assert fired(Case(window=tumbling(10), events=events, end_of_input=False)) == []


def test_end_of_input_after_a_max_watermark_adds_nothing():
    events = [record("k", 1, 5), watermark(LONG_MAX)]
    assert fired(Case(window=tumbling(10), events=events)) == [(1, "k", (0, 10), (1,))]


# --- evictors --------------------------------------------------------------------------------------


def test_evictor_that_empties_the_window_still_calls_the_function():
    """EvictingWindowOperator calls the function with what `evictBefore` left, even nothing."""
    events = [record("k", 1, 0), record("k", 2, 5)]
    case = Case(window=tumbling(10), evictor=TimeEvictor(0), events=events)
    assert fired(case) == [(2, "k", (0, 10), ())]


def test_evictor_after_the_function_changes_the_next_firing():
    events = [record("k", v, v) for v in (1, 2, 3)] + [watermark(9), record("k", 4, 4)]
    before = Case(window=tumbling(10), evictor=CountEvictor(2), allowed_lateness=100, events=events)
    after = Case(
        window=tumbling(10), evictor=CountEvictor(2, after=True), allowed_lateness=100, events=events
    )
    # the end of input fires only the cleanup timer (109), on which EventTimeTrigger continues
    assert fired(before) == [(3, "k", (0, 10), (2, 3)), (4, "k", (0, 10), (3, 4))]
    assert fired(after) == [(3, "k", (0, 10), (1, 2, 3)), (4, "k", (0, 10), (2, 3, 4))]


# --- errors ----------------------------------------------------------------------------------------


def test_long_min_timestamp_fails_the_job_and_keeps_what_came_before():
    events = [record("k", 1, 0), watermark(10), record("k", 2, LONG_MIN), record("k", 3, 20)]
    obs = simulate(Case(window=tumbling(10), events=events))
    assert [(f.at, f.values) for f in obs.firings] == [(1, (1,))]
    assert obs.error == Error(
        "runtime",
        "Record has Long.MIN_VALUE timestamp (= no timestamp marker). "
        "Did you forget to call 'DataStream.assignTimestampsAndWatermarks(...)'?",
    )


def test_merge_into_a_late_window_with_huge_lateness_fails():
    """`mergeResult.maxTimestamp() + allowedLateness <= currentWatermark` wraps around with lateness
    Long.MAX_VALUE: 14 + MAX = MIN + 13 <= 0, so merging [0, 10) and [5, 15) throws."""
    events = [record("k", 1, 0), watermark(0), record("k", 2, 5)]
    obs = simulate(Case(window=session(10), allowed_lateness=LONG_MAX, events=events))
    assert obs.firings == () and obs.error == Error(
        "runtime",
        "The end timestamp of an event-time window cannot become earlier than the current watermark "
        "by merging. Current watermark: 0 window: TimeWindow{start=0, end=15}",
    )


def test_invalid_spec_has_no_outputs():
    obs = simulate(Case(window=tumbling(10, offset=10), events=[record("k", 1, 0)]))
    assert obs.error == Error(
        "invalid_spec", "TumblingEventTimeWindows parameters must satisfy abs(offset) < size"
    )
    assert obs.firings == obs.late == obs.dropped == ()


def test_continuous_trigger_interval_zero_is_a_runtime_error():
    obs = simulate(
        Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(0), events=[record("k", 1, 1)])
    )
    assert obs.error == Error("runtime", "/ by zero")

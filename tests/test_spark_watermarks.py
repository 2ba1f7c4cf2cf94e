"""The Spark implementation makes and merges watermarks as Flink does (issue 13), on hand cases.

Every expected observation is worked out by hand from Flink 2.3's classes (`spark_impl.watermarks`
states the rules): the generators, `WatermarksWithIdleness`, `TimestampsAndWatermarksOperator`'s
periodic timer and emitter, and `StatusWatermarkValve`. The cases run as one Spark batch; the fold's
own units run without Spark.
"""

from __future__ import annotations

import pytest

from spark_impl.implementation import SparkImplementation
from spark_impl.watermarks import IdlenessTimer, StatusWatermarkValve, operator_stream
from window_contract import LONG_MAX, LONG_MIN, Case, Firing, Observation, TimeWindow, difference
from window_contract.case import (
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    EndOfChannel,
    MonotonousWatermarks,
    WatermarkStatus,
    processing_time,
    record,
    session,
    tumbling,
    watermark,
)
from window_contract.facts import NEGATIVE_BOUND_MESSAGE, NEGATIVE_INTERVAL_MESSAGE, NON_POSITIVE_IDLENESS_MESSAGE
from window_contract.observation import Error, InputWatermark

W = TimeWindow
NO_TS = ("Record has Long.MIN_VALUE timestamp (= no timestamp marker). Did you forget to call "
         "'DataStream.assignTimestampsAndWatermarks(...)'?")


def fire(at, key, window, values, wm):
    return Firing(at, key, window, window.end - 1, tuple(values), wm)


def rejected(message):
    """What Flink rejects: no outputs, and no watermark ever reached the operator."""
    return Observation(error=Error("invalid_spec", message), watermarks=())


def marks(*pairs):
    return [InputWatermark(at, wm) for at, wm in pairs]


CASES: list[tuple[str, Case, Observation]] = [
    # A timer fires once the clock has passed it. Channel 0 fires its timer (due 100) first at 101:
    # 5 - 2 - 1 = 2 with channel 1 still at Long.MIN_VALUE; channel 1 emits 15 - 3 = 12, the minimum
    # is 2. 150 passes nothing (due 201); at 250 (now due 350 for both) channel 0 emits 27: minimum
    # 12; channel 1's 12 again is dropped by its emitter.
    ("bounded out-of-orderness on two channels: the valve passes the minimum",
     Case(window=tumbling(10), channels=2, watermark_generator=BoundedOutOfOrdernessWatermarks(2, interval=100),
          events=[record("a", 1, 5), record("a", 2, 15, channel=1), processing_time(101),
                  record("a", 3, 30), processing_time(150), processing_time(250)]),
     Observation(firings=[fire(5, "a", W(0, 10), [1], 12), fire(6, "a", W(10, 20), [2], LONG_MAX),
                          fire(6, "a", W(30, 40), [3], LONG_MAX)],
                 watermarks=marks((2, 2), (5, 12), (6, LONG_MAX)))),
    # Each advance passes the timer (due 100 after the last emit). IdlenessTimer: at 101 both had
    # records (reset); at 202 channel 1 had none: the countdown starts at 202; at 303 101 ms have
    # passed, not more than 150; at 404 202 > 150: channel 1 goes idle. Its watermark 9 was the
    # valve's output, so the valve looks again: channel 0's 199.
    ("idleness: a silent channel goes idle and stops holding the watermark back",
     Case(window=tumbling(100), channels=2,
          watermark_generator=MonotonousWatermarks(interval=100, idleness=150),
          events=[record("a", 1, 50), record("a", 2, 10, channel=1), processing_time(101), record("a", 3, 200),
                  processing_time(202), processing_time(303), processing_time(404)]),
     Observation(firings=[fire(6, "a", W(0, 100), [1, 2], 199), fire(7, "a", W(200, 300), [3], LONG_MAX)],
                 watermarks=marks((2, 9), (6, 199), (7, LONG_MAX)))),
    # The legacy extractor: max - bound (not - 1), emitted after every record when punctuated.
    ("legacy bounded extractor, punctuated: max - bound after each record",
     Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessTimestampExtractor(2, punctuated=True),
          events=[record("a", 1, 10), record("a", 2, 5), record("a", 3, 13)]),
     Observation(firings=[fire(2, "a", W(0, 10), [2], 11), fire(3, "a", W(10, 20), [1, 3], LONG_MAX)],
                 watermarks=marks((0, 8), (2, 11), (3, LONG_MAX)))),
    # AscendingTimestampExtractor: 7 after 10 is a violation (logged, ignored); the watermark is
    # currentTimestamp - 1, emitted at 51 (past the timer at 50) and 120 (past 101). Sessions [10, 15)
    # and [7, 12) merge into [7, 15), fired by 19.
    ("legacy ascending extractor, periodic, on merging session windows",
     Case(window=session(5), watermark_generator=AscendingTimestampExtractor(interval=50),
          events=[record("a", 1, 10), record("a", 2, 7), processing_time(51), record("a", 3, 20),
                  processing_time(120)]),
     Observation(firings=[fire(4, "a", W(7, 15), [1, 2], 19), fire(5, "a", W(20, 25), [3], LONG_MAX)],
                 watermarks=marks((2, 9), (4, 19), (5, LONG_MAX)))),
    # The clock jumps from 0 to 350: one periodic emit, and the next timer is 350 + 100 = 450, not 400,
    # which fires once the clock has passed it: not at 450, at 451.
    ("a clock jump over several intervals fires the timer once and reschedules from now",
     Case(window=tumbling(100), watermark_generator=MonotonousWatermarks(interval=100),
          events=[record("a", 1, 50), processing_time(350), record("a", 2, 100), processing_time(450),
                  processing_time(451)]),
     Observation(firings=[fire(4, "a", W(0, 100), [1], 99), fire(5, "a", W(100, 200), [2], LONG_MAX)],
                 watermarks=marks((1, 49), (4, 99), (5, LONG_MAX)))),
    # StreamTask.endData sends Long.MAX_VALUE through processWatermark before finish() makes its last
    # periodic emit (29 here), which the emitter then drops. 101 passes the timer at 100: 9.
    ("the end of input sends Long.MAX_VALUE, not first a last periodic watermark",
     Case(window=tumbling(10), watermark_generator=MonotonousWatermarks(interval=100),
          events=[record("a", 1, 10), processing_time(101), record("a", 2, 30)]),
     Observation(firings=[fire(3, "a", W(10, 20), [1], LONG_MAX), fire(3, "a", W(30, 40), [2], LONG_MAX)],
                 watermarks=marks((1, 9), (3, LONG_MAX)))),
    # TimestampsAndWatermarksOperator.processWatermarkStatus is empty: the source's idle status never
    # reaches the valve (had it, the valve would be idle and drop the 4 emitted at 101).
    ("a channel status from the source is dropped by the watermark assigner",
     Case(window=tumbling(10), watermark_generator=MonotonousWatermarks(interval=100),
          events=[record("a", 1, 5), WatermarkStatus(0, idle=True), processing_time(101)]),
     Observation(firings=[fire(3, "a", W(0, 10), [1], LONG_MAX)], watermarks=marks((2, 4), (3, LONG_MAX)))),
    # Explicit watermarks on two channels: 5 is the minimum; channel 1 idle and holding the output:
    # 10; channel 1 back at 5 < 20 is not aligned, 15 does not count, 25 >= 20 aligns it; channel 0
    # ends (Long.MAX_VALUE): 25; the end of input ends channel 1.
    ("valve: idle, back, aligned again, a channel that ends",
     Case(window=tumbling(10), channels=2,
          events=[record("a", 1, 3, channel=1), watermark(10), watermark(5, channel=1), WatermarkStatus(1, True),
                  watermark(20), WatermarkStatus(1, False), watermark(15, channel=1), watermark(25, channel=1),
                  EndOfChannel(0)]),
     Observation(firings=[fire(3, "a", W(0, 10), [1], 10)],
                 watermarks=marks((2, 5), (3, 10), (4, 20), (8, 25), (9, LONG_MAX)))),
    # Every channel idle, the last one (3) holding the output: the valve flushes the maximum (10) and
    # goes idle; it ignores 20 while idle;
    # channel 0 back at 10 >= 10 is aligned at once, and its 20 is the next output.
    ("valve: all channels idle flushes the maximum",
     Case(window=tumbling(10), channels=2,
          events=[watermark(10), watermark(3, channel=1), WatermarkStatus(0, True), WatermarkStatus(1, True),
                  watermark(20), WatermarkStatus(0, False), watermark(20)]),
     Observation(watermarks=marks((1, 3), (3, 10), (6, 20), (7, LONG_MAX)))),
    # A record without timestamp fails the job at 2: the 19 the generator would emit at 4 (202, past the
    # timer due 100 after the emit at 101) never arrives.
    ("no watermark reaches the operator after a runtime error",
     Case(window=tumbling(10), watermark_generator=MonotonousWatermarks(interval=100),
          events=[record("a", 1, 5), processing_time(101), record("a", 2, LONG_MIN), record("a", 3, 20),
                  processing_time(202)]),
     Observation(error=Error("runtime", NO_TS), watermarks=marks((1, 4)))),
    # Channel 0 comes back below the output (unaligned); when it goes idle last, its 5 is not the
    # output 10, so Flink 2.3 flushes nothing (its later source would flush channel 1's 30 and fire
    # [20, 30) at 8). The channels end idle: the valve ignores their Long.MAX_VALUE, nothing fires.
    ("valve: all idle, the last one below the output: no flush in Flink 2.3",
     Case(window=tumbling(10), channels=3,
          events=[record("a", 1, 25, channel=1), watermark(5), watermark(30, 1), watermark(10, 2),
                  WatermarkStatus(0, True), WatermarkStatus(0, False), WatermarkStatus(1, True),
                  WatermarkStatus(2, True), WatermarkStatus(0, True)]),
     Observation(watermarks=marks((3, 5), (4, 10)))),
    ("a negative bound fails the job when the generator is made",
     Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(-1)),
     rejected(NEGATIVE_BOUND_MESSAGE)),
    ("the legacy extractor's constructor formats the negative Duration",
     Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessTimestampExtractor(-1500)),
     rejected("Tried to set the maximum allowed lateness to PT-1.5S. This parameter cannot be negative.")),
    ("withIdleness(0) is rejected",
     Case(window=tumbling(10), watermark_generator=MonotonousWatermarks(idleness=0)),
     rejected(NON_POSITIVE_IDLENESS_MESSAGE)),
    ("a negative auto-watermark interval is rejected before the window assigner",
     Case(window=tumbling(10, offset=10), watermark_generator=MonotonousWatermarks(interval=-1)),
     rejected(NEGATIVE_INTERVAL_MESSAGE)),
]


@pytest.fixture(scope="module")
def batch_results():
    return SparkImplementation().run([case for _, case, _ in CASES])


@pytest.mark.spark
@pytest.mark.parametrize("index", range(len(CASES)), ids=[label for label, _, _ in CASES])
def test_hand_computed_case(batch_results, index):
    _, _, expected = CASES[index]
    assert not difference(expected, batch_results[index]), difference(expected, batch_results[index])


def test_the_operator_stream_maps_each_input_watermark_to_its_case_position():
    assert not Case(window=tumbling(10), events=[record("a", 1, 5), watermark(9)]).observes_watermarks
    stream = operator_stream(Case(window=tumbling(10), channels=2,
                                  events=[record("a", 1, 5, channel=1), watermark(9), watermark(9, 1)]))
    # the first 9 is held back by channel 1; the stream has no event for it
    assert stream.events == (record("a", 1, 5), watermark(9), watermark(LONG_MAX))
    assert stream.origin == (0, 2, 3)
    assert stream.watermarks == ((1, 9), (2, LONG_MAX))


def test_idleness_timer_starts_at_the_first_check_without_activity():
    timer = IdlenessTimer.of(100)
    timer.activity()
    assert not timer.check_if_idle(1_000)  # activity since the last check
    assert not timer.check_if_idle(5_000)  # the countdown starts here, not at the last record
    assert not timer.check_if_idle(5_100)  # exactly the timeout: not more than it
    assert timer.check_if_idle(5_101)


def test_idleness_timeout_whose_nanoseconds_overflow_never_elapses():
    timer = IdlenessTimer.of(LONG_MAX // 1_000)
    assert timer.max_idle_nanos == LONG_MAX
    assert not timer.check_if_idle(1) and not timer.check_if_idle(LONG_MAX // 2_000_000)


def test_valve_ignores_a_watermark_below_its_channels_last():
    valve = StatusWatermarkValve(1)
    assert valve.input_watermark(0, 10) == [10]
    assert valve.input_watermark(0, 7) == [] and valve.input_watermark(0, 10) == []
    assert valve.input_watermark(0, 11) == [11]


# --- the public API: the same rules on a DataFrame with channel and processing-time columns ----------

API_ROWS = [  # arrival, key, ts, payload, channel, processing time
    (0, "a", 5, 1, 0, 0), (1, "a", 15, 2, 1, 50), (2, "a", 30, 3, 0, 101), (3, "a", 31, 4, 1, 250)]


def api_events(rows=API_ROWS):
    from spark_impl.session import get_session

    return get_session().createDataFrame(rows, "arrival long, key string, ts long, payload long, channel long, pt long")


@pytest.mark.spark
def test_flink_windows_generates_and_merges_watermarks_by_hand():
    from spark_impl import flink_windows

    out = flink_windows(api_events(), tumbling(10), channel="channel", channels=2, processing_time="pt",
                        watermarks=BoundedOutOfOrdernessWatermarks(2, interval=100))
    # At 101 (past the timer at 100, before arrival 2) channel 0 emits 2, channel 1 12: the valve passes
    # 2. At 250 (past the timer at 201, before arrival 3) channel 0 emits 27, the minimum is 12 and
    # fires [0, 10). The end: MAX.
    got = sorted((r.window_start, tuple(r.values), r.watermark, r.arrival, r.cause) for r in out.firings.collect())
    assert got == [(0, (1,), 12, 3, "watermark"), (10, (2,), LONG_MAX, None, "end_of_input"),
                   (30, (3, 4), LONG_MAX, None, "end_of_input")]


@pytest.mark.spark
@pytest.mark.parametrize("generator", [BoundedOutOfOrdernessTimestampExtractor(5, interval=100, idleness=150),
                                       MonotonousWatermarks(interval=100, punctuated=True, idleness=150)],
                         ids=["periodic", "punctuated"])
def test_flink_windows_with_idleness_matches_the_case_of_the_same_stream(generator):
    from spark_impl import flink_windows

    rows = [(0, "a", 50, 1, 0, 0), (1, "b", 10, 2, 1, 0), (2, "a", 200, 3, 0, 101), (3, "a", 210, 4, 0, 202),
            (4, "b", 300, 5, 0, 303), (5, "a", 420, 6, 0, 404), (6, "b", 150, 7, 1, 455)]
    out = flink_windows(api_events(rows), tumbling(100), channel="channel", channels=2, processing_time="pt",
                        watermarks=generator, late_side_output=True)
    events, clock = [], 0
    for _, key, ts, value, channel, pt in rows:
        if pt > clock:
            events.append(processing_time(pt))
            clock = pt
        events.append(record(key, value, ts, channel))
    [expected] = SparkImplementation().run([Case(window=tumbling(100), channels=2, watermark_generator=generator,
                                                 late_side_output=True, events=events)])
    assert expected.late and len({f.watermark for f in expected.firings}) > 1  # idleness moved it on
    assert sorted((r.key, r.window_start, tuple(r.values), r.watermark) for r in out.firings.collect()) == sorted(
        (f.key, f.window.start, f.values, f.watermark) for f in expected.firings)
    assert sorted((r.key, r.ts) for r in out.late.collect()) == sorted((r.key, r.ts) for r in expected.late)


def test_flink_windows_rejects_a_clock_that_goes_back_and_a_channel_out_of_range():
    from spark_impl import flink_windows

    generator = MonotonousWatermarks(interval=100)
    back = api_events([(0, "a", 5, 1, 0, 101), (1, "a", 6, 2, 0, 50)])  # 101 fires the timer at 100
    with pytest.raises(ValueError, match="pt goes back"):
        flink_windows(back, tumbling(10), processing_time="pt", watermarks=generator).firings.collect()
    wide = api_events([(0, "a", 5, 1, 2, 100)])
    with pytest.raises(ValueError, match="channel 2 of the record with arrival 0 is outside 0..1"):
        flink_windows(wide, tumbling(10), channel="channel", channels=2, processing_time="pt", watermarks=generator)
    with pytest.raises(ValueError, match="needs the events' processing time"):
        flink_windows(wide, tumbling(10), watermarks=generator)
    with pytest.raises(ValueError, match=NEGATIVE_BOUND_MESSAGE):
        flink_windows(wide, tumbling(10), watermarks=BoundedOutOfOrdernessWatermarks(-1, interval=0))

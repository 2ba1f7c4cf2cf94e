"""The reference's watermark classes (`reference/watermarks/`), on scenarios ported from Flink's own tests
(`StatusWatermarkValveTest`, `BoundedOutOfOrdernessWatermarksTest`, `WatermarksWithIdlenessTest`), then
end to end through `ReferenceImplementation`: generated watermarks, several channels, idleness, Flink's
rejections and what `explain` says."""

from __future__ import annotations

import pytest

from reference.errors import InvalidSpec
from reference.explain import explain_case
from reference.implementation import ReferenceImplementation
from reference.watermarks import generators
from reference.watermarks.timestamps_and_watermarks import TimestampsAndWatermarksOperator
from reference.watermarks.valve import StatusWatermarkValve
from window_contract.case import (
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    EndOfChannel,
    MonotonousWatermarks,
    WatermarkStatus,
    processing_time,
    record,
    tumbling,
    watermark,
)
from window_contract.facts import (
    LONG_MAX,
    LONG_MIN,
    NEGATIVE_BOUND_MESSAGE,
    NEGATIVE_INTERVAL_MESSAGE,
    NON_POSITIVE_IDLENESS_MESSAGE,
    negative_legacy_bound_message,
)
from window_contract.observation import InputWatermark, TimeWindow

IDLE, ACTIVE = "IDLE", "ACTIVE"


class Recorded:
    """A valve output (and a `WatermarkOutput`) that records what it is given, like Flink's test outputs."""

    def __init__(self) -> None:
        self.seen: list[int | str] = []

    def emit_watermark(self, watermark: int) -> None:
        self.seen.append(watermark)

    def emit_watermark_status(self, idle: bool) -> None:
        self.seen.append(IDLE if idle else ACTIVE)

    def mark_idle(self) -> None:
        self.seen.append(IDLE)

    def mark_active(self) -> None:
        self.seen.append(ACTIVE)

    def pop(self) -> list[int | str]:
        seen, self.seen = self.seen, []
        return seen


# --- StatusWatermarkValve (StatusWatermarkValveTest) ------------------------------------------------

def wm(channel: int, watermark: int, *out):
    return ("watermark", channel, watermark, list(out))


def status(channel: int, state: str, *out):
    return ("status", channel, state, list(out))


VALVE_SCENARIOS = {
    "single_input_increasing_watermarks": (1, [wm(0, 0, 0), wm(0, 25, 25)]),
    "single_input_decreasing_watermarks_yield_no_output": (1, [wm(0, 25, 25), wm(0, 18), wm(0, 42, 42)]),
    "single_input_watermark_status_toggling": (
        1, [status(0, ACTIVE), status(0, IDLE, IDLE), status(0, IDLE), status(0, ACTIVE, ACTIVE)]),
    "single_input_watermarks_intact_during_idleness": (
        1, [wm(0, 25, 25), status(0, IDLE, IDLE), wm(0, 50), status(0, ACTIVE, ACTIVE), wm(0, 50, 50)]),
    "multiple_input_yields_watermark_only_when_all_channels_receive_watermarks": (
        3, [wm(0, 0), wm(1, 0), wm(2, 0, 0)]),
    "multiple_input_increasing_watermarks": (
        3, [wm(0, 0), wm(1, 0), wm(2, 0, 0), wm(0, 12), wm(2, 8), wm(2, 10), wm(1, 15, 10), wm(2, 17, 12),
            wm(0, 20, 15)]),
    "multiple_input_decreasing_watermarks_yield_no_output": (
        3, [wm(0, 25), wm(1, 10), wm(2, 17, 10), wm(0, 12), wm(1, 8), wm(2, 15)]),
    "multiple_input_watermark_status_toggling": (
        2, [status(0, ACTIVE), status(1, ACTIVE), status(1, IDLE), status(0, IDLE, IDLE), status(0, IDLE),
            status(1, IDLE), status(1, ACTIVE, ACTIVE), status(0, ACTIVE)]),
    "multiple_input_watermark_advancing_with_partially_idle_channels": (
        3, [wm(0, 15), wm(1, 10), status(2, IDLE, 10), wm(1, 18, 15), wm(0, 20, 18)]),
    "multiple_input_watermark_advancing_as_channels_individually_become_idle": (
        3, [wm(0, 25), wm(1, 10), wm(2, 17, 10), status(1, IDLE, 17), status(2, IDLE, 25)]),
    "multiple_input_flush_max_watermark_and_status_once_all_inputs_become_idle": (
        3, [wm(0, 10), wm(1, 5), wm(2, 3, 3), status(0, IDLE), status(1, IDLE), status(2, IDLE, 10, IDLE)]),
    "multiple_input_watermark_realignment_after_resume_active": (
        3, [wm(0, 10), wm(1, 7), wm(2, 3, 3), status(2, IDLE, 7), status(2, ACTIVE), wm(2, 5), wm(2, 9),
            wm(1, 12, 9)]),
    "no_output_when_all_active_channels_are_unaligned": (
        3, [wm(0, 10), wm(1, 7), status(2, IDLE, 7), status(2, ACTIVE), status(0, IDLE), status(1, IDLE)]),
    "unaligned_active_channel_becomes_idle": (
        2, [wm(0, 7), wm(1, 10, 7), status(0, IDLE, 10), status(0, ACTIVE), wm(0, 9), status(0, IDLE)]),
    # Flink 2.3 (its bytecode) where later versions of the test expect more: a channel that comes back
    # realigned emits nothing by itself, and the flush when all go idle needs the last one to have held
    # the output.
    "reactivated_channel_realigns_without_output_in_2_3": (
        3, [wm(0, 10), wm(1, 7), status(2, IDLE, 7), status(2, ACTIVE), status(0, IDLE), status(1, IDLE),
            status(0, ACTIVE), status(2, IDLE), wm(0, 11, 11)]),
    "no_flush_when_the_last_channel_to_go_idle_is_unaligned_in_2_3": (
        3, [wm(0, 100), wm(1, 50), wm(2, 70, 50), status(1, IDLE, 70), status(1, ACTIVE), wm(1, 60),
            status(0, IDLE), status(2, IDLE), status(1, IDLE, IDLE)]),
}


@pytest.mark.parametrize("name", VALVE_SCENARIOS)
def test_status_watermark_valve(name):
    channels, steps = VALVE_SCENARIOS[name]
    out = Recorded()
    valve = StatusWatermarkValve(channels, out)
    for i, (kind, channel, value, expected) in enumerate(steps):
        if kind == "watermark":
            valve.input_watermark(value, channel)
        else:
            valve.input_watermark_status(value == IDLE, channel)
        assert out.pop() == expected, f"step {i}: {kind} {value} on channel {channel}"


def test_valve_keeps_an_idle_channels_watermark_and_realigns_a_channel_that_catches_up():
    valve = StatusWatermarkValve(3, Recorded())
    for channel, value in ((0, 10), (1, 7), (2, 3)):
        valve.input_watermark(value, channel)
    valve.input_watermark_status(True, 2)
    valve.input_watermark_status(False, 2)
    assert not valve.statuses[2].aligned
    valve.input_watermark(5, 2)
    assert (valve.statuses[2].watermark, valve.statuses[2].aligned) == (5, False)
    valve.input_watermark(9, 2)
    assert valve.statuses[2].aligned and valve.holding_channel() == 1


# --- generators (BoundedOutOfOrdernessWatermarksTest, WatermarksWithIdlenessTest) ---------------------

def test_bounded_out_of_orderness_watermark_before_records_is_long_min():
    out = Recorded()
    generators.BoundedOutOfOrdernessWatermarks(10).on_periodic_emit(out)
    assert out.seen == [LONG_MIN]


@pytest.mark.parametrize("timestamps, expected", [((1337,), 1326), ((12345, 12300, 12340, 12280), 12334)])
def test_bounded_out_of_orderness_emits_max_minus_bound_minus_one(timestamps, expected):
    out, generator = Recorded(), generators.BoundedOutOfOrdernessWatermarks(10)
    for ts in timestamps:
        generator.on_event(ts, out)
    assert out.pop() == []  # periodic: nothing on an event
    generator.on_periodic_emit(out)
    assert out.seen == [expected]


def test_bounded_out_of_orderness_repeated_probe_emits_the_same_watermark():
    out, generator = Recorded(), generators.BoundedOutOfOrdernessWatermarks(10)
    generator.on_event(723456, out)
    generator.on_periodic_emit(out)
    generator.on_periodic_emit(out)
    assert out.seen == [723445, 723445]


def test_bounded_out_of_orderness_with_bound_long_max_stays_in_the_long_range():
    # maxTimestamp never falls below Long.MIN_VALUE + bound + 1, so maxTimestamp - bound - 1 cannot wrap
    out, generator = Recorded(), generators.BoundedOutOfOrdernessWatermarks(LONG_MAX)
    assert generator.max_timestamp == 0  # Long.MIN_VALUE + Long.MAX_VALUE + 1
    generator.on_periodic_emit(out)  # 0 - MAX - 1 = MIN
    generator.on_event(5, out)
    generator.on_periodic_emit(out)  # 5 - MAX - 1 = MIN + 5
    generator.on_event(LONG_MAX, out)
    generator.on_periodic_emit(out)  # MAX - MAX - 1
    assert out.seen == [LONG_MIN, LONG_MIN + 5, -1]


def test_ascending_timestamps_is_bound_zero():
    out, generator = Recorded(), generators.AscendingTimestampsWatermarks()
    generator.on_event(100, out)
    generator.on_periodic_emit(out)
    assert out.seen == [99]


def test_negative_bound_is_rejected_with_flinks_message():
    with pytest.raises(InvalidSpec, match=NEGATIVE_BOUND_MESSAGE):
        generators.BoundedOutOfOrdernessWatermarks(-1)


def test_legacy_bounded_extractor_emits_max_minus_bound_and_never_goes_back():
    extractor = generators.BoundedOutOfOrdernessTimestampExtractor(2000)
    assert extractor.get_current_watermark() == LONG_MIN
    assert extractor.extract_timestamp(5000) == 5000
    assert extractor.get_current_watermark() == 3000  # no "- 1", unlike the new generator
    extractor.extract_timestamp(4000)
    assert extractor.get_current_watermark() == 3000


def test_legacy_ascending_extractor_emits_ts_minus_one_and_keeps_a_lower_record():
    extractor = generators.AscendingTimestampExtractor()
    assert extractor.get_current_watermark() == LONG_MIN
    extractor.extract_timestamp(10)
    assert extractor.extract_timestamp(3) == 3  # the LoggingHandler only logs the violation
    assert extractor.get_current_watermark() == 9


@pytest.mark.parametrize("bound, shown", [(-1, "PT-0.001S"), (-1500, "PT-1.5S"), (-3_600_000, "PT-1H")])
def test_legacy_negative_bound_message_formats_the_duration_as_java_does(bound, shown):
    with pytest.raises(InvalidSpec) as e:
        generators.BoundedOutOfOrdernessTimestampExtractor(bound)
    assert str(e.value) == negative_legacy_bound_message(bound)
    assert f"to {shown}." in str(e.value)


class Clock:
    def __init__(self, nanos: int) -> None:
        self.nanos = nanos

    def __call__(self) -> int:
        return self.nanos

    def advance_millis(self, millis: int) -> None:
        self.nanos += millis * 1_000_000


def idle_timer(clock: Clock, timeout: int) -> generators.IdlenessTimer:
    """`createTimerAndMakeIdle`: start the countdown, pass the timeout, and the timer says idle."""
    timer = generators.IdlenessTimer(clock, timeout)
    timer.check_if_idle()
    clock.advance_millis(timeout + 1)
    assert timer.check_if_idle()
    return timer


def test_idleness_timer_initially_active():
    assert not generators.IdlenessTimer(Clock(7_000_000), 10).check_if_idle()


def test_idleness_timer_idle_without_events():
    clock = Clock(7_000_000)
    timer = generators.IdlenessTimer(clock, 10)
    timer.check_if_idle()
    clock.advance_millis(10)
    assert not timer.check_if_idle()  # strictly more than the timeout
    clock.advance_millis(1)
    assert timer.check_if_idle()


def test_idleness_timer_repeated_checks_stay_idle():
    clock = Clock(7_000_000)
    timer = idle_timer(clock, 122)
    assert timer.check_if_idle()
    clock.advance_millis(100)
    assert timer.check_if_idle()


def test_idleness_timer_idle_active_idle():
    clock = Clock(7_000_000)
    timer = idle_timer(clock, 122)
    timer.activity()
    assert not timer.check_if_idle()
    timer.check_if_idle()
    clock.advance_millis(123)
    assert timer.check_if_idle()


@pytest.mark.parametrize("timeout", [0, -1])
def test_non_positive_idleness_is_rejected(timeout):
    with pytest.raises(InvalidSpec, match=NON_POSITIVE_IDLENESS_MESSAGE):
        generators.WatermarksWithIdleness(generators.AscendingTimestampsWatermarks(), timeout, Clock(0))


def test_watermarks_with_idleness_marks_idle_once_instead_of_emitting():
    clock, out = Clock(1_000_000), Recorded()
    generator = generators.WatermarksWithIdleness(generators.AscendingTimestampsWatermarks(), 10, clock)
    generator.on_event(100, out)
    generator.on_periodic_emit(out)  # activity since the last check: emits
    generator.on_periodic_emit(out)  # no activity: the countdown starts, still emits
    clock.advance_millis(11)
    generator.on_periodic_emit(out)
    generator.on_periodic_emit(out)
    assert out.seen == [99, 99, IDLE]
    generator.on_event(200, out)
    generator.on_periodic_emit(out)
    assert out.seen[3:] == [199]


def test_punctuated_emission_emits_after_each_event_and_not_periodically():
    out = Recorded()
    generator = generators.PunctuatedEmission(generators.BoundedOutOfOrdernessWatermarks(5))
    generator.on_event(100, out)
    generator.on_periodic_emit(out)
    assert out.seen == [94]


# --- TimestampsAndWatermarksOperator ------------------------------------------------------------------

def two(interval: int, generator=None) -> tuple[TimestampsAndWatermarksOperator, Recorded]:
    out = Recorded()
    operator = TimestampsAndWatermarksOperator(generators.RecordTimestampAssigner(),
                                               generator or generators.AscendingTimestampsWatermarks(),
                                               interval, out)
    operator.open(0)
    return operator, out


def test_periodic_emission_once_the_clock_passes_the_interval_and_once_for_a_jump():
    operator, out = two(200)
    operator.on_event(1000)
    operator.advance_processing_time(200)  # due at 200: it fires only once the clock has passed it
    assert out.pop() == []
    operator.advance_processing_time(201)
    assert out.pop() == [999]
    operator.on_event(2000)
    operator.advance_processing_time(1000)  # four intervals at once: one emit
    assert out.pop() == [1999]
    operator.on_event(3000)
    operator.advance_processing_time(1200)  # the next timer is 1000 + 200
    assert out.pop() == []
    operator.advance_processing_time(1201)
    assert out.pop() == [2999]


def test_no_periodic_emission_with_interval_zero():
    operator, out = two(0)
    operator.on_event(1000)
    operator.advance_processing_time(LONG_MAX)
    assert out.seen == []


def test_emitter_forwards_only_increasing_watermarks_and_marks_active_first():
    operator, out = two(200, generators.BoundedOutOfOrdernessWatermarks(0))
    operator.advance_processing_time(200)  # Long.MIN_VALUE is not above the emitter's start
    operator.wm_output.mark_idle()
    operator.on_event(50)
    operator.advance_processing_time(400)
    operator.advance_processing_time(600)  # the same watermark again: dropped
    assert out.seen == [IDLE, ACTIVE, 49]


def test_upstream_watermarks_are_ignored_but_the_end_of_input():
    operator, out = two(200)
    operator.process_watermark(500)
    operator.process_watermark(LONG_MAX)
    operator.finish()  # the last periodic emit cannot go back
    assert out.seen == [LONG_MAX]


# --- end to end ---------------------------------------------------------------------------------------

def observe(case: Case):
    return ReferenceImplementation().run([case])[0]


def test_periodic_generator_feeds_the_window_operator_and_its_watermarks_are_observed():
    case = Case(window=tumbling(1000), watermark_generator=BoundedOutOfOrdernessWatermarks(100),
                events=[record("a", 1, ts=500), record("a", 2, ts=1200), processing_time(201),
                        record("a", 3, ts=1500), processing_time(402)])
    o = observe(case)  # the emits at 201 (past 200) and 402 (past 201 + 200)
    assert o.watermarks == (InputWatermark(2, 1099), InputWatermark(4, 1399), InputWatermark(5, LONG_MAX))
    assert [(f.at, f.window, f.values, f.watermark) for f in o.firings] == [
        (2, TimeWindow(0, 1000), (1,), 1099), (5, TimeWindow(1000, 2000), (2, 3), LONG_MAX)]


def test_punctuated_watermark_follows_its_record():
    case = Case(window=tumbling(1000), watermark_generator=MonotonousWatermarks(punctuated=True),
                events=[record("a", 1, ts=999), record("a", 2, ts=1000)])
    o = observe(case)
    assert o.watermarks == (InputWatermark(0, 998), InputWatermark(1, 999), InputWatermark(2, LONG_MAX))
    assert [(f.at, f.values) for f in o.firings] == [(1, (1,)), (2, (2,))]


def test_the_operators_watermark_is_the_minimum_over_channels():
    case = Case(window=tumbling(10), channels=2,
                events=[record("a", 1, ts=5), watermark(30, channel=0), watermark(12, channel=1),
                        watermark(40, channel=1), EndOfChannel(1)])
    o = observe(case)
    assert o.watermarks == (InputWatermark(2, 12), InputWatermark(3, 30), InputWatermark(5, LONG_MAX))
    assert [(f.at, f.watermark) for f in o.firings] == [(2, 12)]


def test_an_idle_channel_does_not_hold_the_window_back():
    case = Case(window=tumbling(10), channels=2, end_of_input=False,
                events=[record("a", 1, ts=5), watermark(30, channel=0), WatermarkStatus(1, idle=True)])
    o = observe(case)
    assert o.watermarks == (InputWatermark(2, 30),)
    assert [f.at for f in o.firings] == [2]


def test_generated_idleness_releases_the_other_channel():
    case = Case(window=tumbling(10), channels=2, end_of_input=False,
                watermark_generator=MonotonousWatermarks(interval=100, idleness=250),
                events=[record("a", 1, ts=5, channel=0), record("a", 2, ts=50, channel=1), processing_time(101),
                        record("a", 3, ts=60, channel=0), processing_time(202), record("a", 4, ts=70, channel=0),
                        processing_time(303), record("a", 5, ts=80, channel=0), processing_time(604)])
    o = observe(case)
    # each advance passes the timer due 100 after the last emit; channel 1 emits 49 at 101, starts its
    # countdown at 202, is not idle at 303 (101), is idle at 604 (402 > 250 after the start)
    assert o.watermarks == (InputWatermark(2, 4), InputWatermark(4, 49), InputWatermark(8, 79))


def test_statuses_from_upstream_change_nothing_with_a_generator():
    events = [record("a", 1, ts=5, channel=0), processing_time(200)]
    with_status = Case(window=tumbling(10), channels=2, watermark_generator=MonotonousWatermarks(),
                       events=[*events[:1], WatermarkStatus(1, idle=True), *events[1:]])
    without = Case(window=tumbling(10), channels=2, watermark_generator=MonotonousWatermarks(), events=events)
    assert observe(with_status).watermarks == (InputWatermark(3, LONG_MAX),)
    assert [w.watermark for w in observe(without).watermarks] == [LONG_MAX]


def test_an_idle_channel_that_ends_stays_idle():
    case = Case(window=tumbling(10), channels=2,
                events=[record("a", 1, ts=5), watermark(3, channel=0), WatermarkStatus(1, idle=True),
                        WatermarkStatus(0, idle=True), EndOfChannel(1)])
    # channel 0 held the output (3) when it went idle last: the maximum (3) was already out
    assert observe(case).watermarks == (InputWatermark(2, 3),)


def test_a_case_of_one_explicit_channel_observes_no_watermarks():
    assert observe(Case(window=tumbling(10), events=[watermark(5)])).watermarks is None


@pytest.mark.parametrize("generator, message", [
    (BoundedOutOfOrdernessWatermarks(-1), NEGATIVE_BOUND_MESSAGE),
    (MonotonousWatermarks(idleness=0), NON_POSITIVE_IDLENESS_MESSAGE),
    (MonotonousWatermarks(interval=-1), NEGATIVE_INTERVAL_MESSAGE),
    (BoundedOutOfOrdernessTimestampExtractor(-2000), negative_legacy_bound_message(-2000)),
    # the order a job meets them: the interval, the legacy constructor, withIdleness, the window, the
    # new generator when the operator opens
    (BoundedOutOfOrdernessTimestampExtractor(-1, interval=-1, idleness=0), NEGATIVE_INTERVAL_MESSAGE),
    (BoundedOutOfOrdernessTimestampExtractor(-1, idleness=0), negative_legacy_bound_message(-1)),
    (BoundedOutOfOrdernessWatermarks(-1, idleness=0), NON_POSITIVE_IDLENESS_MESSAGE),
])
def test_what_flink_rejects_is_an_invalid_spec_with_flinks_message(generator, message):
    o = observe(Case(window=tumbling(10), watermark_generator=generator, events=[record("a", 1, ts=1)]))
    assert (o.error.kind, o.error.message, o.firings, o.watermarks) == ("invalid_spec", message, (), ())


def test_a_window_rejection_comes_before_the_new_generators_bound():
    o = observe(Case(window=tumbling(0), watermark_generator=BoundedOutOfOrdernessWatermarks(-1)))
    assert o.error.kind == "invalid_spec" and o.error.message != NEGATIVE_BOUND_MESSAGE


def test_legacy_ascending_generator_end_to_end():
    case = Case(window=tumbling(10), watermark_generator=AscendingTimestampExtractor(interval=100),
                events=[record("a", 1, ts=10), record("a", 2, ts=4), processing_time(101)])
    assert observe(case).watermarks == (InputWatermark(2, 9), InputWatermark(3, LONG_MAX))


def test_explain_tells_each_generated_watermark_and_which_channel_holds_the_output_back():
    case = Case(window=tumbling(10), channels=2, watermark_generator=MonotonousWatermarks(interval=100),
                events=[record("a", 1, ts=5, channel=0), record("a", 2, ts=50, channel=1), processing_time(101),
                        record("a", 3, ts=70, channel=0), processing_time(202)])
    text = "\n".join(explain_case(case))
    assert "channel 0's generator emits Watermark(4)" in text
    assert "the window operator's watermark -> 4 (the minimum over active channels, held by channel 0)" in text
    assert "channel 0's generator emits Watermark(69)" in text
    assert "the operator's watermark stays Long.MIN_VALUE: channel 1 is behind at Long.MIN_VALUE" in text
    assert "the window operator's watermark -> 49 (the minimum over active channels, held by channel 1)" in text

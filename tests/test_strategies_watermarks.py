"""`strategies.watermarks`: valid watermark cases that fit the features and reach every family."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import InvalidArgument

from strategies.features import supported
from strategies.watermarks import (
    START,
    Ahead,
    Comeback,
    Due,
    Echo,
    Emit,
    Flap,
    Mark,
    Noise,
    Overshoot,
    Quiet,
    Retire,
    generated_watermark_cases,
    generators,
    play,
)
from window_contract.case import (
    GENERATORS,
    EndOfChannel,
    MonotonousWatermarks,
    ProcessingTime,
    Record,
    Watermark,
    WatermarkStatus,
    case_to_json,
)
from window_contract.case_json import case_from_json
from window_contract.features import required_features
from window_contract.registry import load_implementation

SMALL = settings(max_examples=60, deadline=None, database=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))

#: Tumbling windows and the new API's periodic generators on one channel.
PERIODIC_ONLY = frozenset({"assigner.tumbling", "watermark.bounded_out_of_orderness", "watermark.periodic"})


def _draw_many(strategy, n: int = 300) -> list:
    drawn = []

    @settings(max_examples=n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(case):
        drawn.append(case)

    collect()
    return drawn


@SMALL
@given(generated_watermark_cases())
def test_cases_round_trip_through_the_json_format(case):
    assert case_from_json(json.loads(json.dumps(case_to_json(case)))) == case


@SMALL
@given(generated_watermark_cases(PERIODIC_ONLY))
def test_cases_fit_the_features(case):
    assert required_features(case) <= PERIODIC_ONLY
    assert case.channels == 1 and not case.watermark_generator.punctuated


@SMALL
@given(generated_watermark_cases())
def test_processing_time_never_goes_back_and_nothing_follows_a_channels_end(case):
    times = [e.time for e in case.events if isinstance(e, ProcessingTime)]
    assert times == sorted(times)
    ended = set()
    for e in case.events:
        assert getattr(e, "channel", None) not in ended, f"{e} after its channel ended"
        if isinstance(e, EndOfChannel):
            ended.add(e.channel)
        assert getattr(e, "channel", 0) < case.channels


def rejected(generator) -> set[str]:
    """The generator's parameters Flink rejects (`rejected_parameters`): a negative interval or bound, an
    idleness of 0 or less."""
    least = {"interval": 0, "bound": 0, "idleness": 1}
    values = {name: getattr(generator, name, None) for name in least}
    return {name for name, value in values.items() if value is not None and value < least[name]}


def test_the_reference_runs_every_drawn_case_and_rejects_only_the_rejected_parameters():
    drawn = _draw_many(generated_watermark_cases(), 200)
    observations = load_implementation("reference").run(drawn)
    kinds = Counter((o.error.kind if o.error else None, bool(rejected(c.watermark_generator)))
                    for c, o in zip(drawn, observations, strict=True))
    assert set(kinds) <= {(None, False), ("invalid_spec", True)}, kinds
    assert all(o.watermarks is not None for o in observations)


def test_every_family_is_drawn():
    drawn = _draw_many(generated_watermark_cases(), 400)
    found = Counter()
    for case in drawn:
        g = case.watermark_generator
        found[f"channels {case.channels}"] += 1
        if g is not None:
            found.update([g.tag, "punctuated" if g.punctuated else "periodic",
                          "interval 0" if g.interval == 0 else "interval", "idleness" * (g.idleness is not None)])
            bound = getattr(g, "bound", None)
            found.update(["bound 0"] * (bound == 0) + ["bound near max"] * (bound is not None and bound > 2**62))
            found.update(["idleness of 10^6 ms"] * (g.idleness is not None and g.idleness >= 10**6))
        found.update(type(e).__name__ for e in case.events)
    wanted = ([f"channels {n}" for n in range(1, 5)] + [k.tag for k in GENERATORS]
              + ["punctuated", "periodic", "interval 0", "idleness", "bound 0", "bound near max", "idleness of 10^6 ms"]
              + [k.__name__ for k in (Record, Watermark, ProcessingTime, WatermarkStatus, EndOfChannel)])
    assert [w for w in wanted if not found[w]] == []


def test_generators_reject_each_parameter_flink_checks_alone_and_together():
    found = Counter()
    for g in _draw_many(generators(supported(None)), 600):
        names = rejected(g)
        found.update(names)
        found["several"] += len(names) > 1
        found["bound and idleness, no interval"] += names == {"bound", "idleness"}
    assert all(found[name] for name in ("interval", "bound", "idleness", "several",
                                        "bound and idleness, no interval")), found


def test_an_echo_repeats_the_source_channels_last_watermark_on_its_channel():
    events = play([Echo(0, 1), Mark(0, 0), Ahead(7), Mark(0, 3), Echo(1, 0)], [0, 5], None, False)
    assert events == [Watermark(START, 0), Watermark(START + 4, 0), Watermark(START + 4, 1)]  # 1 unheard at first


@pytest.mark.parametrize(("edge", "gap"), [("at", 40), ("just_past", 41), ("interval", 40 + 10 + 1)])
def test_a_comeback_lands_its_second_emit_at_or_just_past_the_idleness_timeout(edge, gap):
    generator = MonotonousWatermarks(interval=10, idleness=40)
    times = [e.time for e in play([Comeback(1, 5, edge)], [0, 0], generator, False) if isinstance(e, ProcessingTime)]
    assert times[1] - times[0] == gap  # from the emit that starts the countdown to the one that judges it


def test_a_level_comeback_returns_where_it_was_and_the_others_then_pass_it():
    events = play([Mark(0, 0), Mark(1, 0), Comeback(0, 0, "interval", 50)], [0, 5], None, False)
    assert events == [Watermark(START, 0), Watermark(START - 5, 1), WatermarkStatus(0, True),
                      Watermark(START - 5, 1), WatermarkStatus(0, False), Watermark(START + 45, 1)]


def test_a_retiring_channel_goes_idle_then_ends_and_says_nothing_more():
    assert play([Retire(1), Mark(1, 0), Mark(0, 0)], [0, 0], None, False) == [
        WatermarkStatus(1, True), EndOfChannel(1), Watermark(START, 0)]


@pytest.mark.parametrize(("judged_by", "silence"), [("emit", 10 + 1), ("finish", 3 + 1)])
def test_a_retiring_generator_channel_is_judged_idle_by_an_emit_or_only_by_finish(judged_by, silence):
    generator = MonotonousWatermarks(interval=10, idleness=3)
    events = play([Retire(1, judged_by)], [0, 0], generator, False)
    times = [e.time for e in events if isinstance(e, ProcessingTime)]
    assert times[1] - times[0] == silence  # from the emit that starts the countdown to the channel's end
    assert events[-1] == EndOfChannel(1)


def test_the_clock_lands_on_the_due_time_then_passes_it_and_the_next_is_due_from_the_reading():
    generator = MonotonousWatermarks(interval=10)
    events = play([Due(0), Due(1), Due(0), Due(25)], [0], generator, False)
    assert events == [ProcessingTime(10), ProcessingTime(11), ProcessingTime(21), ProcessingTime(46)]


def test_an_overshoot_is_followed_by_a_record_and_a_step_past_the_old_due_time_only():
    events = play([Overshoot(0, 3)], [0], MonotonousWatermarks(interval=10), False)
    assert events == [ProcessingTime(13), Record("a", 2, START + 1, 0), ProcessingTime(21)]  # fired at 13: due 23


def test_a_flap_takes_a_channel_idle_active_with_a_watermark_and_idle_again():
    events = play([Flap(2, 5, 1)], [0, 0, 0], None, False)
    assert events == [WatermarkStatus(2, True), Watermark(START + 5, 0), Watermark(START + 5, 1),
                      WatermarkStatus(2, False), Watermark(START + 4, 2), WatermarkStatus(2, True),
                      Watermark(START + 6, 0), Watermark(START + 6, 1)]


def test_quiet_brings_a_channel_back_then_takes_every_channel_idle_the_highest_first_and_it_last():
    events = play([Quiet(0)], [0, 30, 10], None, False)
    assert events == [WatermarkStatus(0, True), Watermark(START - 29, 1), Watermark(START - 9, 2),
                      WatermarkStatus(0, False), WatermarkStatus(2, True), WatermarkStatus(1, True),
                      WatermarkStatus(0, True), WatermarkStatus(2, False), WatermarkStatus(1, False),
                      WatermarkStatus(0, False)]


def test_noise_is_a_status_event_beside_a_generator():
    events = play([Noise(1, True), Emit(1, 0)], [0, 0], MonotonousWatermarks(interval=10), False)
    assert events == [WatermarkStatus(1, True), Record("a", 2, START, 1)]


def test_mixed_cases_carry_whole_specifications_and_reach_every_order():
    drawn = _draw_many(generated_watermark_cases(mixed=True), 300)
    found = Counter()
    for case in drawn:
        assert required_features(case) <= supported(None)
        found.update([case.trigger.tag if case.trigger else "default trigger", case.time, case.window.tag])
        found.update(["lateness"] * (case.allowed_lateness > 0) + [f"channels {case.channels}"])
        if case.watermark_generator is not None:
            found.update(["status beside a generator"] * any(isinstance(e, WatermarkStatus) for e in case.events))
    wanted = ["count", "delta", "continuous_event_time", "purging", "processing_time", "processing_timeout",
              "processing", "session", "lateness", "channels 3", "channels 4", "status beside a generator"]
    assert [w for w in wanted if not found[w]] == []


@pytest.mark.parametrize("features", [frozenset({"assigner.tumbling"}),
                                      frozenset({"watermark.periodic", "watermark.monotonous"})])
def test_features_without_watermarks_or_a_window_are_refused(features):
    with pytest.raises(InvalidArgument):
        _draw_many(generated_watermark_cases(features), 1)

"""Watermarks that Flink makes: the generators' formulas, the valve's minimum, idleness, and the
differential against the reference on mixed watermark cases (`strategies.watermarks`); where they arrive
among records and firings is `test_watermark_positions`."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import check_each, compare_with_reference, property_settings, violation
from strategies.watermarks import generated_watermark_cases
from window_contract.case import (
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    MonotonousWatermarks,
    Record,
    Watermark,
    WatermarkStatus,
)
from window_contract.difference import difference, record_text
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.observation import Observation, remapped


def draw_batch(data, suite, **options) -> list[Case]:
    """A batch of generated watermark cases the implementation supports (at least one)."""
    cases = generated_watermark_cases(suite.features, **options)
    return data.draw(st.lists(cases, min_size=1, max_size=6), label="batch")


def run_and_check_watermarks(data, suite, tally, rule, check, **options) -> None:
    batch = draw_batch(data, suite, **options)
    check_each(rule, batch, suite.run(batch, tally), check)


def generated_watermark(generator, highest: int | None) -> int:
    """What `generator` emits once the highest timestamp it saw is `highest` (`None`: no record yet):
    `BoundedOutOfOrdernessWatermarks` `max - bound - 1` from its start `Long.MIN_VALUE + bound + 1`
    (`forMonotonousTimestamps`: bound 0), the legacy `BoundedOutOfOrdernessTimestampExtractor`
    `max - bound` from `Long.MIN_VALUE + bound`, the legacy `AscendingTimestampExtractor` `max - 1`."""
    match generator:
        case BoundedOutOfOrdernessWatermarks(bound) | BoundedOutOfOrdernessTimestampExtractor(bound):
            legacy = isinstance(generator, BoundedOutOfOrdernessTimestampExtractor)
            start = LONG_MIN + bound + (0 if legacy else 1)
            return max(start, highest if highest is not None else start) - bound - (0 if legacy else 1)
        case MonotonousWatermarks():
            return generated_watermark(BoundedOutOfOrdernessWatermarks(0), highest)
        case AscendingTimestampExtractor():
            return LONG_MIN if highest is None else highest - 1
    raise AssertionError(f"unknown generator {generator}")


def channel_watermark_follows_formula(case: Case, observation: Observation) -> str | None:
    if case.channels != 1 or case.watermark_generator is None or observation.error is not None:
        return None
    previous = LONG_MIN
    for w in observation.watermarks or ():
        if w.watermark <= previous:
            return f"the watermark {w.watermark} at position {w.at} does not increase (after {previous})"
        previous = w.watermark
        if w.watermark == LONG_MAX:
            continue
        seen = [e.ts for e in case.events[:w.at + 1] if isinstance(e, Record)]
        want = generated_watermark(case.watermark_generator, max(seen, default=None))
        if w.watermark != want:
            return (f"the watermark at position {w.at} is {w.watermark}, but the generator's formula on the "
                    f"highest timestamp seen ({max(seen, default=None)}) gives {want}")
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_generated_watermark_follows_its_generators_formula(data, suite, tally):
    """With one channel, every watermark the operator receives (but the final `Long.MAX_VALUE`) is its
    generator's formula (`BoundedOutOfOrdernessWatermarks.onPeriodicEmit`, the legacy extractors'
    `getCurrentWatermark`) on the highest timestamp seen so far, and each is higher than the last
    (`TimestampsAndWatermarksOperator` forwards only increasing watermarks)."""
    if not any(f.startswith("watermark.") for f in suite.features):
        return
    run_and_check_watermarks(data, suite, tally, "a channel's generated watermark follows its generator's formula",
                             channel_watermark_follows_formula, mode="generator", channels=1)


def operator_watermark_increases(case: Case, observation: Observation) -> str | None:
    received = [w.watermark for w in observation.watermarks or ()]
    for before, after in zip(received, received[1:], strict=False):
        if after <= before:
            return f"the operator received {after} after {before}: its watermarks are {received}"
    return None


@property_settings()
@given(data=st.data())
def test_operator_watermark_never_decreases(data, suite, tally):
    """`StatusWatermarkValve` emits the minimum over its aligned channels only when it is higher than
    its last output: the watermarks the window operator receives increase strictly."""
    if not any(f.startswith("watermark.") for f in suite.features) and "channels" not in suite.features:
        return  # the implementation makes no watermark case: nothing to hold it to
    run_and_check_watermarks(data, suite, tally, "the operator's watermark never decreases",
                             operator_watermark_increases)


def out_of_orderness(generator) -> int | None:
    """The most disorder a record may have and still be ahead of the watermark: the bound for
    `BoundedOutOfOrdernessWatermarks` (`max - bound - 1 < ts`), one less for the legacy extractor
    (`max - bound`), 0 for the monotonous and ascending ones (`max - 1`)."""
    match generator:
        case BoundedOutOfOrdernessWatermarks(bound):
            return bound
        case BoundedOutOfOrdernessTimestampExtractor(bound):
            return bound - 1
    return 0


def records_within_bound_are_not_late(case: Case, observation: Observation) -> str | None:
    if case.channels != 1 or case.watermark_generator is None or case.allowed_lateness != 0:
        return None
    bound = out_of_orderness(case.watermark_generator)
    late = {r.at for r in observation.late + observation.dropped}
    highest = None
    for at, e in enumerate(case.events):
        if not isinstance(e, Record):
            continue
        disorder = 0 if highest is None else highest - e.ts
        if at in late and disorder <= bound:
            return (f"{record_text(e)} at position {at} is late, but its disorder {disorder} is within the bound "
                    f"{bound}")
        highest = e.ts if highest is None else max(highest, e.ts)
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_no_record_within_the_bound_is_late(data, suite, tally):
    """Under bounded out-of-orderness with one channel, a record at most `bound` behind the highest
    timestamp before it is ahead of the watermark (`BoundedOutOfOrdernessWatermarks`), so its windows
    are not late (`WindowOperator.isWindowLate`) and it is neither side output nor dropped."""
    if not any(f.startswith("watermark.") for f in suite.features):
        return
    run_and_check_watermarks(data, suite, tally, "no record whose disorder is within the bound is late",
                             records_within_bound_are_not_late, mode="generator", channels=1)


def without_watermarks(observation: Observation) -> Observation:
    return replace(observation, watermarks=None)


def compare_transformed(rule: str, suite, tally, pairs) -> None:
    """Run each original case and its transformed case in one call; the transformed case's observation,
    without its watermarks, must equal the original's moved by the pair's position map."""
    pairs = list(pairs)
    cases = [c for original, transformed, _ in pairs for c in (original, transformed)]
    observed = suite.run(cases, tally)
    for (_, transformed, position), got, want in zip(pairs, observed[1::2], observed[::2], strict=True):
        expected = remapped(without_watermarks(want), position)
        detail = difference(expected, without_watermarks(got))
        if detail:
            raise violation(rule, transformed, got, detail, expected=expected)


def with_idle_channel(case: Case) -> Case:
    """`case` with one more channel, marked idle by its source before anything else and silent after."""
    return replace(case, channels=case.channels + 1,
                   events=(WatermarkStatus(case.channels, True), *case.events))


@property_settings()
@given(data=st.data())
def test_idle_channel_does_not_hold_windows_back(data, suite, tally):
    """A channel idle from the start leaves the valve's aligned set (`StatusWatermarkValve.
    inputWatermarkStatus`): adding one changes nothing but positions (one later, for the status)."""
    if not {"channels", "channel.status"} <= suite.features:
        return
    batch = draw_batch(data, suite, mode="explicit")
    compare_transformed("an idle channel does not hold windows back", suite, tally,
                        ((c, with_idle_channel(c), lambda at: at + 1) for c in batch))


def split_channel(case: Case, sides: list[bool]) -> tuple[Case, object]:
    """`case` (one channel, explicit watermarks) on two channels: record `i` goes to channel
    `sides[i % len(sides)]`, and every watermark goes to both channels, channel 0 then channel 1, so
    both channels see the same watermarks and their minimum is the original's after the second copy.
    Returns the split case and the map from the original's positions to the split one's."""
    events, position = [], {}
    for at, e in enumerate(case.events):
        if isinstance(e, Watermark):
            events += [Watermark(e.timestamp, 0), Watermark(e.timestamp, 1)]
        else:
            events.append(replace(e, channel=int(sides[at % len(sides)])))
        position[at] = len(events) - 1
    position[len(case.events)] = len(events)
    return replace(case, channels=2, events=tuple(events)), position.__getitem__


@property_settings()
@given(data=st.data())
def test_splitting_a_channel_changes_nothing_but_positions(data, suite, tally):
    """Splitting one channel's records between two channels that both receive every watermark (the
    valve's minimum over two equal channels is their watermark) changes the outputs only by position."""
    if "channels" not in suite.features:
        return
    batch = draw_batch(data, suite, mode="explicit", channels=1)
    sides = data.draw(st.lists(st.booleans(), min_size=1, max_size=4), label="sides")
    compare_transformed("splitting a channel changes nothing but positions", suite, tally,
                        ((c, *split_channel(c, sides)) for c in batch))


@property_settings(share=2.0)
@given(data=st.data())
def test_watermark_cases_match_reference(data, suite, tally):
    """The differential on mixed watermark cases (any trigger, lateness, processing time beside the
    generators and the valve, `strategies.watermarks`): every observation, watermarks included, is the
    reference's."""
    if not any(f.startswith("watermark.") for f in suite.features) and "channels" not in suite.features:
        return
    compare_with_reference(suite, tally, draw_batch(data, suite, mixed=True))

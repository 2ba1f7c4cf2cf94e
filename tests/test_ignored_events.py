"""Events an implementation may ignore (docs/format.md, "events"; docs/protocol.md): a `processing_time` event
reaches an implementation whatever features it declares, and to one that declares no feature that reads the
clock (`CLOCK_FEATURES`) it changes nothing: its cases answer the same without their clock readings, but for the
positions, which count them."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from reference.implementation import simulate
from strategies import cases
from strategies.watermarks import generated_watermark_cases
from window_contract.case import Case, ProcessingTime
from window_contract.features import ALL_FEATURES, required_features
from window_contract.observation import Observation, remapped

#: The features whose cases read the processing-time clock: processing-time windows and triggers, periodic watermark
#: emission, idleness.
CLOCK_FEATURES = frozenset({"time.processing", "trigger.after_end_of_window.delay", "watermark.periodic",
                            "watermark.idleness"})
#: An implementation that declares everything else.
CLOCKLESS = ALL_FEATURES - CLOCK_FEATURES
DRAWN = st.one_of(cases(CLOCKLESS, report=False), generated_watermark_cases(CLOCKLESS, mixed=True))


def has_clock_readings(case: Case) -> bool:
    return any(isinstance(e, ProcessingTime) for e in case.events)


def test_the_suite_sends_clock_readings_to_an_implementation_that_declares_no_clock():
    found = find(DRAWN, has_clock_readings, settings=settings(derandomize=True, database=None, max_examples=500))
    assert not required_features(found) & CLOCK_FEATURES


def answered(observation: Observation, position=lambda at: at) -> tuple:
    """What an implementation is held to, with its positions moved by `position`."""
    moved = remapped(observation, position)
    watermarks = None if observation.watermarks is None else [
        (position(w.at), w.watermark) for w in observation.watermarks]
    return moved, watermarks


@settings(derandomize=True, database=None, max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=DRAWN.filter(has_clock_readings))
def test_clock_readings_change_nothing_but_positions_for_a_case_that_needs_no_clock(case):
    kept = [i for i, e in enumerate(case.events) if not isinstance(e, ProcessingTime)]
    without = replace(case, events=tuple(case.events[i] for i in kept))

    def position(at: int) -> int:
        """The index in `case` of the event at `at` in the case without the clock readings; the end stays the end."""
        return kept[at] if at < len(kept) else len(case.events)

    assert answered(simulate(case)) == answered(simulate(without), position)

"""Which features a case needs, and the implementation registry."""

import pytest

from window_contract import (
    LONG_MAX,
    Case,
    ContinuousProcessingTimeTrigger,
    CountEvictor,
    CountTrigger,
    EventTimeTrigger,
    count_window,
    load_implementation,
    purging,
    record,
    session,
    sliding,
    tumbling,
    watermark,
)
from window_contract.case import BoundedOutOfOrdernessWatermarks, EndOfChannel, WatermarkStatus
from window_contract.features import FEATURES, required_features
from window_contract.implementation import ImplementationNotFound


def test_a_plain_tumbling_case_needs_only_its_assigner():
    assert required_features(Case(window=tumbling(10), events=[record("a", 1, 5), watermark(LONG_MAX)])) == {
        "assigner.tumbling"}


def test_features_follow_the_spec_and_the_stream():
    case = Case(window=sliding(10, 5, offset=2, time="processing"), trigger=purging(ContinuousProcessingTimeTrigger(3)),
                evictor=CountEvictor(2, after=True), allowed_lateness=4, late_side_output=True, end_of_input=False,
                events=[record("a", 1, -1)])
    assert required_features(case) == {
        "assigner.sliding", "time.processing", "offset", "trigger.purging", "trigger.continuous_processing_time",
        "evictor.count", "evictor.after", "allowed_lateness", "late_side_output", "unbounded_input",
        "negative_timestamps"}


def test_extreme_values_are_their_own_feature_but_max_lateness_and_end_watermark_are_not():
    assert "extreme_values" in required_features(Case(window=tumbling(10), events=[record("a", 1, -(2**62))]))
    assert "extreme_values" in required_features(Case(window=session(2**62)))
    case = Case(window=tumbling(10), allowed_lateness=LONG_MAX, events=[watermark(LONG_MAX)])
    assert "extreme_values" not in required_features(case)



def test_an_input_whose_every_channel_ends_idle_has_no_end_for_the_operator():
    """Flink drops the end's Long.MAX_VALUE of a channel that is idle: only a channel active when it ends, or a
    generator's channel, lets the window operator see the end of input."""
    idle = [WatermarkStatus(0, True), record("a", 1, 5), WatermarkStatus(1, True)]
    assert "unbounded_input" in required_features(Case(window=tumbling(10), channels=2, events=idle))
    active_again = [*idle, WatermarkStatus(1, False)]
    assert "unbounded_input" not in required_features(Case(window=tumbling(10), channels=2, events=active_again))
    ended_active = [WatermarkStatus(0, True), record("a", 1, 5), EndOfChannel(1)]
    assert "unbounded_input" not in required_features(Case(window=tumbling(10), channels=2, events=ended_active))
    generated = Case(window=tumbling(10), channels=2, watermark_generator=BoundedOutOfOrdernessWatermarks(0),
                     events=[record("a", 1, 5)])
    assert "unbounded_input" not in required_features(generated)

def test_every_needed_feature_is_a_named_feature():
    cases = [Case(window=count_window(3, 1)), Case(window=session(3), trigger=CountTrigger(2)),
             Case(window=tumbling(3), trigger=EventTimeTrigger())]
    for case in cases:
        assert required_features(case) <= set(FEATURES)


def test_registry_loads_by_name_and_by_module_path():
    assert load_implementation("reference").name == "reference"
    assert load_implementation("reference.implementation:flink_1_12_variant").name == "reference-flink-1.12"


@pytest.mark.parametrize("spec", ["nonsense", "no.such.module:factory", "reference.implementation:nothing",
                                  "window_contract.case:LONG_MAX"])
def test_registry_explains_what_it_cannot_load(spec):
    with pytest.raises(ImplementationNotFound):
        load_implementation(spec)


class Costly:
    name = "costly"
    features = frozenset({"assigner.tumbling"})
    costly_calls = True

    def run(self, cases):
        return []


def test_costly_calls_is_part_of_the_protocol_with_its_default():
    plain = load_implementation("reference")
    assert plain.costly_calls is False and plain.name == "reference"
    assert load_implementation(f"{__name__}:Costly").costly_calls is True

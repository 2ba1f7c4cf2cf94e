"""Invariants any implementation must satisfy, without the reference."""

from fixture_cases import across_examples, tumbling_cases
from hypothesis import event, given

from conformance.evidence import PropertyViolation
from window_contract.features import required_features
from window_contract.observation import TimeWindow


@across_examples
@given(case=tumbling_cases())
def test_firing_timestamp_is_max_timestamp(case, impl, tally):
    if not required_features(case) <= impl.features:
        return
    tally.add([case])
    [observation] = impl.run([case])
    event(f"firings: {min(len(observation.firings), 2)}{'+' if len(observation.firings) >= 2 else ''}")
    for firing in observation.firings:
        if isinstance(firing.window, TimeWindow) and firing.timestamp != firing.window.end - 1:
            raise PropertyViolation(
                "a firing's timestamp is its window's maxTimestamp (end - 1)", case, actual=observation
            )


@across_examples
@given(case=tumbling_cases())
def test_every_record_is_accounted_for(case, impl, tally):
    if not required_features(case) <= impl.features:
        return
    tally.add([case])
    [observation] = impl.run([case])
    seen = sorted(
        [v for f in observation.firings for v in f.values]
        + [r.value for r in observation.late + observation.dropped]
    )
    if seen != sorted(r.value for r in case.records):
        raise PropertyViolation(
            "every record of a tumbling window fires once or is late", case, actual=observation
        )

"""Differential: the implementation gives the reference's observation."""

from fixture_cases import across_examples, tumbling_cases
from hypothesis import given

from conformance.evidence import PropertyViolation
from window_contract.equivalence import equivalent
from window_contract.features import required_features


@across_examples
@given(case=tumbling_cases())
def test_agrees_with_reference(case, impl, reference, tally):
    if not required_features(case) <= impl.features:
        return
    tally.add([case])
    [actual], [expected] = impl.run([case]), reference.run([case])
    if not equivalent(expected, actual):
        raise PropertyViolation(
            "the implementation's observation equals the reference's", case, actual=actual, expected=expected
        )

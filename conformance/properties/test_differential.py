"""Differential: the implementation observes what the reference observes, case by case.

Each example is a batch of cases sent in one `run` call; the first case that differs is reported
alone, so shrinking ends with one minimal case.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.difference import difference
from conformance.properties.harness import property_settings, violation
from strategies import case_batches, extreme_cases

RULE = "the implementation's observation is equivalent to the reference's"


def _compare(suite, tally, batch) -> None:
    actual = suite.run(batch, tally)
    for case, got, want in zip(batch, actual, suite.expected(batch), strict=True):
        detail = difference(want, got)
        if detail:
            raise violation(RULE, case, got, detail, expected=want)


@property_settings(share=3.0)
@given(data=st.data())
def test_matches_reference(data, suite, tally):
    """The suite's main killer: the most examples, and larger batches (one `run` call each)."""
    _compare(suite, tally, data.draw(case_batches(suite.features, max_size=12), label="batch"))


@property_settings(share=0.5)
@given(data=st.data())
def test_matches_reference_at_long_extremes(data, suite, tally):
    """Opt-in: only for implementations that declare `extreme_values` (Java long wrap-around)."""
    if "extreme_values" not in suite.features:
        return
    _compare(suite, tally, data.draw(st.lists(extreme_cases(suite.features), min_size=1, max_size=6),
                                     label="batch"))

"""Differential: the implementation observes what the reference observes, case by case.

Each example is a batch of cases sent in one `run` call; the first case that differs is reported
alone, so shrinking ends with one minimal case.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import compare_with_reference, property_settings
from strategies import case_batches, extreme_cases


@property_settings(share=3.0)
@given(data=st.data())
def test_matches_reference(data, suite, tally):
    """The suite's main killer: the most examples, and larger batches (one `run` call each), bursts of
    periodic timers among them (`strategies.bursts`)."""
    compare_with_reference(suite, tally, data.draw(case_batches(suite.features, max_size=12, bursts=True),
                                                   label="batch"))


@property_settings(share=0.5)
@given(data=st.data())
def test_matches_reference_at_long_extremes(data, suite, tally):
    """Opt-in: only for implementations that declare `extreme_values` (Java long wrap-around)."""
    if "extreme_values" not in suite.features:
        return
    compare_with_reference(suite, tally, data.draw(st.lists(extreme_cases(suite.features), min_size=1, max_size=6),
                                     label="batch"))

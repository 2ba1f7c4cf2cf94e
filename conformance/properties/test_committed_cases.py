"""The committed cases: every case of `cases/` (Flink's own scenarios, the cases confirmed on real Flink,
the engines' divergences with Flink's observation) and of `corpus/` (the generated corpus the reference
and real Flink agree on) whose features the implementation declares, replayed in one `run` call against
the observation the case file expects (`expected`, Flink's). An implementation that declares the
features of none of them is not held to the rule (not applicable)."""

from __future__ import annotations

import functools

from hypothesis import given
from hypothesis import strategies as st

from conformance.committed import committed
from conformance.corpus import is_corpus_index
from conformance.evidence import PropertyViolation
from conformance.properties.harness import property_settings
from conformance.runner.output import is_run_file
from window_contract.case import Case
from window_contract.case_json import case_files, load_cases
from window_contract.difference import difference

#: The folders of committed cases, in the order they are replayed.
COMMITTED = (committed("cases"), committed("corpus"))

RULE = "a committed case gives the observation its file expects (Flink's)"


@functools.cache
def committed_cases() -> tuple[Case, ...]:
    """Every case with an `expected` observation in the committed case files (not the corpus's index
    nor a run's manifest), each once; a file that does not load fails its own tests, not this rule."""
    files = [f for f in case_files(list(COMMITTED)) if not is_corpus_index(f) and not is_run_file(f)]
    found = [case for f in files for case in load_cases(f) if case.expected is not None]
    return tuple(dict.fromkeys(found))


@property_settings()
@given(data=st.data())
def test_committed_cases_give_their_expected_observations(data, suite, tally):
    """Each committed case the implementation declares the features of gives an observation equivalent
    to the one its file expects (as the differential compares: without positions for a position-free
    implementation). A Hypothesis test that draws nothing, so that it runs once, as every property runs
    (prefetched, recorded and replayed alike)."""
    cases = [c for c in committed_cases() if suite.fits(c)]
    if not cases:
        return  # no case sent: not applicable to the implementation
    positions = not suite.position_free
    for case, got in zip(cases, suite.run(cases, tally), strict=True):
        detail = difference(case.expected, got, positions=positions)
        if detail:
            raise PropertyViolation(RULE, case, got, case.expected, detail)

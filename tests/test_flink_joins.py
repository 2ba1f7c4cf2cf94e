"""Real Flink 2.3 against the model of its DataStream joins: the hand cases of `cases/joins/` (each with the
observation Flink gave when it was written) and generated cases (`strategies.joins`), every batch one Flink job for
the interval joins and one for the window joins (`flink_impl.joins`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from costly_examples import not_the_simplest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from flink_impl.implementation import FlinkImplementation
from reference.joins import simulate_join
from strategies.joins import join_cases
from window_contract.features import join_required_features
from window_contract.join_case import join_case_to_json
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import join_equivalent

pytestmark = pytest.mark.flink

ROOT = Path(__file__).resolve().parent.parent
#: A batch of cases is a job: no shrinking, which would run one per step; the note names the smallest case that
#: disagrees.
NO_SHRINKING = (Phase.explicit, Phase.reuse, Phase.generate)


def test_flink_gives_what_each_hand_case_expects():
    flink = FlinkImplementation()
    cases = [c for p in sorted((ROOT / "cases").rglob("*.join.json")) for c in load_join_cases(p)
             if join_required_features(c) <= flink.features]  # the SQL joins' are flink-sql's
    observations = flink.run_joins(cases)
    assert len(cases) >= 20
    assert [c.name for c, o in zip(cases, observations, strict=True) if not join_equivalent(o, c.expected)] == []


@settings(max_examples=1, deadline=None, phases=NO_SHRINKING, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(st.lists(join_cases(), min_size=60, max_size=60))
def test_the_model_agrees_with_flink_on_generated_cases(cases):
    not_the_simplest(cases)
    disagreeing = [(c, o) for c, o in zip(cases, FlinkImplementation().run_joins(cases), strict=True)
                   if not join_equivalent(simulate_join(c), o)]
    for case, flink in sorted(disagreeing, key=lambda d: len(d[0].events))[:1]:
        note(f"case: {join_case_to_json(case)}\nmodel: {simulate_join(case)}\nflink: {flink}")
    assert disagreeing == []

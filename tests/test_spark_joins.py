"""Spark's DataStream joins (`spark_impl.joins`, written from Flink's classes): the hand cases of `cases/joins/`
against what Flink gave, and generated cases against the model (which `tests/test_flink_joins.py` checks against
Flink on the same strategy). Each batch is a few Spark jobs on one shared session."""

from __future__ import annotations

from pathlib import Path

import pytest
from costly_examples import not_the_simplest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from reference.joins import simulate_join
from spark_impl.implementation import SparkImplementation
from strategies.joins import join_cases
from window_contract.features import join_required_features
from window_contract.join_case import join_case_to_json
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import join_equivalent

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parent.parent
#: A batch of cases is a job: no shrinking, which would run one per step; the note names the smallest case that
#: disagrees.
NO_SHRINKING = (Phase.explicit, Phase.reuse, Phase.generate)


@pytest.fixture(scope="module")
def spark():
    return SparkImplementation()


def test_spark_gives_what_flink_gave_for_each_hand_case(spark):
    cases = [c for p in sorted((ROOT / "cases").rglob("*.join.json")) for c in load_join_cases(p)
             if join_required_features(c) <= spark.features]  # the SQL joins' are flink-sql's
    observations = spark.run_joins(cases)
    assert len(cases) >= 20
    assert [c.name for c, o in zip(cases, observations, strict=True) if not join_equivalent(o, c.expected)] == []


@settings(max_examples=1, deadline=None, phases=NO_SHRINKING, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture,
    HealthCheck.large_base_example])
@given(cases=st.lists(join_cases(), min_size=80, max_size=80))
def test_spark_agrees_with_the_model_on_generated_cases(spark, cases):
    not_the_simplest(cases)
    disagreeing = [(c, o) for c, o in zip(cases, spark.run_joins(cases), strict=True)
                   if not join_equivalent(simulate_join(c), o)]
    for case, observed in sorted(disagreeing, key=lambda d: len(d[0].events))[:1]:
        note(f"case: {join_case_to_json(case)}\nmodel: {simulate_join(case)}\nspark: {observed}")
    assert disagreeing == []

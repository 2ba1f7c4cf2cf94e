"""Real Flink 2.3 against the model of its SQL window and interval joins: the hand cases of `cases/joins/sql/` (each
with the observation Flink gave when it was written) and generated cases (`strategies.joins.sql_window_joins`,
`sql_interval_joins`), each batch one Flink job of the queries a SQL user writes (`flink_impl.sql_joins`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from costly_examples import not_the_simplest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from flink_impl.sql import FlinkSqlImplementation
from reference.joins import simulate_join
from strategies.joins import join_cases, sql_interval_joins, sql_window_joins
from window_contract.join_case import join_case_to_json
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import join_equivalent

pytestmark = pytest.mark.flink

ROOT = Path(__file__).resolve().parent.parent
NO_SHRINKING = (Phase.explicit, Phase.reuse, Phase.generate)


def test_flink_sql_gives_what_each_hand_case_expects():
    flink = FlinkSqlImplementation()
    assert {"join.sql_window", "join.sql_interval"} <= flink.features
    cases = [c for p in sorted((ROOT / "cases" / "joins" / "sql").glob("*.join.json")) for c in load_join_cases(p)]
    assert len(cases) >= 29
    observations = flink.run_joins(cases)
    assert [c.name for c, o in zip(cases, observations, strict=True) if not join_equivalent(o, c.expected)] == []


#: One batch of random cases, one job (`not_the_simplest`: not Hypothesis's first example, one case thirty times).
@settings(max_examples=1, deadline=None, phases=NO_SHRINKING, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(st.lists(join_cases(specs=sql_window_joins() | sql_interval_joins()), min_size=30, max_size=30))
def test_the_model_agrees_with_flink_sql_on_generated_cases(cases):
    not_the_simplest(cases)
    disagreeing = [(c, o) for c, o in zip(cases, FlinkSqlImplementation().run_joins(cases), strict=True)
                   if not join_equivalent(simulate_join(c), o)]
    for case, flink in sorted(disagreeing, key=lambda d: len(d[0].events))[:1]:
        note(f"case: {join_case_to_json(case)}\nmodel: {simulate_join(case)}\nflink: {flink}")
    assert disagreeing == []

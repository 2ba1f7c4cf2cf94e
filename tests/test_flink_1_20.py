"""Flink 1.20, the LTS release, as a version column: `flink-1.20` (the DataStream harness) and `flink-sql-1.20`.

The same runner, compiled against Flink 1.20.3's jars from Maven Central (`flink_impl/flink-1.20/pom.xml`, with the
1.20 shim), replays the project's hand cases and the corpus, whose expected observations are Flink 2.3's: every
difference must be one that 1.20's list of divergences explains (`cases/engines/flink-1.20/divergences.toml`, which
its porting page's prose (`cases/engines/flink-1.20/about.md`) says in words; `tests/test_divergences.py` holds the
list and `flink-sql-1.20`'s to their engines). Its DataStream joins (`flink_impl/joins.py` on 1.20's jars) give what
2.3 gave for every hand join case and agree with the model on generated ones, but where the list's join divergence
says: when every input of an interval join is idle, 2.3's operator watermark rises to the highest of its inputs'
(`CombinedWatermarkStatus`), 1.20's stays where it was.
"""

from __future__ import annotations

import pytest
from costly_examples import not_the_simplest
from engine_pages import ROOT
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

from conformance.corpus import is_corpus_index
from conformance.divergences import attribute, engine_divergences
from conformance.runner.output import is_run_file
from flink_impl.toolchain import find_build
from reference.joins import simulate_join
from strategies.joins import join_cases
from window_contract import load_implementation
from window_contract.case_json import case_files, load_cases
from window_contract.features import ALL_FEATURES, JOIN_NAMES, join_required_features, required_features
from window_contract.join_case import join_case_to_json
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import join_difference

#: The whole file is Flink 1.20's step of `./dev test` (its manifest's [ci]).
pytestmark = [pytest.mark.flink, pytest.mark.engine_suite]


@pytest.fixture(scope="module")
def flink_1_20():
    return load_implementation("flink-1.20")


def test_the_runner_is_built_on_flink_1_20_from_maven():
    jars = {jar.name for jar in find_build("1.20", sql=True).jars}
    assert {"flink-streaming-java-1.20.3.jar", "flink-runtime-1.20.3.jar", "flink-table-runtime-1.20.3.jar",
            "flink-table-planner-loader-1.20.3.jar"} <= jars
    assert not any(name.endswith("-2.3.0.jar") for name in jars)


def test_declares_every_feature_but_the_table_runtimes_and_the_datastream_joins(flink_1_20):
    """Flink SQL's `CUMULATE` has no DataStream assigner, nor its emit strategy a DataStream trigger."""
    assert flink_1_20.name == "flink-1.20"
    assert flink_1_20.features == (ALL_FEATURES - {"assigner.cumulative", "trigger.after_end_of_window",
                                                   "trigger.after_end_of_window.delay"}) | JOIN_NAMES


def test_its_joins_differ_from_flink_2_3_on_the_hand_join_cases_only_as_its_list_says(flink_1_20):
    """Every hand join case of the DataStream joins (`cases/joins/`, and the list's own) gives 2.3's observation on
    1.20 or differs as the list's join divergence explains; some do differ (the list's case among them)."""
    cases = [c for p in sorted((ROOT / "cases").rglob("*.join.json")) for c in load_join_cases(p)
             if join_required_features(c) <= flink_1_20.features]  # the SQL joins' are flink-sql's
    assert len(cases) >= 30
    divergences = engine_divergences("flink-1.20")
    found = [attribute(c, c.expected, o, divergences) for c, o in zip(cases, flink_1_20.run_joins(cases), strict=True)]
    assert [f"{a.case.name}: {a.unexplained}" for a in found if a.explained_by is None] == []
    differing = {a.case.name for a in found if a.explained_by}
    assert len(differing) >= 3 and all(a.explained_by == ("flink-1.20.watermark-kept-when-inputs-idle",)
                                       for a in found if a.explained_by)


@settings(max_examples=1, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate), suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(cases=st.lists(join_cases(), min_size=60, max_size=60))
def test_its_joins_agree_with_the_model_on_generated_cases(flink_1_20, cases):
    """One batch (two jobs: the window joins on the runner, the interval joins on `JoinRunner`), not shrunk: the
    note names the smallest case that disagrees. Where it differs from the model (Flink 2.3), its list explains it
    (the module's docstring)."""
    not_the_simplest(cases)
    divergences = engine_divergences("flink-1.20")
    disagreeing = [(c, o) for c, o in zip(cases, flink_1_20.run_joins(cases), strict=True)
                   if attribute(c, simulate_join(c), o, divergences).explained_by is None]
    for case, flink in sorted(disagreeing, key=lambda d: len(d[0].events))[:1]:
        note(f"case: {join_case_to_json(case)}\n{join_difference(simulate_join(case), flink)}")
    assert disagreeing == []


@pytest.mark.parametrize("folder", ["cases", "corpus"])
def test_it_differs_from_2_3_exactly_where_its_list_says(flink_1_20, folder):
    """Every hand window case (or corpus case) of the features it declares whose 1.20 observation differs from 2.3's
    shows divergences of 1.20's list (`cases/engines/flink-1.20/divergences.toml`); the hand cases show each of its
    window divergences (the join divergence, the hand join cases above)."""
    files = [p for p in case_files([ROOT / folder]) if not is_corpus_index(p) and not is_run_file(p)]
    cases = [c for p in files for c in load_cases(p)
             if c.expected is not None and required_features(c) <= flink_1_20.features]
    divergences = engine_divergences("flink-1.20")
    unexplained, shown = [], set()
    for case, observation in zip(cases, flink_1_20.run(cases), strict=True):
        found = attribute(case, case.expected, observation, divergences)
        if found.explained_by is None:
            unexplained.append(f"{case.name}: {found.unexplained}")
        shown |= set(found.explained_by or ())
    assert not unexplained, "\n".join(unexplained)
    assert shown == {d.id for d in divergences if not d.is_join} or folder == "corpus"


def test_flink_sql_1_20_answers_as_flink_sql_but_for_the_words_of_its_rejections():
    """On every case of the SQL section, Flink 1.20's SQL emits what 2.3's does; where both reject the query,
    1.20 words it differently (the section's last point)."""
    cases = [c for p in sorted((ROOT / "cases" / "engines" / "flink-sql").glob("*.json")) for c in load_cases(p)]
    old, new = load_implementation("flink-sql-1.20").run(cases), load_implementation("flink-sql").run(cases)
    reworded = 0
    for before, now in zip(old, new, strict=True):
        if before.error is not None and now.error is not None and before.error.kind == now.error.kind:
            reworded += before.error.message != now.error.message
            before, now = before.firings, now.firings
        assert before == now
    assert reworded == 4  # the messages, and a negative table.exec.source.idle-timeout


def test_flink_sql_1_20_runs_the_sql_joins_and_differs_from_2_3_only_as_its_list_says():
    """Flink SQL's window and interval joins on 1.20 (the SQL join runner on its jars): every hand SQL join case gives
    2.3's observation or differs as `flink-sql-1.20`'s join divergences explain, and the list's join cases differ."""
    engine = load_implementation("flink-sql-1.20")
    assert {"join.sql_window", "join.sql_interval"} <= engine.features
    divergences = [d for d in engine_divergences("flink-sql-1.20") if d.is_join]
    cases = [c for p in sorted((ROOT / "cases" / "joins" / "sql").glob("*.join.json")) for c in load_join_cases(p)]
    cases += [c for d in divergences for c in d.cases()]
    found = [attribute(c, c.expected, o, divergences) for c, o in zip(cases, engine.run_joins(cases), strict=True)]
    assert [f"{a.case.name}: {a.unexplained}" for a in found if a.explained_by is None] == []
    assert {d for a in found for d in a.explained_by} == {d.id for d in divergences}

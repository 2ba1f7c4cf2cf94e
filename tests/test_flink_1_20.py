"""Flink 1.20, the LTS release, as a version column: `flink-1.20` (the DataStream harness) and `flink-sql-1.20`.

The same runner, compiled against Flink 1.20.3's jars from Maven Central (`flink_impl/flink-1.20/pom.xml`, with the
1.20 shim), replays the project's hand cases and the corpus, whose expected observations are Flink 2.3's: every
difference must be one that 1.20's list of divergences explains (`cases/engines/flink-1.20/divergences.toml`, which
its porting page's prose (`cases/engines/flink-1.20/about.md`) says in words; `tests/test_divergences.py` holds the
list and `flink-sql-1.20`'s to their engines).
"""

from __future__ import annotations

import pytest
from engine_pages import ROOT

from conformance.corpus import is_corpus_index
from conformance.divergences import attribute, engine_divergences
from conformance.runner.output import is_run_file
from flink_impl.toolchain import find_build
from window_contract import load_implementation
from window_contract.case_json import case_files, load_cases
from window_contract.features import ALL_FEATURES, required_features

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


def test_declares_every_feature_but_the_table_runtimes(flink_1_20):
    """Flink SQL's `CUMULATE` has no DataStream assigner, nor its emit strategy a DataStream trigger."""
    assert flink_1_20.name == "flink-1.20" and flink_1_20.features == ALL_FEATURES - {
        "assigner.cumulative", "trigger.after_end_of_window"}


@pytest.mark.parametrize("folder", ["cases", "corpus"])
def test_it_differs_from_2_3_exactly_where_its_list_says(flink_1_20, folder):
    """Every hand case (or corpus case) of the features it declares whose 1.20 observation differs from 2.3's shows
    divergences of 1.20's list (`cases/engines/flink-1.20/divergences.toml`); the hand cases show each of them."""
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
    assert shown == {d.id for d in divergences} or folder == "corpus"


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

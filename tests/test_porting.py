"""The porting pages (`conformance.porting`): the committed pages are what the sources make, every switch, explainer
and cause has its area, the features each page shows are the adapters' own, each switch divergence's page shows
the engine differing, and every link of the repository's Markdown resolves."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
from engine_pages import ROOT

from conformance import causes, divergences
from conformance.divergences import engine_divergences, model_of
from conformance.porting import expected
from conformance.porting.__main__ import main
from conformance.porting.areas import AREAS, CAUSES, EXPLAINERS, SWITCHES, area
from conformance.porting.declared import declared_features
from conformance.porting.matrix import engines
from conformance.porting.pages import engine_dialect, relinked
from reference.dialects import Dialect

ENGINES = engines(ROOT)


def test_each_generated_page_is_what_its_sources_make():
    """After a change of an engine's `about.md`, list or adapter, `python -m conformance.porting` writes them."""
    stale = [str(path.relative_to(ROOT)) for path, text in expected(ROOT).items()
             if not path.is_file() or path.read_text(encoding="utf-8") != text]
    assert stale == [], f"out of date (python -m conformance.porting writes them): {stale}"
    assert main(["--check"]) == 0


def test_a_page_whose_source_changed_is_out_of_date(tmp_path, capsys):
    """`--check` compares the pages with what the sources make now: an edited `about.md` makes its page stale, and
    writing them brings it up to date."""
    root = tmp_path / "repo"
    shutil.copytree(ROOT / "cases" / "engines", root / "cases" / "engines")
    shutil.copytree(ROOT / "engines", root / "engines", ignore=shutil.ignore_patterns("target", "__pycache__"))
    shutil.copytree(ROOT / "docs" / "engines", root / "docs" / "engines")
    shutil.copy(ROOT / "README.md", root / "README.md")
    assert main(["--check"], root) == 0
    about = root / "cases" / "engines" / "bytewax" / "about.md"
    about.write_text(about.read_text(encoding="utf-8").replace("Bytewax 0.21", "Bytewax 0.22", 1), encoding="utf-8")
    assert main(["--check"], root) == 1
    assert capsys.readouterr().out == "out of date: docs/engines/bytewax.md (python -m conformance.porting writes it)\n"
    assert main([], root) == 0 and main(["--check"], root) == 0
    assert "Bytewax 0.22" in (root / "docs" / "engines" / "bytewax.md").read_text(encoding="utf-8")
    about.write_text("# Bytewax\n\n[a case](../bytewax/x.json)\n", encoding="utf-8")
    assert main(["--check"], root) == 2
    assert capsys.readouterr().err == (f"python -m conformance.porting: {about}: write links from the repository's "
                                       "root, not ../bytewax/x.json\n")


def test_links_are_written_from_the_repositorys_root_and_made_relative_to_the_page():
    page = Path("docs/engines/beam.md")
    assert relinked("[a](cases/engines/beam/x.json) [b](docs/format.md) [c](#here) [d](https://x.org)", page,
                    page) == "[a](../../cases/engines/beam/x.json) [b](../format.md) [c](#here) [d](https://x.org)"
    with pytest.raises(ValueError, match="from the repository's root"):
        relinked("[a](../x.md)", Path("cases/engines/beam/about.md"), page)


def test_every_switch_explainer_and_cause_has_an_area():
    assert set(SWITCHES) == {f.name for f in dataclasses.fields(Dialect)}
    assert set(EXPLAINERS) | {"fails"} == set(divergences.EXPLAINERS)
    assert set(CAUSES) == set(causes.CAUSES)
    assert set(SWITCHES.values()) | set(EXPLAINERS.values()) | set(CAUSES.values()) <= set(AREAS)
    assert all(area(d) in AREAS for engine in ENGINES for d in engine_divergences(engine))


@pytest.mark.parametrize("engine", ENGINES)
def test_each_switch_divergence_shows_the_engines_dialect_differing_from_flink(engine):
    """The engine's column of a switch divergence (its dialect of the model, all its switches) differs from Flink's
    observation on every case of the divergence: the page shows what the list says."""
    listed = engine_divergences(engine)
    switches = [d for d in listed if d.is_switch]
    for d in switches:
        for n, case in enumerate(d.cases()):
            model = model_of(case)
            assert not model.same(model.predict(engine_dialect(d, switches)), case.expected), (d.id, n)


def test_the_declared_features_are_the_adapters_own():
    """What the matrix reads from the sources is what the adapters that import here declare; every engine with a
    list has an adapter that declares its features."""
    from engines import pyflink_python, spark_streaming
    from flink_impl import sql
    assert declared_features("pyflink-python") == pyflink_python.FEATURES
    assert declared_features("spark-streaming") == spark_streaming.FEATURES
    assert declared_features("flink-sql-legacy") == sql.FLINK_SQL_LEGACY.features
    assert declared_features("kafka-streams-updates") == declared_features("kafka-streams")
    assert "trigger.event_time" in declared_features("hazelcast-jet")
    assert "assigner.global" in declared_features("beam") and "assigner.global" not in declared_features("bytewax")
    assert all(declared_features(engine) for engine in ENGINES)
    with pytest.raises(LookupError, match="no-such-engine"):
        declared_features("no-such-engine")


# --- links ----------------------------------------------------------------------------------------------

#: The repository's own Markdown: the README, the docs (the porting pages among them), the engines' prose.
MARKDOWN = sorted({ROOT / "README.md", *ROOT.glob("docs/**/*.md"), *ROOT.glob("benchmarks/*.md")})
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(markdown: str) -> set[str]:
    """The anchors of a page: its explicit `<a id>`s and its headings' as GitHub makes them."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", markdown, flags=re.S), re.M)
    slugs = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}
    return slugs | set(re.findall(r'<a id="([^"]+)"></a>', markdown))


@pytest.mark.parametrize("page", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_within_the_repository_resolves(page):
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(re.sub(r"```.*?```", "", text, flags=re.S)):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(target)
    assert broken == []


def test_the_html_report_links_the_matrix_and_each_engines_page(tmp_path):
    """Written in a clone, the report links the matrix and the page of each implementation that has one, relative
    to its folder; where the pages are not (an installed suite), it links nothing."""
    from reports import porting_links
    from reports.html import _porting
    document = {"implementations": [{"name": "reference"}, {"name": "beam"}]}
    out = tmp_path / "report"
    links = porting_links(document, out)
    assert set(links) == {"", "beam"}
    assert (out / links[""]).resolve() == ROOT / "docs" / "engines" / "README.md"
    assert (out / links["beam"]).resolve() == ROOT / "docs" / "engines" / "beam.md"
    assert f'href="{links["beam"]}">beam</a>' in _porting(links) and "the engines' matrix" in _porting(links)
    assert porting_links(document, out, pages=tmp_path / "nowhere") == {} and _porting({}) == ""

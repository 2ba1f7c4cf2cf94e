"""What the tests of every engine adapter hold it to: its README section.

Each engine has a section "## What changes when a Flink job moves to <engine>" that links one case file
per divergence (`cases/engines/<engine>/`) and lists, in a paragraph "Properties the suite finds broken
(...): ...; every other ...", the properties the suite finds broken. The suite run against the engine
must find exactly those broken, and each minimal counterexample must show a difference one of the
section's points explains.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conformance.divergences import attribute, engine_divergences
from conformance.manifest import engine as manifest
from window_contract.case_json import case_from_json
from window_contract.observation_json import observation_from_json

ROOT = Path(__file__).resolve().parent.parent

#: A README point, by its case file, and whether a counterexample of the suite (report.json's) shows it.
Explained = dict[str, Callable[[dict[str, Any]], Any]]


def readme_section(engine_title: str) -> str:
    """The README's section "## What changes when a Flink job moves to `engine_title`", up to the next one."""
    readme = (ROOT / "README.md").read_text()
    return readme.split(f"## What changes when a Flink job moves to {engine_title}", 1)[1].split("\n## ", 1)[0]


def engine_section(engine: str) -> str:
    """The README's section "## What changes ..." ("when a Flink job moves to ...", "between Flink 1.20 and 2.3")
    that links `engine`'s case files."""
    readme = (ROOT / "README.md").read_text()
    sections = readme.split("\n## What changes ")[1:]
    [section] = [s.split("\n## ", 1)[0] for s in sections if f"(cases/engines/{engine}/" in s.split("\n## ", 1)[0]]
    return section


def linked_divergence_files(section: str, engine: str) -> set[str]:
    """The names of the case files under `cases/engines/<engine>/` that `section` links."""
    return set(re.findall(rf"\(cases/engines/{re.escape(engine)}/([\w.-]+\.json)\)", section))


def documented_properties(section: str) -> set[str]:
    """The names the section's paragraph "Properties the suite finds broken (...): ...; every other ..." lists."""
    paragraph = section.split("\nProperties the suite finds broken", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"`(\w+)`", paragraph.split("):", 1)[1].split(";", 1)[0]))


def assert_the_suite_finds_what_the_section_names(out: Path, engine: str, section: str,
                                                  explained: Explained | None = None) -> None:
    """Run the property suite against `engine` on the budget of its manifest's `[ci]` (its profile, its
    properties or all, its request timeout; the whole run within its timeout), writing its report to `out`: it
    differs, on exactly the properties `section` lists, without errors, and every minimal counterexample shows a
    difference the engine's listed divergences explain (`conformance.divergences`), or, for an engine without a
    list yet, one of `explained` recognises."""
    budget = manifest(engine).ci
    selected = [arg for name in budget.properties for arg in ("--property", name)]
    requests = ("--request-timeout", str(budget.request_timeout)) if budget.request_timeout else ()
    run = subprocess.run([sys.executable, "-m", "conformance", "run", "--impl", engine, "--profile", budget.profile,
                          "--out", str(out), *requests, *selected], cwd=ROOT, capture_output=True, text=True,
                         timeout=budget.timeout)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    (impl,) = json.loads((out / "report.json").read_text())["implementations"]
    assert not impl["errors"] and impl["outcome"] == "differs"
    failing = {p["property"] for p in impl["properties"] if p["outcome"] == "failed"}
    assert failing == documented_properties(section)
    divergences = engine_divergences(engine)
    for failure in (f for p in impl["properties"] for f in p["failures"]):
        if explained is not None:
            shown = [name for name, shows in explained.items() if shows(failure)]
            assert shown, f"a divergence the README does not explain: {failure['difference']}"
            continue
        case = case_from_json(failure["case"])
        flink = observation_from_json(failure["reference"])
        actual = observation_from_json(failure["actual"], position_free=impl_position_free(failure["actual"]))
        found = attribute(case, flink, actual, divergences, positions=not impl_position_free(failure["actual"]))
        assert found.explained_by is not None, f"a divergence the list does not explain: {found.unexplained}"


def impl_position_free(observation: dict[str, Any]) -> bool:
    """Whether an observation of the report is a position-free engine's (`"at": null` in its outputs)."""
    outputs = [x for part in ("firings", "late", "dropped", "watermarks") for x in observation.get(part) or ()]
    return any(x.get("at") is None for x in outputs)

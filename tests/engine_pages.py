"""What the tests of every engine adapter hold it to: the prose of its porting page.

Each engine's folder holds `cases/engines/<engine>/about.md`, the hand-written part of its page
(`docs/engines/<engine>.md`, made by `python -m conformance.porting`), which links one case file per divergence
(`cases/engines/<engine>/`) and lists, in a paragraph "Properties the suite finds broken (...): ...; every
other ...", the properties the suite finds broken. The suite run against the engine must find exactly those
broken, and each minimal counterexample must show a difference one of the page's points explains.
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
from window_contract.case import Case
from window_contract.case_json import case_from_json
from window_contract.join_case import JOIN_CASE_FORMAT, JoinCase
from window_contract.join_case_json import join_cases_from_json
from window_contract.observation_json import observation_from_json
from window_contract.process import read_join_observation

ROOT = Path(__file__).resolve().parent.parent

#: A point of the page, by its case file, and whether a counterexample of the suite (report.json's) shows it.
Explained = dict[str, Callable[[dict[str, Any]], Any]]


def about(engine: str) -> str:
    """The prose of `engine`'s porting page: `cases/engines/<engine>/about.md`."""
    return (ROOT / "cases" / "engines" / engine / "about.md").read_text(encoding="utf-8")


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
            assert shown, f"a divergence the page does not explain: {failure['difference']}"
            continue
        found = attribute(*counterexample(failure), divergences, positions=not impl_position_free(failure["actual"]))
        assert found.explained_by is not None, f"a divergence the list does not explain: {found.unexplained}"


def counterexample(failure: dict[str, Any]) -> tuple[Case | JoinCase, Any, Any]:
    """A counterexample of the report: its case, the reference's observation and the engine's (a join case's
    `join-observation/1`s, which always have their positions)."""
    if failure["case"]["format"] == JOIN_CASE_FORMAT:
        (case,) = join_cases_from_json(failure["case"])
        return case, *(read_join_observation(failure[part], part) for part in ("reference", "actual"))
    actual = observation_from_json(failure["actual"], position_free=impl_position_free(failure["actual"]))
    return case_from_json(failure["case"]), observation_from_json(failure["reference"]), actual


def impl_position_free(observation: dict[str, Any]) -> bool:
    """Whether an observation of the report is a position-free engine's (`"at": null` in its outputs)."""
    outputs = [x for part in ("firings", "late", "dropped", "watermarks") for x in observation.get(part) or ()]
    return any(x.get("at") is None for x in outputs)

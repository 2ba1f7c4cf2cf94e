"""Every counterexample of a run as a case file that `replay --check` reproduces.

A violation carries its minimal case and what the implementation observed. The case file adds the
reference's observation as `expected` (`window-case/1`), so that

    python -m conformance replay FILE --impl NAME --check

fails for the implementation that broke the property. The reference runs here, in the run, because
the reports only render.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from conformance.case_json import case_from_json, case_to_json
from conformance.implementation import load_implementation
from conformance.observation_json import observation_to_json

FOLDER = "counterexamples"


def slug(text: str) -> str:
    """A file-name-safe form of an implementation or property name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def unique_name(stem: str, used: set[str]) -> str:
    """`stem.json`, or `stem-2.json`... when Hypothesis found several distinct failures."""
    name, n = f"{stem}.json", 1
    while name in used:
        n += 1
        name = f"{stem}-{n}.json"
    used.add(name)
    return name


def save_counterexamples(implementations: list[dict[str, Any]], out: Path) -> int:
    """Write one case file per failure and note in each failure its `case_file` and `reference`."""
    failures = [
        (impl, prop, failure)
        for impl in implementations
        for prop in impl["properties"]
        for failure in prop["failures"]
    ]
    if not failures:
        return 0
    cases = [case_from_json(failure["case"]) for _, _, failure in failures]
    observations = load_implementation("reference").run(cases)
    folder = out / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    for (impl, prop, failure), case, observation in zip(failures, cases, observations, strict=True):
        stem = f"{slug(impl['name'])}--{slug(prop['property'])}"
        name = unique_name(stem, used)
        named = dataclasses.replace(
            case, name=case.name or f"{prop['property']} on {impl['name']}", expected=observation
        )
        (folder / name).write_text(json.dumps(case_to_json(named), indent=2) + "\n", encoding="utf-8")
        failure["reference"] = observation_to_json(observation)
        failure["case_file"] = f"{FOLDER}/{name}"
    return len(failures)

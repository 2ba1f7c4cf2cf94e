"""Every counterexample of a run as a case file that `replay --check` reproduces.

A violation carries its minimal case and what the implementation observed. The case file adds the
reference's observation as `expected` (`window-case/1`), so that

    python -m conformance replay FILE --impl NAME --check

fails for the implementation that broke the property: the file names the property (`violates`) with what
its rule compared the case with, and `replay --check` checks that property again. The reference runs
here, in the run, because the reports only render.

A join property's counterexample is a join case (`join-case/1`), saved as `*.join.json` with the reference's join
observation as `expected`: `tests`, `replay` and the Flink runner read such files as `cases/joins/` holds them.
"""

from __future__ import annotations

import dataclasses
import json
import re

from conformance.runner.output import OutputFolder
from conformance.runner.results import Failure, ImplementationResult, PropertyResult
from window_contract.case import case_to_json
from window_contract.case_json import JOIN_CASES_SUFFIX, case_from_json, violates_from_json
from window_contract.join_case import JOIN_CASE_FORMAT, join_case_to_json
from window_contract.join_case_json import join_cases_from_json
from window_contract.join_observation import join_observation_to_json
from window_contract.observation_json import observation_to_json
from window_contract.registry import load_implementation

FOLDER = "counterexamples"


def slug(text: str) -> str:
    """A file-name-safe form of an implementation or property name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def unique_name(stem: str, used: set[str], suffix: str = ".json") -> str:
    """`stem.json`, or `stem-2.json`... when Hypothesis found several distinct failures."""
    name, n = f"{stem}{suffix}", 1
    while name in used:
        n += 1
        name = f"{stem}-{n}{suffix}"
    used.add(name)
    return name


def save_counterexamples(
    implementations: list[ImplementationResult], out: OutputFolder
) -> list[ImplementationResult]:
    """Write one case file per failure, and one per case a guard stopped (`PropertyResult.case_not_run`, named
    `...--not-run.json`); the results with each failure's `case_file` and `reference`, and each stopped case's
    file, which its property's message names."""
    failures = [failure for impl in implementations for prop in impl.properties for failure in prop.failures]
    not_run = [prop.case_not_run for impl in implementations for prop in impl.properties if prop.case_not_run]
    if not failures and not not_run:
        return implementations
    joins = [failure for failure in failures if is_join_case(failure.case)]
    cases = [case_from_json(document) for document in [f.case for f in failures if not is_join_case(f.case)] + not_run]
    reference = load_implementation("reference")
    answers = iter(zip(cases, reference.run(cases), strict=True))
    join_cases = [join_cases_from_json(failure.case)[0] for failure in joins]
    join_answers = iter(zip(join_cases, reference.run_joins(join_cases), strict=True))
    used: set[str] = set()

    def saved(impl: ImplementationResult, prop: PropertyResult, failure: Failure) -> Failure:
        if is_join_case(failure.case):
            return saved_join(impl, prop, failure)
        case, observation = next(answers)
        name = unique_name(f"{slug(impl.name)}--{slug(prop.property)}", used)
        named = dataclasses.replace(case, name=case.name or f"{prop.property} on {impl.name}", expected=observation,
                                    violates=violates_from_json(failure.violates or {"property": prop.property}))
        out.file(f"{FOLDER}/{name}").write_text(json.dumps(case_to_json(named), indent=2) + "\n", encoding="utf-8")
        return dataclasses.replace(failure, reference=observation_to_json(observation), case_file=f"{FOLDER}/{name}")

    def saved_join(impl: ImplementationResult, prop: PropertyResult, failure: Failure) -> Failure:
        case, observation = next(join_answers)
        name = unique_name(f"{slug(impl.name)}--{slug(prop.property)}", used, JOIN_CASES_SUFFIX)
        named = dataclasses.replace(case, name=case.name or f"{prop.property} on {impl.name}", expected=observation)
        out.file(f"{FOLDER}/{name}").write_text(json.dumps(join_case_to_json(named), indent=2) + "\n",
                                                encoding="utf-8")
        return dataclasses.replace(failure, reference=join_observation_to_json(observation),
                                   case_file=f"{FOLDER}/{name}")

    def with_failures(impl: ImplementationResult, prop: PropertyResult) -> PropertyResult:
        return dataclasses.replace(prop, failures=tuple(saved(impl, prop, f) for f in prop.failures))

    def with_case_not_run(impl: ImplementationResult, prop: PropertyResult) -> PropertyResult:
        if prop.case_not_run is None:
            return prop
        case, observation = next(answers)
        name = unique_name(f"{slug(impl.name)}--{slug(prop.property)}--not-run", used)
        named = dataclasses.replace(case, name=case.name or f"could not run on {impl.name} ({prop.property})",
                                    expected=observation)
        out.file(f"{FOLDER}/{name}").write_text(json.dumps(case_to_json(named), indent=2) + "\n", encoding="utf-8")
        return dataclasses.replace(prop, case_not_run_file=f"{FOLDER}/{name}",
                                   message=f"{prop.message} (the case: {FOLDER}/{name})")

    properties = [[with_failures(impl, prop) for prop in impl.properties] for impl in implementations]
    return [dataclasses.replace(impl, properties=tuple(with_case_not_run(impl, prop) for prop in props))
            for impl, props in zip(implementations, properties, strict=True)]


def is_join_case(document: dict) -> bool:
    return document.get("format") == JOIN_CASE_FORMAT

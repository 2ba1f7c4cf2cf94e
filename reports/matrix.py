"""The conformance matrix and the verdict, derived from the results of a run.

A feature (row) of an implementation (column) is

- `unsupported` when the implementation does not declare it (the suite never sends it such cases);
- `fail` when the minimal case of a violation needs it;
- `untested` when it is declared but no generated case exercised it;
- `pass` otherwise.

`cases` counts the generated cases that exercised the feature, over all the properties: the matrix
is measured, not declared (in the spirit of Apache Beam's capability matrix).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

FAILED_OUTCOMES = ("failed", "error")


def feature_cases(implementation: dict[str, Any]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for prop in implementation["properties"]:
        counts.update(prop["features"])
    return counts


def situation_shares(prop: dict[str, Any]) -> str:
    """`label NN%` for each situation (`hypothesis.event`) of a property: the share of its examples."""
    examples = max(prop["examples"], 1)
    return ", ".join(f"{label} {100 * count / examples:.0f}%" for label, count in prop["statistics"]["events"].items())


def failing_features(implementation: dict[str, Any]) -> Counter[str]:
    """How many minimal cases of violations need each feature."""
    counts: Counter[str] = Counter()
    for prop in implementation["properties"]:
        for failure in prop["failures"]:
            counts.update(failure["features"])
    return counts


def cell(implementation: dict[str, Any], feature: str, cases: Counter[str], failing: Counter[str]) -> dict:
    if feature not in implementation["features"]:
        status = "unsupported"
    elif failing[feature]:
        status = "fail"
    elif not cases[feature]:
        status = "untested"
    else:
        status = "pass"
    return {"status": status, "cases": cases[feature], "failures": failing[feature]}


def conformance_matrix(
    features: dict[str, str], implementations: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One row per feature, one cell per implementation (keyed by its name)."""
    tallies = [(impl, feature_cases(impl), failing_features(impl)) for impl in implementations]
    return [
        {
            "feature": feature,
            "description": description,
            "cells": {impl["name"]: cell(impl, feature, cases, failing) for impl, cases, failing in tallies},
        }
        for feature, description in features.items()
    ]


def problems(implementation: dict[str, Any]) -> list[str]:
    """Why an implementation does not conform; empty when it does."""
    found = [f"{e['nodeid'] or 'the suite'} did not load" for e in implementation["errors"]]
    found += [
        f"{p['property']} {'fails' if p['outcome'] == 'failed' else 'errs'}"
        for p in implementation["properties"]
        if p["outcome"] in FAILED_OUTCOMES
    ]
    if not implementation["properties"] and not found:
        found.append("no property ran")
    if implementation["exit_status"] not in (0, 1) and not found:
        found.append(f"the suite ended abnormally (pytest exit status {implementation['exit_status']})")
    return found


def verdict(implementations: list[dict[str, Any]]) -> dict[str, Any]:
    """The one line at the top of the report."""
    failing = [impl for impl in implementations if not impl["conforms"]]
    if not failing:
        names = ", ".join(impl["name"] for impl in implementations)
        text = f"Conforms: {names} satisfied every property on every feature declared."
    else:
        text = (
            "Does not conform: "
            + "; ".join(f"{impl['name']} ({', '.join(impl['problems'])})" for impl in failing)
            + "."
        )
    return {"conforms": not failing, "failing": [impl["name"] for impl in failing], "text": text}

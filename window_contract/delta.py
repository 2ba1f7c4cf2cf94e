"""The difference of two observations as data: a structured delta with paths, for tools that shrink or
cluster differences (`window_contract.difference` says the same for people).

The delta compares the observations as equivalence does (`window_contract.equivalence.as_compared`):
positions dropped where either side is position-free, the outputs of one position compared as multisets.
It is DeepDiff's (`deepdiff`) over their `window-observation/1` documents, with the outputs of each part
(`firings`, `late`, `dropped`) as multisets (`ignore_order`, repetitions counted), as JSON: keys such as
`values_changed`, `iterable_item_added`, `iterable_item_removed`, `repetition_change`, each mapping a path
(`root['firings'][2]`) to what changed. Empty (`{}`) when the observations are equivalent. Two join
observations (`join-observation/1`) likewise, as `join_equivalent` compares them (`outputs`, `late`, `dropped`).
"""

from __future__ import annotations

import json
from typing import Any

from window_contract.equivalence import as_compared, equivalent
from window_contract.join_observation import JoinObservation, join_equivalent, join_observation_to_json
from window_contract.observation import Observation
from window_contract.observation_json import observation_to_json


def delta(expected: Observation, actual: Observation, positions: bool = True) -> dict[str, Any]:
    """What `actual` changes of `expected`, as DeepDiff's JSON; `{}` when they are equivalent."""
    if equivalent(expected, actual, positions):
        return {}
    a, b = (observation_to_json(o) for o in as_compared(expected, actual, positions))
    for doc in (a, b):
        for firing in doc.get("firings", ()):
            firing["values"] = sorted(firing["values"])  # a firing's values are compared sorted
    return _deep_diff(a, b)


def join_delta(expected: JoinObservation, actual: JoinObservation) -> dict[str, Any]:
    """What `actual` changes of `expected`, two join observations, as DeepDiff's JSON; `{}` when equivalent."""
    if join_equivalent(expected, actual):
        return {}
    return _deep_diff(join_observation_to_json(expected), join_observation_to_json(actual))


def _deep_diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    from deepdiff import DeepDiff  # only for a difference: it imports pandas when installed (a second, 90 MB)

    diff = DeepDiff(a, b, ignore_order=True, report_repetition=True, verbose_level=2)
    return json.loads(diff.to_json())

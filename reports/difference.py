"""What went wrong in a counterexample, for the report: a headline and the differences in the
domain's words (`window_contract.difference` says them; here they are chosen and counted for a reader).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reports.joins import is_join_failure
from window_contract.difference import differences as observation_differences
from window_contract.observation_json import observation_from_json

#: How many differences a report shows; the rest are counted.
SHOWN = 12


def differences(case: dict[str, Any], expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """The differences of two observations of `case`, as the report document holds them (JSON)."""
    return observation_differences(_observation(expected), _observation(actual), len(case["events"]))


def _observation(doc: dict[str, Any]):
    """An observation of the report document: a position-free implementation's has `"at": null`."""
    outputs = [x for part in ("firings", "late", "dropped", "watermarks") for x in doc.get(part) or ()]
    return observation_from_json(doc, position_free=any(x.get("at") is None for x in outputs))


@dataclass(frozen=True)
class Account:
    """What went wrong in a counterexample: one line that says it (`headline`), and each way the
    implementation's observation differs (`lines`) from the reference's, or from the observation
    `compared` names."""

    headline: str
    compared: str
    lines: list[str]

    @property
    def title(self) -> str:
        return f"What differs ({self.compared})" if self.compared else "What differs from the reference"


def account(failure: dict[str, Any]) -> Account:
    """The account of a failure of the report document.

    When the property compared two observations (`expected` and `actual`), their differences in the
    domain's words; the property's detail may open with a line that names the two (ending in ':',
    as in "alone (left) and in a batch (right):"). Otherwise (an invariant) the property's own detail
    says what broke, and the differences from the reference's observation, when the run added it,
    show the rest.
    """
    detail = [line for line in failure["difference"].splitlines() if line.strip()]
    if is_join_failure(failure):  # the join rules say what differs in their own words (`reports.joins`)
        return Account((detail or [""])[0], "What differs", detail)
    case, expected, actual = failure["case"], failure.get("expected"), failure.get("actual")
    if expected is not None and actual is not None:
        lines = differences(case, expected, actual)
        if lines:
            if detail and detail[0].endswith(":"):
                compared = detail[0].removesuffix(":")
            else:
                compared = "" if expected == failure.get("reference") else "from what the rule expects"
            return Account(lines[0], compared, lines)
    reference = failure.get("reference")
    lines = differences(case, reference, actual) if reference is not None and actual is not None else []
    return Account(" ".join(detail[:2]) if detail and detail[0].endswith(":") else (detail or [""])[0],
                   "", lines)


def summary(lines: list[str]) -> list[str]:
    """The first `SHOWN` differences, and how many more there are."""
    if len(lines) <= SHOWN:
        return lines
    return [*lines[:SHOWN], f"... and {len(lines) - SHOWN} more differences"]



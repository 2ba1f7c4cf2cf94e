"""A join property's failure in the reports: its case is a join case (`join-case/1`) and its observations join
observations, which the window failure's pictures and tables (positions of firings, a timeline) do not draw; the
report shows the rule, what differs and the case, observations and saved file as they are."""

from __future__ import annotations

import json
from typing import Any

from window_contract.join_case import JOIN_CASE_FORMAT


def is_join_failure(failure: dict[str, Any]) -> bool:
    return failure["case"].get("format") == JOIN_CASE_FORMAT


def join_failure_sections(failure: dict[str, Any]) -> list[tuple[str, str]]:
    """`(title, text)` of each part the reports show: what differs, then the case and the two observations as JSON,
    each a section; the saved case file, when there is one."""
    reference = failure.get("reference") or failure.get("expected")
    sections = [("What differs", failure["difference"]), ("The join case", json.dumps(failure["case"], indent=2))]
    sections += [(title, json.dumps(observation, indent=2)) for title, observation in (
        ("The reference's join observation", reference), ("The implementation's", failure.get("actual")))
        if observation is not None]
    if failure.get("case_file"):
        sections.append(("Saved as", f"{failure['case_file']} (join-case/1, with the reference's observation as "
                                     "expected)"))
    return sections

"""A failing case made smaller one step at a time: an event fewer, or a part of the specification back to its
default. The census shrinks an unexplained difference this way (`conformance.census`), and the property suite
the case a violation reports, at the end (`conformance.properties.harness`): Hypothesis shrinks the draws of an
example within the profile's budget, and what is left of the case itself is taken away here, deterministically.
"""

from __future__ import annotations

from dataclasses import replace

from window_contract.case import Case, case_to_json
from window_contract.case_json import case_from_json
from window_contract.validation import CaseFormatError


def simplifications(case: Case) -> list[Case]:
    """Cases one step simpler than `case` that are still valid cases: an event fewer, then the allowed
    lateness, the side output, the trigger, the evictor or the watermark generator's idleness at its default."""
    steps = [replace(case, events=case.events[:i] + case.events[i + 1:]) for i in range(len(case.events))]
    steps += [replace(case, **{name: value}) for name, value in
              (("allowed_lateness", 0), ("late_side_output", False), ("trigger", None), ("evictor", None))
              if getattr(case, name) != value]
    valid = []
    for candidate in steps:
        try:
            valid.append(case_from_json(case_to_json(candidate)))
        except CaseFormatError:
            continue
    return valid

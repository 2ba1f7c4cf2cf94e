"""A failing case made smaller one step at a time: an event fewer, or a part of the specification back to its
default. The census shrinks an unexplained difference this way (`conformance.census`), and the property suite
the case a violation reports, at the end (`conformance.properties.harness`): Hypothesis shrinks the draws of an
example within the profile's budget, and what is left of the case itself is taken away here, deterministically.
A join case likewise (`join_simplifications`): an event fewer, or a part of its join back to its default.
"""

from __future__ import annotations

from dataclasses import replace

from window_contract.case import Case, case_to_json
from window_contract.case_json import case_from_json
from window_contract.join_case import IntervalJoin, JoinCase, WindowJoin, join_case_to_json
from window_contract.join_case_json import join_cases_from_json
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


#: The parts of each join that have a default, with it.
JOIN_DEFAULTS = {IntervalJoin: (("lower_exclusive", False), ("upper_exclusive", False), ("left_late_output", False),
                                ("right_late_output", False)),
                 WindowJoin: (("allowed_lateness", 0), ("trigger", None), ("evictor", None))}


def join_simplifications(case: JoinCase) -> list[JoinCase]:
    """Join cases one step simpler than `case` that are still valid: an event fewer, then a part of its join (an
    exclusive bound, a late output, the allowed lateness, the trigger, the evictor) at its default."""
    steps = [replace(case, events=case.events[:i] + case.events[i + 1:]) for i in range(len(case.events))]
    steps += [replace(case, join=replace(case.join, **{name: value}))
              for name, value in JOIN_DEFAULTS.get(type(case.join), ()) if getattr(case.join, name) != value]
    valid = []
    for candidate in steps:
        try:
            valid += join_cases_from_json(join_case_to_json(candidate))
        except CaseFormatError:
            continue
    return valid

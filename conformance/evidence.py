"""What a property test leaves behind for the report: the cases it ran, and why it failed.

The property suite (`conformance/properties/`) and the run's pytest plug-in (`conformance/runner/collector.py`)
meet here. A property test

- counts the features of every case it sends to the implementation (`FeatureTally`), and stores the
  tally in its test item's `user_properties` under `"features"` (so it also crosses pytest-xdist);
- fails by raising `PropertyViolation`, whose `to_json()` the plug-in stores under `"violation"`:
  the minimal case, what the reference observed, what the implementation observed, and the rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from window_contract.case import Case, case_to_json
from window_contract.delta import delta
from window_contract.difference import difference
from window_contract.features import join_required_features, needed_features, required_features
from window_contract.join_case import JoinCase, join_case_to_json
from window_contract.join_observation import JoinObservation, join_observation_to_json
from window_contract.observation import Observation
from window_contract.observation_json import observation_to_json


class FeatureTally(Counter):
    """How many cases exercised each feature (and `cases`: how many cases in all)."""

    def add(self, cases: Iterable[Case]) -> None:
        for case in cases:
            self["cases"] += 1
            self.update(needed_features(case))

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        """How Hypothesis prints the tally among a test's arguments: it does for every example, with observability
        on (as `run` has it), and the whole Counter cost a fortieth of the suite's time."""
        printer.text(f"FeatureTally({self['cases']} cases)")


#: Why a rule about positions does not run against a position-free implementation: the test skips
#: with this reason, and the run's report shows it as not applicable (not as a test that could not run).
NOT_APPLICABLE = "not applicable: the rule is about positions and the implementation is position-free"
#: Why a test that sent no case at all is not applicable: every example it drew fell outside the
#: implementation's features (a rule about watermark generators, for an implementation that declares none).
NO_CASE_SENT = "not applicable: no example had a case within the implementation's features"


class PropertyViolation(AssertionError):
    """A property does not hold for `case`.

    `expected` is the reference's observation where the property compares with it (or what the
    rule demands), `actual` the implementation's; `rule` says in one sentence what was broken.
    `calls` are what the run's collector keeps for `replay --check` to check the property again (`violates`).
    """

    def __init__(self, rule: str, case: Case, actual: Observation | None = None,
                 expected: Observation | None = None, detail: str = "",
                 calls: tuple[tuple[Case, ...], ...] = ()) -> None:
        self.rule, self.case, self.actual, self.expected = rule, case, actual, expected
        #: The `run` calls of the example that broke the rule (what a comparison of several runs compared).
        self.calls = calls
        if not detail and expected is not None and actual is not None:
            detail = difference(expected, actual)
        self.detail = detail
        super().__init__(f"{rule}\n{detail}".rstrip())

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "case": case_to_json(self.case),
            "features": sorted(required_features(self.case)),
            "expected": None if self.expected is None else observation_to_json(self.expected),
            "actual": None if self.actual is None else observation_to_json(self.actual),
            "difference": self.detail,
            "delta": (None if self.expected is None or self.actual is None
                      else delta(self.expected, self.actual)),
        }


class JoinPropertyViolation(PropertyViolation):
    """A property of the joins does not hold for `case`, a join case (`join-case/1`); the observations are join
    observations, and `detail` says what is wrong."""

    def __init__(self, rule: str, case: JoinCase, actual: JoinObservation | None, detail: str,
                 expected: JoinObservation | None = None) -> None:
        super().__init__(rule, case, actual, expected, detail)

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "case": join_case_to_json(self.case),
            "features": sorted(join_required_features(self.case)),
            "expected": None if self.expected is None else join_observation_to_json(self.expected),
            "actual": None if self.actual is None else join_observation_to_json(self.actual),
            "difference": self.detail,
            "delta": None,
        }

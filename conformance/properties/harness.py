"""How a property sends cases to the implementation and reports a broken rule.

Every example is a batch: one `run` call for many cases. A rule is checked case by case, and the
first case that breaks it is reported alone (`PropertyViolation`), so Hypothesis, shrinking the
batch, ends with a batch of one minimal case.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, note, settings

from conformance.case import Case
from conformance.case_json import dumps_case
from conformance.evidence import FeatureTally, PropertyViolation
from conformance.features import required_features
from conformance.implementation import Implementation
from conformance.observation import Observation

#: A rule's check of one case: `None` when it holds, else what is wrong, in one sentence.
Check = Callable[[Case, Observation], str | None]


def property_settings(share: float = 1.0) -> settings:
    """The loaded profile's settings, for a test whose examples cost `1 / share` of a plain one.

    The tally fixture lives across a test's examples on purpose, hence the suppressed health check.
    """
    base = settings.default
    return settings(
        parent=base,
        max_examples=max(10, round(base.max_examples * share)),
        suppress_health_check=[*base.suppress_health_check, HealthCheck.function_scoped_fixture],
    )


class Suite:
    """The implementation under test and the reference, as the properties use them."""

    def __init__(self, impl: Implementation, reference: Implementation) -> None:
        self.impl, self.reference = impl, reference

    @property
    def features(self) -> frozenset[str]:
        return self.impl.features

    def fits(self, case: Case) -> bool:
        """Only cases whose features the implementation declares are sent to it."""
        return required_features(case) <= self.impl.features

    def run(self, cases: Sequence[Case], tally: FeatureTally) -> list[Observation]:
        """One `run` call; an exception or a wrong number of observations breaks the interface."""
        cases = list(cases)
        unfit = [c for c in cases if not self.fits(c)]
        assert not unfit, f"the suite built a case the implementation does not support: {unfit[0]}"
        tally.add(cases)
        try:
            observations = self.impl.run(cases)
        except Exception as e:
            raise PropertyViolation("run(cases) gives an observation for every case without raising",
                                    cases[0], detail=f"{type(e).__name__}: {e}") from e
        if len(observations) != len(cases):
            raise PropertyViolation("run(cases) gives one observation per case, in order", cases[0],
                                    detail=f"{len(cases)} cases, {len(observations)} observations")
        return list(observations)

    def expected(self, cases: Sequence[Case]) -> list[Observation]:
        return self.reference.run(list(cases))


def violation(rule: str, case: Case, actual: Observation | None, detail: str,
              expected: Observation | None = None) -> PropertyViolation:
    note(f"the case, as JSON:\n{dumps_case(case)}")
    return PropertyViolation(rule, case, actual, expected, detail)


def check_each(rule: str, cases: Sequence[Case], observations: Sequence[Observation], check: Check) -> None:
    """Raise for the first case whose observation breaks `rule`."""
    for case, observation in zip(cases, observations, strict=True):
        problem = check(case, observation)
        if problem:
            raise violation(rule, case, observation, problem)

"""How the join properties (`test_joins.py`) send join cases (`join-case/1`) to an implementation that declares
joins, and report a broken rule.

An implementation declares the joins it runs (`join.window`, `join.cogroup`, `join.interval`:
`window_contract.features.JOIN_FEATURES`) and answers them through `run_joins(cases)`. The `JoinSuite` sends it
only the join cases whose features it declares (`join_required_features`); a property none of whose examples had
such a case sent nothing, and the run reports it as not applicable, never as passed (`tally` counts no case).

An implementation whose every call costs a job (`costly_calls`: Spark, Flink) is prefetched as the window
properties are (`conformance.prefetch`), in this suite's own small way: before the first join property runs, every
join property the session selected runs once with the reference answering, every case it sends is noted, and the
implementation answers all of them in one `run_joins` call; the properties then run for real from those answers,
on the examples the first pass drew, given back instead of drawn again (`conformance/prefetch/replay.py`; the `ci`
profile draws the same examples in both passes, other profiles get one seed for both). A case not fetched
(Hypothesis shrinking a difference) costs a call of its own.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Sequence
from typing import Protocol

import pytest
from hypothesis import note, seed, settings

from conformance.evidence import FeatureTally, JoinPropertyViolation
from conformance.prefetch.replay import Example, keeping, replaying
from conformance.properties.harness import Breakdown
from window_contract.features import ALL_JOIN_NAMES, join_required_features
from window_contract.implementation import (
    REQUEST_TIMEOUT,
    CouldNotRun,
    Implementation,
    RunJoins,
    failure_to_run,
    run_within,
)
from window_contract.join_case import JoinCase, join_case_to_json
from window_contract.join_observation import JoinObservation, join_difference

#: A join rule's check of one case: `None` when it holds, else what is wrong, in one sentence.
JoinCheck = Callable[[JoinCase, JoinObservation], str | None]

#: The join properties (their Hypothesis tests), for the prefetching pass: `join_property` adds each.
JOIN_PROPERTIES: list[Callable] = []


def join_property(test: Callable) -> Callable:
    """Mark a Hypothesis test as a join property (prefetched with the others: the module's docstring)."""
    JOIN_PROPERTIES.append(test)
    return test


class JoinSuite:
    """The implementation's joins and the reference's, as the join properties use them."""

    def __init__(self, impl: Implementation, reference: Implementation, timeout: float = REQUEST_TIMEOUT,
                 breakdown: Breakdown | None = None) -> None:
        self.impl, self.reference, self.timeout = impl, reference, timeout
        #: The window suite's (`harness.Breakdown`): an implementation that timed out or whose process died twice
        #: there is not called again here, nor the reverse.
        self.breakdown = breakdown or Breakdown()
        self._expected: dict[JoinCase, JoinObservation] = {}
        self._fetched: dict[JoinCase, JoinObservation] = {}
        self._noted: dict[JoinCase, None] | None = None
        #: The examples the prefetching pass drew, by test, for the real pass to replay (a test that failed with the
        #: reference answering has none: it draws again).
        self.kept: dict[Callable, tuple[Example, ...]] = {}

    @property
    def joins(self) -> frozenset[str]:
        """The joins the implementation declares."""
        return self.impl.features & ALL_JOIN_NAMES

    def fits(self, case: JoinCase) -> bool:
        return join_required_features(case) <= self.impl.features

    def run(self, cases: Sequence[JoinCase], tally: FeatureTally) -> list[JoinObservation]:
        """One `run_joins` call of the cases the implementation supports (the caller keeps only those)."""
        cases = list(cases)
        assert all(map(self.fits, cases)), "the suite built a join case the implementation does not support"
        tally.add(cases)
        if self._noted is not None:  # the prefetching pass: the reference answers
            self._noted.update(dict.fromkeys(cases))
            return self.expected(cases)
        missing = [c for c in dict.fromkeys(cases) if c not in self._fetched]
        if missing:
            self._fetched.update(zip(missing, self.request(missing), strict=True))
        return [self._fetched[c] for c in cases]

    def request(self, cases: list[JoinCase]) -> list[JoinObservation]:
        """The implementation's observations, within the request timeout; a failure to run stops the test, at once
        when the implementation has broken down."""
        self.breakdown.check(self.impl.name)
        try:
            observations = run_within(RunJoins(self.impl), cases, self.timeout)
        except Exception as e:
            reason = failure_to_run(e)
            if reason is None:
                raise JoinPropertyViolation("run_joins(cases) gives an observation for every case without raising",
                                            cases[0], None, f"{type(e).__name__}: {e}") from e
            self.breakdown.note(e, reason)
            raise CouldNotRun(f"{self.impl.name} could not run: {reason}") from e
        if len(observations) != len(cases) or not all(isinstance(o, JoinObservation) for o in observations):
            raise JoinPropertyViolation("run_joins(cases) gives one join observation per case, in order", cases[0],
                                        None, f"{len(cases)} cases, answered with {observations!r:.200}")
        return list(observations)

    def expected(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        """The reference's observations, each case's computed once in the session."""
        missing = list(dict.fromkeys(c for c in cases if c not in self._expected))
        if missing:
            self._expected.update(zip(missing, self.reference.run_joins(missing), strict=True))
        return [self._expected[c] for c in cases]

    def prefetch(self, tests: Sequence[pytest.Item], drawing: SharedDrawing | None = None) -> None:
        """Run `tests` with the reference answering, keeping their examples, then fetch every case they sent in one
        call. A test another run of the same `run` drew (`drawing`) runs on that run's examples instead of drawing
        them; one drawn here is written for the others."""
        if not settings.default.derandomize:
            chosen = random.randrange(2**32)
            for item in tests:
                seed(chosen)(item.obj)
        self._noted = {}
        try:
            for item in tests:
                self._record(item, drawing)
            noted = list(self._noted)
        finally:
            self._noted = None
        if noted:
            self._fetched.update(zip(noted, self.request(noted), strict=True))

    def _record(self, item: pytest.Item, drawing: SharedDrawing | None) -> None:
        """The prefetching pass of one test: its cases noted, its examples kept (none when it failed: the reference's
        failures show later)."""
        test, fixtures = item.obj, {"join_suite": self, "tally": FeatureTally()}
        drawn_elsewhere = drawing.examples(item) if drawing is not None else None
        if drawn_elsewhere is not None:
            with contextlib.suppress(Exception):
                replaying(test, drawn_elsewhere, lambda: None)(**fixtures)
                self.kept[test] = drawn_elsewhere
            return
        with contextlib.suppress(Exception), keeping(test) as examples:
            test(**fixtures)
            self.kept[test] = tuple(examples)
        if drawing is not None:
            drawing.drawn(item, self.kept.get(test))


class SharedDrawing(Protocol):
    """The drawing the runs of one `python -m conformance run` share (`conformance.prefetch.recordings`), as the
    join properties' prefetching pass uses it: a join property draws its cases and then keeps those the
    implementation declares, so its examples depend on no feature, and every run replays the run that drew them."""

    def examples(self, item: pytest.Item) -> tuple[Example, ...] | None:
        """The examples another run drew for `item` (waited for), or `None`: this run draws them."""

    def drawn(self, item: pytest.Item, examples: tuple[Example, ...] | None) -> None:
        """`item`'s examples as this run drew them (`None`: it failed), written for the other runs."""


def session_join_suite(request: pytest.FixtureRequest, drawing: SharedDrawing | None = None) -> JoinSuite:
    """The session's `JoinSuite` over the `suite` fixture's implementation, prefetched when its calls cost a job,
    sharing the drawing of the join properties with the other runs through `drawing`."""
    suite = request.getfixturevalue("suite")
    joins = JoinSuite(suite.impl, suite.reference, suite.timeout, suite.breakdown)
    if joins.joins and suite.impl.costly_calls:
        joins.prefetch([item for item in request.session.items if getattr(item, "obj", None) in JOIN_PROPERTIES],
                       drawing)
    return joins


def check_join_cases(rule: str, cases: Sequence[JoinCase], observations: Sequence[JoinObservation],
                     check: JoinCheck) -> None:
    """Raise for the first case whose observation breaks `rule`."""
    for case, observation in zip(cases, observations, strict=True):
        problem = check(case, observation)
        if problem:
            raise join_violation(rule, case, observation, problem)


def join_violation(rule: str, case: JoinCase, actual: JoinObservation, detail: str,
                   expected: JoinObservation | None = None) -> JoinPropertyViolation:
    note(f"the join case, as JSON:\n{join_case_to_json(case)}")
    return JoinPropertyViolation(rule, case, actual, detail, expected)


JOIN_DIFFERENTIAL_RULE = "the implementation's join observation is equivalent to the reference's"


def compare_joins_with_reference(suite: JoinSuite, tally: FeatureTally, cases: Sequence[JoinCase]) -> None:
    """The differential rule over join cases: one call; the first case that differs is reported with both."""
    for case, got in zip(cases, suite.run(cases, tally), strict=True):
        expected = suite.expected([case])[0]
        detail = join_difference(expected, got)
        if detail:
            raise join_violation(JOIN_DIFFERENTIAL_RULE, case, got, detail, expected)

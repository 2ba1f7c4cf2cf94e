"""How a property sends cases to the implementation and reports a broken rule.

Every example is a batch: one `run` call for many cases. A rule is checked case by case, and the
first case that breaks it is reported alone (`PropertyViolation`), so Hypothesis, shrinking the
batch, ends with a batch of one minimal case.

Every `run` call has a time limit (`REQUEST_TIMEOUT`, `--window-request-timeout`), and a plug-in's calls
guards of a time a case and a memory limit (`window_contract.guards`): a batch a guard stopped is run again case
by case to name the case to blame, which the run saves. When a call fails, the
harness tells apart (`window_contract.implementation`) a bug of the implementation, which breaks the
rule "run gives an observation for every case" for the case that raises alone, from a failure to
run (a timeout, a dead engine, an answer of the wrong types), which stops the test as `CouldNotRun`:
no counterexample. An implementation that timed out, or whose process died twice, has broken down
(`Breakdown`): the rest of the session's tests could not run either, at once, without waiting for it
again.

Where the answers come from is not a rule's business: the implementation by default, the prefetch
plug-in's sources while it prefetches (`conformance.prefetch`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, note, settings
from hypothesis.control import current_build_context
from hypothesis.errors import InvalidArgument
from hypothesis.strategies import DataObject

from conformance.evidence import FeatureTally, PropertyViolation
from conformance.properties.situations import observed_situations
from conformance.properties.timeline import relabelled
from conformance.simplest import simplifications
from strategies import case_batches
from window_contract.answers import checked_observations
from window_contract.case import Case, dumps_case
from window_contract.difference import difference
from window_contract.features import required_features
from window_contract.implementation import (
    REQUEST_TIMEOUT,
    CouldNotRun,
    Implementation,
    OverLimit,
    ProcessDied,
    TimedOut,
    failure_to_run,
    run_within,
)
from window_contract.observation import Observation

#: A rule's check of one case: `None` when it holds, else what is wrong, in one sentence.
Check = Callable[[Case, Observation], str | None]

#: The most rounds a violation's case is made smaller in (`Suite.smallest_violation`), each one call.
SIMPLIFYING_ROUNDS = 100


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


class Breakdown:
    """Whether the implementation under test has broken down in this test process: a `run` call timed
    out (the next would wait as long), or its process died a second time. Then every later call
    could not run at once: a hung implementation costs one timeout, not one per property.

    It lives with the session's `Suite`, in each test process; under pytest-xdist every worker learns
    it from its own first timeout, and the workers wait for theirs at the same time."""

    #: Deaths of the implementation's process a session takes before it gives up on it.
    DEATHS = 2

    def __init__(self) -> None:
        self.deaths = 0
        self.reason: str | None = None

    def note(self, failure: BaseException, reason: str) -> None:
        """A failure to run, for `reason`: a timeout, or a process's death, counts."""
        if isinstance(failure, TimedOut):
            self.reason = f"it timed out earlier in this run ({reason})"
        elif isinstance(failure, ProcessDied):
            self.deaths += 1
            if self.deaths >= self.DEATHS:
                what = "a guard stopped its calls or its process died" if isinstance(failure, OverLimit) else \
                    "its process died"
                self.reason = f"{what} {self.deaths} times in this run (the last: {reason})"

    def check(self, name: str, stop: type[BaseException] = CouldNotRun) -> None:
        """`stop` (a failure to run) once the implementation has broken down."""
        if self.reason is not None:
            raise stop(f"{name} could not run: {self.reason}; its remaining properties are not run")


class ExampleCalls:
    """The `run` calls of the example running now (Hypothesis's build context tells one example from the next).
    A violation keeps them: a rule that compares several runs is checked again from them (`recheck.py`)."""

    def __init__(self) -> None:
        self.example: object = None
        self.calls: list[tuple[Case, ...]] = []

    def note(self, cases: Sequence[Case]) -> None:
        if _example() is not self.example:
            self.example, self.calls = _example(), []
        self.calls.append(tuple(cases))

    def of_this_example(self) -> tuple[tuple[Case, ...], ...]:
        return tuple(self.calls) if self.example is not None and _example() is self.example else ()


def _example() -> object:
    try:
        return current_build_context()
    except InvalidArgument:  # not within a Hypothesis example
        return None


CALLS = ExampleCalls()


class Suite:
    """The implementation under test and the reference, as the properties use them.

    `run` is the only place a rule sends cases; `answers` answers them (`call`, the implementation
    itself, unless the prefetch plug-in lends another source for a pass). The reference's observation
    of each case is computed once in the run (`expected`), also when the strategies labelled the case
    with its situations (`situations`), which runs the reference already.
    """

    def __init__(self, impl: Implementation, reference: Implementation, timeout: float = REQUEST_TIMEOUT) -> None:
        self.impl, self.reference, self.timeout = impl, reference, timeout
        self.answers: Callable[[list[Case]], list[Observation]] = self.call
        self.breakdown = Breakdown()
        self._expected: dict[Case, Observation] = {}

    @property
    def answers_requests(self) -> bool:
        """Whether the implementation answers many `run` calls in one job (`run_requests`)."""
        return callable(getattr(self.impl, "run_requests", None))

    @property
    def features(self) -> frozenset[str]:
        return self.impl.features

    @property
    def position_free(self) -> bool:
        """Whether the implementation answers without positions (an optional member: False when absent)."""
        return getattr(self.impl, "position_free", False)

    def fits(self, case: Case) -> bool:
        """Only cases whose features the implementation declares are sent to it."""
        return required_features(case) <= self.impl.features

    def run(self, cases: Sequence[Case], tally: FeatureTally) -> list[Observation]:
        """One `run` call; an exception or a wrong number of observations breaks the interface."""
        cases = list(cases)
        unfit = [c for c in cases if not self.fits(c)]
        assert not unfit, f"the suite built a case the implementation does not support: {unfit[0]}"
        tally.add(cases)
        CALLS.note(cases)
        return self.answers(cases)

    def call(self, cases: list[Case]) -> list[Observation]:
        """The implementation's observations; a failure to run stops the test (`CouldNotRun`), and
        a bug breaks the interface's rule for the case that raises on its own."""
        try:
            observations = self.request(cases)
        except Exception as e:
            culprit, error = self._culprit(cases, e)
            raise PropertyViolation("run(cases) gives an observation for every case without raising",
                                    culprit, detail=f"{type(error).__name__}: {error}") from error
        if len(observations) != len(cases):
            raise PropertyViolation("run(cases) gives one observation per case, in order", cases[0],
                                    detail=f"{len(cases)} cases, {len(observations)} observations")
        return list(observations)

    def _culprit(self, cases: list[Case], error: Exception) -> tuple[Case, Exception]:
        """The first case of the batch whose `run` raises on its own, and its error, so that the
        counterexample reproduces alone; the first case when only the batch raises."""
        for case in cases if len(cases) > 1 else ():
            try:
                self.request([case])
            except Exception as alone:
                return case, alone
        return cases[0], error

    def request(self, cases: list, impl: Implementation | None = None) -> list:
        """One `run` call (of `impl`, by default the implementation, whose answer must be observations
        of the format's types) within `timeout` seconds; a failure to run raises `CouldNotRun`, at once
        when the implementation has broken down."""
        self.breakdown.check(self.impl.name)
        try:
            answer = run_within(impl or self.impl, cases, self.timeout)
            return answer if impl is not None else checked_observations(answer, self.position_free)
        except Exception as e:
            reason = failure_to_run(e)
            if reason is None:
                raise
            self.breakdown.note(e, reason)
            if not isinstance(e, OverLimit):
                raise CouldNotRun(f"{self.impl.name} could not run: {reason}") from e
            case, reason = self._over_limit(cases, impl, reason)
            raise CouldNotRun(f"{self.impl.name} could not run: {reason}", case) from e

    def _over_limit(self, cases: list, impl: Implementation | None, reason: str) -> tuple[Case | None, str]:
        """The case a guard stopped (`window_contract.guards`) and why: the batch's cases are run again one
        by one, each within its own limits, and the first that a guard stops alone is to blame; no case when
        only the batch together ran over."""
        for case in cases if len(cases) > 1 else ():
            try:
                run_within(impl or self.impl, [case], self.timeout)
            except OverLimit as alone:
                return case, f"{alone}, in a batch of {len(cases)} run again case by case"
            except Exception:  # anything else of this case is not what the batch ran over on
                continue
        return (cases[0] if len(cases) == 1 else None), reason

    def smallest_violation(self, case: Case, observation: Observation, problem: str,
                           check: Check) -> tuple[Case, Observation, str]:
        """The case of a violation made smaller one step at a time (`conformance.simplest`): each round sends every
        one-step-simpler case the implementation supports in one call, and the first that still breaks the rule,
        run again alone, takes the case's place; at most `SIMPLIFYING_ROUNDS` rounds. Hypothesis shrinks the
        example's draws within the profile's budget; this takes what is left away from the one case it reports,
        deterministically. An implementation whose calls cost a job keeps Hypothesis's case."""
        if self.impl.costly_calls:
            return case, observation, problem
        for _ in range(SIMPLIFYING_ROUNDS):
            smaller = [c for c in simplifications(case) if self.fits(c)]
            found = self._first_breaking(smaller, check) if smaller else None
            if found is None:
                break
            case, observation, problem = found
        return case, observation, problem

    def _first_breaking(self, cases: list[Case], check: Check) -> tuple[Case, Observation, str] | None:
        """The first of `cases` whose observation breaks the rule, in one call and again alone; `None` when none
        does, or when the implementation fails on them."""
        try:
            for case, observation in zip(cases, self.answers(cases), strict=True):
                if check(case, observation):
                    [alone] = self.answers([case])
                    problem = check(case, alone)
                    if problem:
                        return case, alone, problem
        except (Exception, CouldNotRun):  # a bug or a failure of its own: the case found so far stands
            return None
        return None

    def expected(self, cases: Sequence[Case]) -> list[Observation]:
        """The reference's observations, each case's computed once in the run (Hypothesis runs an
        example again as it generates and shrinks)."""
        missing = list(dict.fromkeys(c for c in cases if c not in self._expected))
        if missing:
            self._expected.update(zip(missing, self.reference.run(missing), strict=True))
        return [self._expected[c] for c in cases]

    def situations(self, case: Case) -> Counter[str]:
        """What `case` exercises (`properties.situations`), for the strategies to report; the run of
        the reference that tells it is the case's `expected` observation too."""
        observation, found = observed_situations(case)
        self._expected.setdefault(case, observation)
        return found


def violation(rule: str, case: Case, actual: Observation | None, detail: str,
              expected: Observation | None = None) -> PropertyViolation:
    note(f"the case, as JSON:\n{dumps_case(case)}")
    return PropertyViolation(rule, case, actual, expected, detail, calls=CALLS.of_this_example())


def run_and_check(data: DataObject, suite: Suite, tally: FeatureTally, rule: str, check: Check) -> None:
    """Draw a batch of cases the implementation supports, run it, and check `rule` on each case."""
    batch = [relabelled(c) for c in data.draw(case_batches(suite.features, report=False), label="batch")]
    check_each(rule, batch, suite.run(batch, tally), check, suite)


def check_each(rule: str, cases: Sequence[Case], observations: Sequence[Observation], check: Check,
               suite: Suite | None = None) -> None:
    """Raise for the first case whose observation breaks `rule`: alone, and in the example Hypothesis reports at
    the end made as small as it goes (`Suite.smallest_violation`, given the `suite`)."""
    for case, observation in zip(cases, observations, strict=True):
        problem = check(case, observation)
        if problem:
            if suite is not None and final_example():
                case, observation, problem = suite.smallest_violation(case, observation, problem, check)
            raise violation(rule, case, observation, problem)


def final_example() -> bool:
    """Whether the example running now is the one Hypothesis reports: its last replay of the minimal failure."""
    try:
        return current_build_context().is_final
    except InvalidArgument:  # not within a Hypothesis example
        return False


DIFFERENTIAL_RULE = "the implementation's observation is equivalent to the reference's"


def compare_with_reference(suite: Suite, tally: FeatureTally, batch: Sequence[Case]) -> None:
    """The differential rule: one `run` call for the batch; the first case whose observation is not
    equivalent to the reference's is reported alone, with both observations."""
    actual = suite.run(batch, tally)
    positions = not suite.position_free

    def check(case: Case, got: Observation) -> str | None:
        return difference(suite.expected([case])[0], got, positions=positions) or None

    for case, got in zip(batch, actual, strict=True):
        detail = check(case, got)
        if detail:
            if final_example():
                case, got, detail = suite.smallest_violation(case, got, detail, check)
            raise violation(DIFFERENTIAL_RULE, case, got, detail, expected=suite.expected([case])[0])

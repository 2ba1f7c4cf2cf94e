"""Conforms, differs or could not run: an implementation's outcome, the run's verdict, the exit status.

Three outcomes, kept apart because they call for different actions:

- *differs*: a property was violated; a minimal case shows it and replays. The implementation is
  wrong (or the plug-in raised: the rule "run gives an observation for every case" is broken).
- *could not run*: a property or a case could not be run — the engine is missing or died, a `run`
  call timed out, a module of the suite did not load, the test process ended, a test was skipped.
  Nothing is concluded from it: no counterexample, no pass.
- *conforms*: every property ran and held.

A difference outranks a failure to run: what was found is true whatever else could not run. The
exit statuses (`EXIT_STATUS`) follow: 0 conforms, 1 differs, 3 could not run; 2 is a usage or
format error, found before anything runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from conformance.runner.results import (
    ImplementationResult,
    Outcome,
    PropertyResult,
    SuiteError,
    Verdict,
)

EXIT_STATUS: dict[Outcome, int] = {"conforms": 0, "differs": 1, "could_not_run": 3}
USAGE_ERROR = 2

#: How the outcome of a property test reads in a problem line.
_VERBS = {"failed": "fails", "error": "could not run", "skipped": "was skipped"}


def differences(properties: Sequence[PropertyResult]) -> list[str]:
    """The properties that were violated."""
    return [f"{p.property} fails" for p in properties if p.outcome == "failed"]


def failures_to_run(
    properties: Sequence[PropertyResult], errors: Sequence[SuiteError], exit_status: int | None
) -> list[str]:
    """What could not run, one line each: the suite's errors, properties that errred or were
    skipped, no property at all, a test process that ended abnormally."""
    found = [f"{e.nodeid or 'the suite'} could not run: {_first_line(e.message)}" for e in errors]
    found += [f"{p.property} {_VERBS[p.outcome]}" for p in properties if p.outcome in ("error", "skipped")]
    if not properties and not found:
        found.append("no property ran")
    elif not any(p.ran for p in properties) and not found:
        found.append("no property applies to the features it declares")
    if exit_status not in (0, 1) and not found and not differences(properties):
        found.append(f"the suite ended abnormally (pytest exit status {exit_status})")
    return found


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no message")


def implementation_outcome(
    properties: Sequence[PropertyResult], errors: Sequence[SuiteError], exit_status: int | None
) -> tuple[Outcome, tuple[str, ...]]:
    """An implementation's outcome and its problems: the differences first, then what could not run."""
    differs, not_run = differences(properties), failures_to_run(properties, errors, exit_status)
    outcome: Outcome = "differs" if differs else "could_not_run" if not_run else "conforms"
    return outcome, (*differs, *not_run)


def verdict(implementations: Sequence[ImplementationResult]) -> Verdict:
    """The run's outcome, its exit status and the one line at the top of the report."""
    failing = tuple(i.name for i in implementations if i.outcome == "differs")
    not_run = tuple(i.name for i in implementations if failures_to_run(i.properties, i.errors, i.exit_status))
    outcome: Outcome = "differs" if failing else "could_not_run" if not_run else "conforms"
    names = ", ".join(i.name for i in implementations)
    troubled = "; ".join(f"{i.name} ({', '.join(i.problems)})" for i in implementations if i.problems)
    text = {
        "conforms": f"Conforms: {names} satisfied every property on every feature declared.",
        "differs": f"Does not conform: {troubled}.",
        "could_not_run": f"Could not run: {troubled}. Nothing differed in what did run.",
    }[outcome]
    return Verdict(outcome, EXIT_STATUS[outcome], failing, not_run, text)

"""How the report names what a run found, the same in every rendering.

The report document holds the runner's outcomes (`report.schema.json`): a matrix cell's `status`,
a property's `outcome` (pytest's) and an implementation's or the run's `outcome`. A reader sees
these words instead; "could not run" is never a pass and never a failure.
"""

from __future__ import annotations

#: A matrix cell's status.
STATUS = {"pass": "pass", "fail": "fail", "error": "could not run", "unsupported": "unsupported",
          "untested": "not exercised"}

#: A property's outcome.
OUTCOME = {"passed": "passed", "failed": "failed", "error": "could not run", "skipped": "skipped",
           "not_applicable": "not applicable (position-free)"}

#: An implementation's outcome.
IMPLEMENTATION = {"conforms": "conforms", "differs": "does not conform", "could_not_run": "could not run"}


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """`1 example`, `2 examples`."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def seed_text(document: dict, pattern: str) -> str:
    """The run's Hypothesis seed in `pattern` (`", seed {}"`), or nothing under a derandomized profile."""
    seed = document["seed"]
    return "" if seed is None else pattern.format(seed)

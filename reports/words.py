"""How the report names what a run found, the same in every rendering.

The report document holds the runner's outcomes (`report.schema.json`): a matrix cell's `status`,
a property's `outcome` (pytest's) and an implementation's or the run's `outcome`. A reader sees
these words instead; "could not run" is never a pass and never a failure.
"""

from __future__ import annotations

#: A matrix cell's status.
#: `fail` is not blame: the minimal case needs the feature, which shrinking may have chosen by chance (a
#: timestamp of -1 in a case about lateness); it says where a difference was found.
STATUS = {"pass": "pass", "fail": "in a failing case", "error": "could not run", "unsupported": "unsupported",
          "untested": "not exercised"}

#: A property's outcome.
OUTCOME = {"passed": "passed", "failed": "failed", "error": "could not run", "skipped": "skipped",
           "not_applicable": "not applicable"}

#: An implementation's outcome.
IMPLEMENTATION = {"conforms": "conforms", "differs": "does not conform", "could_not_run": "could not run"}


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """`1 example`, `2 examples`."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def properties_counted(outcomes: list[str]) -> str:
    """`24 properties`, counting only the properties that ran, and how many more were not applicable."""
    ran = sum(outcome != "not_applicable" for outcome in outcomes)
    return counted(ran, "property", "properties") + (
        f" ({len(outcomes) - ran} more not applicable)" if ran < len(outcomes) else "")


def outcome_text(prop: dict) -> str:
    """A property's outcome; why it does not apply, when it does not (its message says)."""
    return prop["message"] if prop["outcome"] == "not_applicable" and prop["message"] else OUTCOME[prop["outcome"]]


def not_applicable(document: dict) -> list[str]:
    """For each implementation with properties that do not apply, one line naming them."""
    lines = []
    for impl in document["implementations"]:
        names = [p["property"] for p in impl["properties"] if p["outcome"] == "not_applicable"]
        if names:
            lines.append(f"Not applicable to {impl['name']} (no verdict, no pass): {', '.join(names)}.")
    return lines


def seed_text(document: dict, pattern: str) -> str:
    """The run's Hypothesis seed in `pattern` (`", seed {}"`), or nothing under a derandomized profile."""
    seed = document["seed"]
    return "" if seed is None else pattern.format(seed)

"""The per-feature summary of `replay --check`: for every feature, how many of the cases that need it
agree with their expected observation, differ, or were not run because the implementation does not
declare every feature they need (`window_contract.features.required_features`).

A case counts once under each feature it needs, so a feature's row says how an implementation fares on
everything that exercises it: a corpus (`python -m conformance corpus`) read feature by feature.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from window_contract.features import FEATURES

Outcome = Literal["agree", "differ", "unsupported"]
OUTCOMES: tuple[Outcome, ...] = ("agree", "differ", "unsupported")


def feature_summary(outcomes: Iterable[tuple[frozenset[str], Outcome]]) -> list[str]:
    """Table lines, one per feature that some case needs (in `FEATURES` order): cases, agree, differ,
    unsupported. `outcomes` holds each case's needed features and its outcome."""
    tally: Counter[tuple[str, Outcome]] = Counter()
    for needed, outcome in outcomes:
        tally.update((feature, outcome) for feature in needed)
    rows = [(feature, [sum(tally[feature, o] for o in OUTCOMES)] + [tally[feature, o] for o in OUTCOMES])
            for feature in FEATURES if any(tally[feature, o] for o in OUTCOMES)]
    width = max((len(feature) for feature, _ in rows), default=0)
    header = f"{'feature':<{width}}  {'cases':>5}  {'agree':>5}  {'differ':>6}  {'unsupported':>11}"
    return [header] + [f"{feature:<{width}}  {cases:>5}  {agree:>5}  {differ:>6}  {unsupported:>11}"
                       for feature, (cases, agree, differ, unsupported) in rows]

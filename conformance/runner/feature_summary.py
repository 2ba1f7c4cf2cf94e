"""The per-feature summary of `replay --check`: for every feature, how many of the cases that need it
agree with their expected observation, differ, or were not run because the implementation does not
declare every feature they need (`window_contract.features.needed_features`: a join case's too). Checked with a list of
divergences (`--divergences`), a case that differs is *explained* (the engine agrees with the dialect of
some listed divergences) or *unexplained*, each in a column of its own: an engine whose every case differs
from Flink as its list explains shows it, never as agreement.

A case counts once under each feature it needs, so a feature's row says how an implementation fares on
everything that exercises it: a corpus (`python -m conformance corpus`) read feature by feature.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

from window_contract.features import FEATURES, JOIN_FEATURES, SQL_JOIN_FEATURES

#: The rows' order: the window features, then the joins (a join case needs its join's and its window's).
ROWS = (*FEATURES, *JOIN_FEATURES, *SQL_JOIN_FEATURES)

Outcome = Literal["agree", "differ", "explained", "unexplained", "unsupported"]
#: The columns of a check against the expected observations alone.
OUTCOMES: tuple[Outcome, ...] = ("agree", "differ", "unsupported")
#: The columns of a check that applies a list of divergences.
WITH_DIVERGENCES: tuple[Outcome, ...] = ("agree", "explained", "unexplained", "unsupported")


def feature_summary(outcomes: Iterable[tuple[frozenset[str], Outcome]],
                    columns: tuple[Outcome, ...] = OUTCOMES) -> list[str]:
    """Table lines, one per feature that some case needs (in `ROWS` order): cases, then each of `columns`.
    `outcomes` holds each case's needed features and its outcome, one of `columns`."""
    tally: Counter[tuple[str, Outcome]] = Counter()
    for needed, outcome in outcomes:
        tally.update((feature, outcome) for feature in needed)
    rows = [(feature, [sum(tally[feature, o] for o in columns)] + [tally[feature, o] for o in columns])
            for feature in ROWS if any(tally[feature, o] for o in columns)]
    width = max((len(feature) for feature, _ in rows), default=0)
    names = ("cases", *columns)
    widths = [max(len(name), 5) for name in names]

    def line(first: str, cells: Iterable[object]) -> str:
        return "  ".join([f"{first:<{width}}", *(f"{cell:>{w}}" for cell, w in zip(cells, widths, strict=True))])

    return [line("feature", names)] + [line(feature, counts) for feature, counts in rows]

"""Equivalence of observations (docs/format.md); `conformance.difference` says how two differ.

Two observations are equivalent when their errors match, the watermarks the operator received are
the same sequence (where the case observes them), and, for every `at`, their firings, late and
dropped records are equal as multisets: Flink leaves the order of timers with equal timestamps
across keys unspecified, so the order within one `at` is the firing-order property's business.
Two observations that both end in `NEVER_ENDS` are compared before the last position either reached.
"""

from __future__ import annotations

from collections import Counter

from conformance.facts import NEVER_ENDS
from conformance.observation import Observation


def comparable(o: Observation, cut: int | None) -> Observation:
    """`o` without the outputs at positions `>= cut`."""
    if cut is None:
        return o
    kept = [tuple(x for x in getattr(o, part) if x.at < cut) for part in ("firings", "late", "dropped")]
    watermarks = None if o.watermarks is None else tuple(w for w in o.watermarks if w.at < cut)
    return Observation(*kept, o.error, watermarks)


def never_ends_cut(a: Observation, b: Observation) -> int | None:
    """Two implementations that both stop a case Flink never finishes stop at different points: their
    outputs are compared only before the last position either of them reached."""
    if not (a.error == b.error and a.error is not None and a.error.message == NEVER_ENDS):
        return None
    positions = [x.at for o in (a, b) for part in ("firings", "late", "dropped") for x in getattr(o, part)]
    return max(positions, default=None)


def equivalent(a: Observation, b: Observation) -> bool:
    cut = never_ends_cut(a, b)
    a, b = comparable(a, cut), comparable(b, cut)
    # Watermarks arrive in an order (a channel's increase is the valve's next output): a sequence.
    return a.error == b.error and a.watermarks == b.watermarks and all(
        Counter(getattr(a, part)) == Counter(getattr(b, part)) for part in ("firings", "late", "dropped"))

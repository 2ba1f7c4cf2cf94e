"""Equivalence of observations (docs/format.md); `window_contract.difference` says how two differ.

Two observations are equivalent when their errors match, the watermarks the operator received are
the same sequence (where the case observes them), and, for every `at`, their firings, late and
dropped records are equal as multisets: Flink leaves the order of timers with equal timestamps
across keys unspecified, so the order within one `at` is the firing-order property's business.
Two observations that both end in `NEVER_ENDS`, or both in `TOO_MANY_OUTPUTS`, are compared before the last
position either reached.

A position-free implementation cannot tell when it emitted something: its observations have no `at`
(`None`). Compared with one, both observations lose their positions, so outputs are equal as
multisets over the whole case; what it cannot observe either (a firing's `watermark`, the operator's
input `watermarks`: `None`) is left out of both.
"""

from __future__ import annotations

from collections import Counter

from window_contract.facts import NEVER_ENDS, TOO_MANY_OUTPUTS
from window_contract.observation import Firing, InputWatermark, LateRecord, Observation

OUTPUTS = ("firings", "late", "dropped")
#: The contract's stops in the middle of an event: where within it each implementation stopped, and what
#: other keys' timers of the same moment emitted first (in an order Flink leaves open), differ.
STOPS_WITHIN_AN_EVENT = frozenset({NEVER_ENDS, TOO_MANY_OUTPUTS})


def comparable(o: Observation, cut: int | None) -> Observation:
    """`o` without the outputs at positions `>= cut`."""
    if cut is None:
        return o
    kept = [tuple(x for x in getattr(o, part) if x.at < cut) for part in OUTPUTS]
    watermarks = None if o.watermarks is None else tuple(w for w in o.watermarks if w.at < cut)
    return Observation(*kept, o.error, watermarks)


def never_ends_cut(a: Observation, b: Observation) -> int | None:
    """Two implementations that both stop a case within an event (one Flink never finishes, or a key's
    outputs past the limit) stop at different points of it: their outputs are compared only before the
    last position either of them reached."""
    if not (a.error == b.error and a.error is not None and a.error.message in STOPS_WITHIN_AN_EVENT):
        return None
    positions = [x.at for o in (a, b) for part in OUTPUTS for x in getattr(o, part)]
    if None in positions:
        return None  # a position-free implementation's outputs are compared whole
    return max(positions, default=None)


def position_free(o: Observation) -> bool:
    """Whether `o` comes from a position-free implementation: an output without `at`."""
    return any(x.at is None for part in OUTPUTS for x in getattr(o, part)) or any(
        w.at is None for w in o.watermarks or ())


def without_positions(o: Observation, firing_watermarks: bool, watermarks: bool) -> Observation:
    """`o` with every `at` unknown; without its firings' watermarks and its input watermarks unless kept. (Built
    field by field: `dataclasses.replace` took a fifth of the time of an attribution, which compares an engine's
    observation with hundreds of dialects'.)"""
    return Observation(
        tuple(Firing(None, f.key, f.window, f.timestamp, f.values, f.watermark if firing_watermarks else None)
              for f in o.firings),
        *(tuple(LateRecord(None, r.key, r.value, r.ts) for r in getattr(o, part)) for part in ("late", "dropped")),
        o.error,
        tuple(InputWatermark(None, w.watermark) for w in o.watermarks)
        if watermarks and o.watermarks is not None else None)


def as_compared(a: Observation, b: Observation, positions: bool = True) -> tuple[Observation, Observation]:
    """`a` and `b` as equivalence compares them: cut before where both never end; without positions
    (and without what either could not observe) when either is position-free, or not `positions`
    (an observation without outputs does not tell: the caller that knows the implementation does)."""
    if not positions or position_free(a) or position_free(b):
        firing_watermarks = all(f.watermark is not None for o in (a, b) for f in o.firings)
        watermarks = a.watermarks is not None and b.watermarks is not None
        return tuple(without_positions(o, firing_watermarks, watermarks) for o in (a, b))
    cut = never_ends_cut(a, b)
    return comparable(a, cut), comparable(b, cut)


def equivalent(a: Observation, b: Observation, positions: bool = True) -> bool:
    a, b = as_compared(a, b, positions)
    # Watermarks arrive in an order (a channel's increase is the valve's next output): a sequence.
    return a.error == b.error and a.watermarks == b.watermarks and all(
        Counter(getattr(a, part)) == Counter(getattr(b, part)) for part in OUTPUTS)

"""Generating to fit: which parts of the case format an implementation lets a strategy use.

`window_contract.features.required_features(case)` says what a case needs; a strategy restricted to
`features` only draws from the parts whose features are in that set, so every case it builds fits
(`required_features(case) <= features`) without filtering.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis.errors import InvalidArgument

from window_contract.case import ASSIGNERS
from window_contract.features import ALL_FEATURES, FEATURES


def supported(features: Iterable[str] | None) -> frozenset[str]:
    """`features` checked against the known names; `None` means every feature."""
    if features is None:
        return ALL_FEATURES
    chosen = frozenset(features)
    unknown = chosen - ALL_FEATURES
    if unknown:
        raise InvalidArgument(f"unknown feature names {sorted(unknown)}; known: {sorted(FEATURES)}")
    if not any(kind.feature.name in chosen for kind in ASSIGNERS):
        raise InvalidArgument("features must include at least one assigner.* feature: every case "
                              "needs its assigner's feature")
    return chosen

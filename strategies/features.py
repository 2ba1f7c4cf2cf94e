"""Generating to fit: which parts of the case format an implementation lets a strategy use.

`window_contract.features.required_features(case)` says what a case needs; a strategy restricted to
`features` only draws from the parts whose features are in that set, so every case it builds fits
(`required_features(case) <= features`) without filtering; `within_long_range` fits a drawn case to an
implementation without `extreme_values`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from hypothesis import assume
from hypothesis.errors import InvalidArgument

from window_contract.case import ASSIGNERS, Case
from window_contract.features import ALL_FEATURES, ALL_JOIN_NAMES, EXTREME_VALUES, FEATURES
from window_contract.long_sums import lateness_headroom, overflows


def supported(features: Iterable[str] | None) -> frozenset[str]:
    """`features` checked against the known names; `None` means every feature."""
    if features is None:
        return ALL_FEATURES
    chosen = frozenset(features) - ALL_JOIN_NAMES  # a join feature draws no window case
    unknown = chosen - ALL_FEATURES
    if unknown:
        raise InvalidArgument(f"unknown feature names {sorted(unknown)}; known: {sorted(FEATURES)}")
    if not any(kind.feature.name in chosen for kind in ASSIGNERS):
        raise InvalidArgument("features must include at least one assigner.* feature: every case "
                              "needs its assigner's feature")
    return chosen


def within_long_range(case: Case, features: frozenset[str]) -> Case:
    """`case` as an implementation without `extreme_values` may be sent it: where one of Flink's `long` sums
    would leave the range (`window_contract.long_sums`), the allowed lateness is lowered to the most with which
    none does (the highest window's cleanup time, or an element's `ts + allowedLateness`, is then exactly
    `Long.MAX_VALUE`: the top of what such an implementation is held to); a case that overflows without any
    lateness (times and windows just inside +-2^62) is rejected. Anything else is left as it is drawn."""
    if EXTREME_VALUES.name in features or not overflows(case):
        return case
    fitted = replace(case, allowed_lateness=min(case.allowed_lateness, max(0, lateness_headroom(case))))
    assume(not overflows(fitted))
    return fitted

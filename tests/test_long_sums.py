"""`extreme_values` says what it draws: every case on which the model's Java `long` arithmetic wraps needs it.

The reference computes Flink's sums through `reference.javalong`; a wrap there (or a cleanup time that overflows
and saturates) is watched while the reference runs a case, and the case must need `extreme_values`
(`window_contract.long_sums` bounds the sums from the case alone). Without that feature the strategies draw no
such case, and the lateness they would have drawn is lowered to the most that fits.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference.javalong as javalong
from reference.implementation import ReferenceImplementation
from reference.operator import WindowOperator
from strategies import cases, extreme_cases
from strategies.watermarks import generated_watermark_cases
from window_contract import Case, record, sliding, tumbling, watermark
from window_contract.case import ContinuousEventTimeTrigger, Global
from window_contract.case_json import JOIN_CASES_SUFFIX, load_cases
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.features import ALL_FEATURES, FEATURES, required_features
from window_contract.long_sums import lateness_headroom, overflows

ROOT = Path(__file__).resolve().parent.parent
WITHOUT_EXTREMES = ALL_FEATURES - {"extreme_values"}


@pytest.fixture
def wraps(monkeypatch):
    """`wraps(case)`: whether the reference's `long` arithmetic wraps (or a cleanup time saturates) on `case`."""
    seen: list[int] = []
    plain_wrap, plain_cleanup = javalong.wrap, WindowOperator.cleanup_time

    def wrap(x: int) -> int:
        if not LONG_MIN <= x <= LONG_MAX:
            seen.append(x)
        return plain_wrap(x)

    def cleanup_time(operator, window):
        if operator.is_event_time and window.max_timestamp() + operator.allowed_lateness > LONG_MAX:
            seen.append(window.max_timestamp() + operator.allowed_lateness)
        return plain_cleanup(operator, window)

    monkeypatch.setattr(javalong, "wrap", wrap)
    monkeypatch.setattr(WindowOperator, "cleanup_time", cleanup_time)

    def run(case: Case) -> bool:
        seen.clear()
        ReferenceImplementation().run([case])
        return bool(seen)
    return run


DRAWN = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                        HealthCheck.function_scoped_fixture])


@DRAWN
@given(st.one_of(cases(), extreme_cases(), generated_watermark_cases(mixed=True)))
def test_a_case_on_which_the_model_wraps_needs_extreme_values(wraps, case):
    if wraps(case):
        assert "extreme_values" in required_features(case)


def test_every_committed_case_that_wraps_needs_extreme_values(wraps):
    files = sorted(p for folder in ("cases", "corpus") for p in (ROOT / folder).rglob("*.json")
                   if p.name not in {"index.json", "divergences.json"} and not p.name.startswith(".")
                   and not p.name.endswith(JOIN_CASES_SUFFIX))
    wrapping = [(path, case) for path in files for case in load_cases(path) if wraps(case)]
    assert len(wrapping) > 20  # the hand cases of cleanup overflow, wrapped sliding loops, Long.MAX_VALUE lateness
    assert [(p.name, c.name) for p, c in wrapping if "extreme_values" not in required_features(c)] == []


def test_long_max_lateness_needs_extreme_values_once_it_is_added_to_a_time():
    """The issue's case: `ts + Long.MAX_VALUE` wraps negative, and Flink sends an on-time record to the side output."""
    case = Case(window=sliding(5, 10), allowed_lateness=LONG_MAX, late_side_output=True,
                events=[record("a", 1, 7), watermark(0)])
    assert "extreme_values" in required_features(case)
    assert "extreme_values" not in required_features(Case(window=tumbling(10), allowed_lateness=LONG_MAX))
    # The most lateness that fits: the window [0, 10)'s cleanup time is Long.MAX_VALUE exactly, no sum wraps.
    on_time = replace(case, window=tumbling(10))
    assert lateness_headroom(on_time) == LONG_MAX - 9
    assert not overflows(replace(on_time, allowed_lateness=LONG_MAX - 9))
    assert overflows(replace(on_time, allowed_lateness=LONG_MAX - 8))


def test_a_continuous_trigger_on_the_global_window_counts_up_to_the_watermark_or_the_runaway_stop():
    on_global = Case(window=Global(), trigger=ContinuousEventTimeTrigger(2**40), events=[record("a", 1, 1)],
                     end_of_input=False)
    assert not overflows(on_global)
    assert overflows(Case(window=Global(), trigger=ContinuousEventTimeTrigger(2**60), events=on_global.events))


@DRAWN
@given(st.one_of(cases(WITHOUT_EXTREMES), generated_watermark_cases(WITHOUT_EXTREMES, mixed=True)))
def test_without_extreme_values_no_case_drawn_wraps(wraps, case):
    assert not wraps(case)
    assert required_features(case) <= WITHOUT_EXTREMES


def test_the_lateness_that_would_wrap_is_lowered_to_the_most_that_fits():
    topped: list[Case] = []

    @settings(max_examples=400, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(cases(WITHOUT_EXTREMES, report=False))
    def collect(case):
        if case.allowed_lateness and case.allowed_lateness == lateness_headroom(case):
            topped.append(case)
    collect()
    assert topped, "no drawn case had its lateness lowered to the top of the long range"


def test_the_feature_says_what_it_draws():
    assert "2^62" in FEATURES["extreme_values"] and "ts + allowed lateness" in FEATURES["extreme_values"]

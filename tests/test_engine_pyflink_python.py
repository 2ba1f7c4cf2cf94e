"""The `pyflink-python` engine: PyFlink 2.3's Python `WindowOperator` driven in-process.

The translation is checked on hand cases (their observations are the reference's, Flink's where they
agree), and every divergence from Flink 2.x that it shows is a case file under
`cases/engines/pyflink-python/` that its porting page's prose (`about.md`) links: each differs on
`pyflink-python` and agrees on `reference`.
"""

from __future__ import annotations

import pytest
from engine_pages import ROOT, about, assert_the_suite_finds_what_the_section_names

from engines import pyflink_python
from window_contract import Case, load_implementation, record, tumbling, watermark
from window_contract.case import (
    ContinuousEventTimeTrigger,
    CountTrigger,
    Global,
    PurgingTrigger,
    Session,
    Sliding,
)
from window_contract.case_json import case_files, load_cases
from window_contract.difference import difference
from window_contract.facts import NEVER_ENDS, TOO_MANY_OUTPUTS
from window_contract.features import required_features
from window_contract.observation import Error, Firing, LateRecord, TimeWindow

SECTION = about("pyflink-python")
#: Hand cases from `cases/` on which PyFlink's operator agrees with Flink.
AGREEING = ["cases/tumbling", "cases/sliding/assignment.json"]


@pytest.fixture(scope="module")
def engine():
    return load_implementation("pyflink-python")


@pytest.fixture(scope="module")
def reference():
    return load_implementation("reference")


def observe(engine, case: Case):
    return engine.run([case])[0]


def test_declares_what_pyflinks_python_api_offers(engine):
    """Keyed `WindowedStream` in PyFlink has no `evictor`, and `count_window` fires `CountWindow`s the
    contract cannot name; processing time and generated watermarks are not translated."""
    assert engine.name == "pyflink-python"
    assert not any(f.startswith(("evictor.", "watermark.", "channel.")) for f in engine.features)
    assert {"assigner.count", "time.processing", "extreme_values", "channels"}.isdisjoint(engine.features)
    assert {"assigner.tumbling", "assigner.sliding", "assigner.session", "assigner.global",
            "late_side_output", "allowed_lateness"} <= engine.features


def test_tumbling_window_fires_when_the_watermark_reaches_its_max_timestamp(engine):
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), record("a", 2, ts=9), watermark(8), watermark(9)])
    assert observe(engine, case).firings == (Firing(3, "a", TimeWindow(0, 10), 9, (1, 2), 9),)


def test_late_record_is_dropped_through_the_operators_counter_or_sent_to_the_side_output(engine):
    events = [record("a", 1, ts=3), watermark(9), record("a", 2, ts=4)]
    dropped = observe(engine, Case(window=tumbling(10), events=events))
    assert dropped.dropped == (LateRecord(2, "a", 2, 4),) and dropped.late == ()
    side = observe(engine, Case(window=tumbling(10), events=events, late_side_output=True))
    assert side.late == (LateRecord(2, "a", 2, 4),) and side.dropped == ()


def test_sessions_merge_in_pyflinks_merging_window_set(engine):
    case = Case(window=Session(5), events=[record("a", 1, ts=0), record("a", 2, ts=8), record("a", 3, ts=4)])
    assert observe(engine, case).firings == (Firing(3, "a", TimeWindow(0, 13), 12, (1, 2, 3), 2**63 - 1),)


def test_an_invalid_assigner_is_pyflinks_own_rejection(engine):
    observation = observe(engine, Case(window=Sliding(10, 5, offset=5), events=[record("a", 1, ts=1)]))
    assert observation.error.kind == "invalid_spec"
    assert observation.error.message.startswith("SlidingEventTimeWindows parameters must satisfy")


def test_timers_registered_while_firing_fire_in_the_same_watermark(engine):
    """`InternalTimerServiceImpl.advanceWatermark`: ContinuousEventTimeTrigger(2) chains 2, 4, 6, 8, 9."""
    case = Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(2), events=[record("k", 1, ts=0), watermark(9)])
    assert [f.timestamp for f in observe(engine, case).firings] == [2, 4, 6, 8, 9]


def test_a_burst_past_the_adapters_timer_limit_is_stopped(engine, monkeypatch):
    # At the end of input the purged global window's periodic timers run up to Long.MAX_VALUE, 2^23 of them:
    # PyFlink fires each one (minutes), and the adapter stops the advance past its limit.
    monkeypatch.setattr(pyflink_python, "PYFLINK_TIMERS", 1000)
    case = Case(window=Global(), trigger=PurgingTrigger(ContinuousEventTimeTrigger(2**40)),
                events=[record("a", 1, ts=0), record("a", 2, ts=1)])
    observation = observe(engine, case)
    assert observation.error.kind == "runtime" and observation.error.message == NEVER_ENDS
    assert [f.values for f in observation.firings] == [(1, 2)]


def test_a_finite_burst_of_periodic_timers_completes(engine):
    """Issue 48: 100,499 periodic timers in one watermark, all but the first over a purged window, then a
    record that the next one fires: PyFlink fires each timer, and ends."""
    case = Case(window=Global(), trigger=PurgingTrigger(ContinuousEventTimeTrigger(1)), end_of_input=False,
                events=[record("a", 1, ts=0), watermark(100_500), record("a", 2, ts=100_501), watermark(100_502)])
    observation = observe(engine, case)
    assert observation.error is None
    assert [(f.at, f.values) for f in observation.firings] == [(1, (1,)), (3, (2,))]


def test_a_key_past_the_output_limit_stops_the_case(engine, monkeypatch):
    monkeypatch.setattr(pyflink_python, "OUTPUT_LIMIT", 3)
    case = Case(window=Global(), trigger=ContinuousEventTimeTrigger(1), end_of_input=False,
                events=[record("a", 1, ts=0), watermark(2), record("b", 2, ts=3), watermark(100)])
    observation = observe(engine, case)
    # a's fourth firing stops the case; b's firings before it do not count towards a's limit
    assert observation.error == Error("runtime", TOO_MANY_OUTPUTS)
    assert [f.at for f in observation.firings if f.key == "a"] == [1, 1, 3]


@pytest.mark.parametrize("path", AGREEING)
def test_hand_cases_agree_with_flink(engine, path):
    cases = [c for p in case_files([ROOT / path]) for c in load_cases(p) if required_features(c) <= engine.features]
    assert cases, f"{path} has no case pyflink-python supports"
    for case, observation in zip(cases, engine.run(cases), strict=True):
        assert not difference(case.expected, observation, len(case.events)), case.name


def test_a_count_trigger_keeps_one_sessions_count_when_sessions_merge(engine):
    """PyFlink's reducing state is the JVM's list state (`BeamBagStateHandler`): a merge appends the counts of
    [0, 10) and [16, 26) into one bag whose value is its first element, 1; the record at 8 makes it 2, the next
    one 3, and only then does the window fire (Flink's count reaches 3 at the record at 8)."""
    case = Case(window=Session(10), trigger=PurgingTrigger(CountTrigger(3)),
                events=[record("a", 1, ts=0), record("a", 2, ts=16), record("a", 3, ts=8), record("a", 4, ts=9)])
    assert [(f.at, f.window, f.values) for f in observe(engine, case).firings] == [(3, TimeWindow(0, 26), (1, 2, 3, 4))]


@pytest.mark.engine_suite
def test_the_suite_finds_the_divergences_the_readme_names(tmp_path):
    """The property suite (on its manifest's budget) against the engine: it differs, on exactly the properties
    the README lists, and every minimal counterexample shows a difference one of its points explains."""
    assert_the_suite_finds_what_the_section_names(tmp_path / "report", "pyflink-python", SECTION)

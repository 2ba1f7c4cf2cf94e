"""The `bytewax` engine: Bytewax 0.21's windowing operators, a process in its own environment (`.venv-bytewax`).

The translation is checked on hand cases through the process, as the suite runs it (Bytewax answers
position-free: no `at`, no watermark on a firing); every divergence from Flink 2.x that it shows is listed in
`cases/engines/bytewax/divergences.toml` with its case, which `tests/test_divergences.py` holds to the engine and
to the prose of its porting page (`cases/engines/bytewax/about.md`).
"""

from __future__ import annotations

import pytest
from engine_pages import ROOT
from engine_under_test import (
    assert_a_late_record_is_reported_once,
    assert_a_listed_watermark_closes_what_flinks_closes,
    assert_declares,
    engine_fixtures,
    fired,
    observe,
    suite_test,
)

from window_contract import Case, record, session, sliding, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessWatermarks
from window_contract.case_json import case_files, load_cases
from window_contract.difference import difference
from window_contract.facts import TOO_MANY_WINDOWS
from window_contract.features import required_features
from window_contract.observation import Error, LateRecord, Observation, TimeWindow

#: Hand cases from `cases/` on which Bytewax agrees with Flink.
AGREEING = ["cases/tumbling/window_start.json", "cases/tumbling/old_window_start_formula.json", "cases/seeds",
            "cases/watermarks/punctuated.json"]
engine, reference = engine_fixtures("bytewax")


def test_declares_what_bytewax_windowing_offers_and_says_it_is_position_free(engine):
    assert_declares(engine, "bytewax",
                    {"assigner.tumbling", "assigner.sliding", "assigner.session", "offset", "late_side_output",
                     "unbounded_input", "watermark.bounded_out_of_orderness", "watermark.punctuated"},
                    {"allowed_lateness", "assigner.global", "assigner.count", "trigger.count", "time.processing",
                     "watermark.periodic", "watermark.idleness", "channels", "extreme_values"})


def test_flinks_watermark_is_bytewaxs_one_millisecond_later(engine):
    """A record of a closed window is late (the key keeps a window open, `[20, 30)`, and with it its watermark:
    forgets_watermark.json)."""
    assert_a_listed_watermark_closes_what_flinks_closes(engine, lambda window: window.end - 1)


def test_a_bounded_out_of_orderness_generator_is_an_event_clock_waiting_the_bound(engine, reference):
    """One key: Flink's `max - bound - 1` and Bytewax's `max - bound` close the same windows at the same record."""
    case = Case(window=tumbling(10), late_side_output=True,
                watermark_generator=BoundedOutOfOrdernessWatermarks(2, punctuated=True, interval=0),
                events=[record("a", 1, ts=3), record("a", 2, ts=11), record("a", 3, ts=9), record("a", 4, ts=12),
                        record("a", 5, ts=25), record("a", 6, ts=12)])
    flink = observe(reference, case)
    assert not difference(flink, observe(engine, case), len(case.events))
    assert [f.values for f in flink.firings] == [(1, 3), (2, 4), (5,)] and flink.late == (LateRecord(5, "a", 6, 12),)


def test_the_late_stream_is_the_side_output_or_what_is_dropped(engine):
    """Each late record once, although Bytewax sends it down the late stream for each of its sliding windows."""
    assert_a_late_record_is_reported_once(engine, lambda window: window.end - 1)


def test_a_session_is_named_as_flink_names_it_first_to_last_plus_gap(engine):
    case = Case(window=session(5), events=[record("a", 1, ts=0), record("a", 2, ts=8), record("a", 3, ts=4),
                                           record("a", 4, ts=20)])
    assert observe(engine, case) == Observation(firings=(fired(TimeWindow(0, 13), (1, 2, 3)),
                                                         fired(TimeWindow(20, 25), (4,))))


def test_input_without_end_aborts_the_dataflow_with_nothing_flushed(engine):
    case = Case(window=tumbling(10), end_of_input=False,
                events=[record("a", 1, ts=3), watermark(9), record("a", 2, ts=15)])
    assert observe(engine, case) == Observation(firings=(fired(TimeWindow(0, 10), (1,)),))


def test_an_exception_in_the_dataflow_fails_the_job_after_what_it_emitted(engine):
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), watermark(9), record("a", 2, ts=2**50)])
    assert observe(engine, case) == Observation(
        firings=(fired(TimeWindow(0, 10), (1,)),),
        error=Error("runtime", "OverflowError: date value out of range"))


def test_an_element_with_too_many_windows_stops_the_case_there(engine):
    case = Case(window=sliding(20_001, 2), events=[record("a", 1, ts=3), record("a", 2, ts=4)])
    observation = observe(engine, case)
    assert observation.error == Error("runtime", TOO_MANY_WINDOWS) and observation.firings == ()


def test_a_listed_watermark_before_any_record_stops_the_case_when_its_marker_has_too_many_windows(engine):
    """The marker a listed watermark is sent as is late, and `late_for` lists every window that holds it: 10,000,001
    of them stalled a census for a minute a case."""
    case = Case(window=sliding(60_000_006, 6), events=[watermark(46), record("a", 1, ts=52), watermark(107)])
    assert observe(engine, case).error == Error("runtime", TOO_MANY_WINDOWS)


@pytest.mark.parametrize("path", AGREEING)
def test_hand_cases_agree_with_flink(engine, path):
    cases = [c for p in case_files([ROOT / path]) for c in load_cases(p) if required_features(c) <= engine.features]
    assert cases, f"{path} has no case bytewax supports"
    for case, observation in zip(cases, engine.run(cases), strict=True):
        assert not difference(case.expected, observation, len(case.events)), case.name


#: The property suite against the engine on its manifest's budget (cases/engines/<engine>/engine.toml): the
#: properties it breaks are its page's, and the list explains each minimal counterexample.
test_the_suite_finds_the_divergences_the_readme_names = suite_test("bytewax")

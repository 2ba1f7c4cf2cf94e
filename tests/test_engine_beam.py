"""The `beam` engine: Apache Beam's Python SDK on the direct runner, a process in its own environment.

The translation is checked on hand cases through the process, as the suite runs it (Beam answers
position-free: no `at`, no watermark on a firing), and every divergence from Flink 2.x that it shows is
a case file under `cases/engines/beam/` that its porting page's prose (`about.md`) links: each differs on `beam`
and agrees on `reference`.
"""

from __future__ import annotations

import pytest
from engine_pages import ROOT, about, assert_the_suite_finds_what_the_section_names

from window_contract import Case, load_implementation, record, tumbling, watermark
from window_contract.case import CountTrigger, EventTimeTrigger, PurgingTrigger, Session, Sliding
from window_contract.case_json import case_files, load_cases
from window_contract.difference import difference
from window_contract.features import required_features
from window_contract.observation import Firing, LateRecord, Observation, TimeWindow

SECTION = about("beam")
#: Hand cases from `cases/` on which Beam agrees with Flink.
AGREEING = ["cases/tumbling/window_start.json", "cases/sliding/assignment.json", "cases/seeds"]


@pytest.fixture(scope="module")
def engine():
    beam = load_implementation("beam")
    yield beam
    beam.close()


@pytest.fixture(scope="module")
def reference():
    return load_implementation("reference")


def observe(engine, case: Case):
    return engine.run([case])[0]


def fired(window: TimeWindow, values: tuple[int, ...], key: str = "a") -> Firing:
    """A firing as Beam reports it: its window's `max_timestamp()`, no position, no watermark."""
    return Firing(None, key, window, window.end - 1, values, None)


def test_declares_what_beams_windowing_offers_and_says_it_is_position_free(engine):
    """Beam has no evictors, count windows, processing-time windows, late side output or event-time timer
    trigger, and its `TestStream` always ends with the watermark at infinity."""
    assert engine.name == "beam" and engine.position_free and engine.costly_calls
    assert not any(f.startswith(("evictor.", "watermark.", "channel.")) for f in engine.features)
    assert {"assigner.count", "time.processing", "late_side_output", "unbounded_input", "extreme_values",
            "trigger.continuous_event_time", "channels"}.isdisjoint(engine.features)
    assert {"assigner.tumbling", "assigner.sliding", "assigner.session", "assigner.global", "allowed_lateness",
            "trigger.event_time", "trigger.count", "trigger.purging", "trigger.never"} <= engine.features


def test_flinks_watermark_is_beams_one_millisecond_later(engine):
    """Flink's `Watermark(9)` (nothing at or before 9 follows) fires `[0, 10)`: Beam's watermark 10. A record
    of a window past its lateness is dropped (the boundary itself differs: lateness_boundary.json)."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), record("a", 2, ts=9), watermark(8), watermark(9),
                                             record("a", 3, ts=10), watermark(20), record("a", 4, ts=10)])
    assert observe(engine, case) == Observation(
        firings=(fired(TimeWindow(0, 10), (1, 2)), fired(TimeWindow(10, 20), (3,))),
        dropped=(LateRecord(None, "a", 4, 10),))


def test_records_after_a_max_watermark_reach_beam_and_are_dropped(engine):
    """`Watermark(Long.MAX_VALUE)` is `advance_watermark_to_infinity`; what follows is still sent."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), watermark(2**63 - 1), record("a", 2, ts=4),
                                             record("b", 3, ts=50)])
    assert observe(engine, case) == Observation(
        firings=(fired(TimeWindow(0, 10), (1,)),),
        dropped=(LateRecord(None, "a", 2, 4), LateRecord(None, "b", 3, 50)))


def test_a_late_record_within_the_lateness_fires_the_window_again_with_everything(engine):
    """Flink's `EventTimeTrigger` is `AfterWatermark(late=AfterCount(1))`, panes accumulate."""
    case = Case(window=tumbling(10), trigger=EventTimeTrigger(), allowed_lateness=5,
                events=[record("a", 1, ts=3), watermark(9), record("a", 2, ts=4)])
    assert observe(engine, case).firings == (fired(TimeWindow(0, 10), (1,)), fired(TimeWindow(0, 10), (1, 2)))


def test_purging_is_discarding_panes(engine):
    case = Case(window=tumbling(10), trigger=PurgingTrigger(CountTrigger(2)),
                events=[record("a", 1, ts=0), record("a", 2, ts=8), record("a", 3, ts=4), record("a", 4, ts=5)])
    assert observe(engine, case).firings == (fired(TimeWindow(0, 10), (1, 2)), fired(TimeWindow(0, 10), (3, 4)))


def test_sessions_merge_and_sliding_windows_align_negative_times_down(engine):
    sessions = Case(window=Session(5), events=[record("a", 1, ts=0), record("a", 2, ts=8), record("a", 3, ts=4)])
    sliding = Case(window=Sliding(10, 5), events=[record("a", 1, ts=-3)])
    assert engine.run([sessions, sliding]) == [
        Observation(firings=(fired(TimeWindow(0, 13), (1, 2, 3)),)),
        Observation(firings=(fired(TimeWindow(-10, 0), (1,)), fired(TimeWindow(-5, 5), (1,))))]


def test_a_window_beam_will_not_build_is_its_own_rejection(engine):
    observation = observe(engine, Case(window=tumbling(0), events=[record("a", 1, ts=1)]))
    assert observation.error.kind == "invalid_spec"
    assert observation.error.message == "ValueError: The size parameter must be strictly positive."


def test_cases_sharing_a_pipeline_answer_as_each_alone(engine):
    """Batch cases (no watermark before the end) share a `TestStream`, keyed apart; one that fails the
    pipeline runs again alone, so it fails no other case."""
    cases = [Case(window=tumbling(10), events=[record("a", v, ts=v) for v in range(3)]),
             Case(window=Session(2), events=[record("a", 1, ts=0), record("b", 2, ts=1)]),
             Case(window=tumbling(10), trigger=CountTrigger(2), events=[record("a", v, ts=v) for v in range(3)])]
    together = engine.run(cases)
    assert together == [observe(engine, case) for case in cases]
    assert together[0].error is None and together[1].error is None and together[2].error is not None


@pytest.mark.parametrize("path", AGREEING)
def test_hand_cases_agree_with_flink(engine, path):
    cases = [c for p in case_files([ROOT / path]) for c in load_cases(p) if required_features(c) <= engine.features]
    assert cases, f"{path} has no case beam supports"
    for case, observation in zip(cases, engine.run(cases), strict=True):
        assert not difference(case.expected, observation, len(case.events)), case.name


#: The properties run against Beam in CI, where a pipeline costs a second or two: the differential check and
#: two invariants on what a firing holds (most others need positions or the late side output, which Beam lacks).


@pytest.mark.engine_suite
def test_the_suite_finds_the_divergences_the_readme_names(tmp_path):
    """The property suite (on its manifest's budget) against the engine: it differs, on exactly
    the properties the README lists, and every minimal counterexample shows a difference one of its points
    explains."""
    assert_the_suite_finds_what_the_section_names(tmp_path / "report", "beam", SECTION)

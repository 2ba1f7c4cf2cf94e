"""The `hazelcast-jet` engine: Hazelcast Jet 5.7 on one embedded member, a Java process (engines/jvm/hazelcast-jet/).

The translation is checked on hand cases through the process, as the suite runs it (position-free: no `at`, no
watermark on a firing), and every divergence from Flink 2.x that it shows is a case file under
`cases/engines/hazelcast-jet/` that the README's section on Hazelcast Jet links: each differs on the engine and agrees
on `reference`.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from engine_readme import ROOT, assert_the_suite_finds_what_the_section_names, linked_divergence_files, readme_section

from window_contract import Case, load_implementation, record, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessWatermarks, EventTimeTrigger, Session, Sliding
from window_contract.case_json import load_cases
from window_contract.difference import difference
from window_contract.features import required_features
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow

SECTION = readme_section("Hazelcast Jet")
DIVERGENCES = ROOT / "cases" / "engines" / "hazelcast-jet"
#: The adapter's stop for a case whose watermarks would make Jet's window stage walk too far (CaseSourceP).
WALK_STOPPED = ("Hazelcast Jet walks every window end up to each watermark, empty ones included, and combines each "
                "window from its frames: this case's walk passes 10,000,000 frames (stopped)")


@pytest.fixture(scope="module")
def engine():
    jet = load_implementation("hazelcast-jet")
    yield jet
    jet.close()


@pytest.fixture(scope="module")
def reference():
    return load_implementation("reference")


def observe(engine, case: Case) -> Observation:
    return engine.run([case])[0]


def result(window: TimeWindow, values: tuple[int, ...], key: str = "a") -> Firing:
    """A Jet window result as a firing: no position, no watermark, the timestamp Jet gives it (`winEnd - 1`)."""
    return Firing(None, key, window, window.end - 1, values, None)


def dropped(value: int, ts: int, key: str = "a") -> LateRecord:
    return LateRecord(None, key, value, ts)


def unordered(o: Observation) -> Observation:
    """`o` with its firings in one order: the results of one watermark come in the order of Jet's hash maps."""
    return replace(o, firings=tuple(sorted(o.firings, key=lambda f: (f.key, f.window.start, f.window.end))))


def test_declares_what_the_pipeline_api_expresses_and_says_it_is_position_free(engine):
    """Windows without offsets, event time only, one result per window (no other trigger), no allowed lateness or
    late side output; Flink's punctuated generators as the allowed lag."""
    assert engine.name == "hazelcast-jet" and engine.position_free and engine.costly_calls
    assert engine.features == {
        "assigner.tumbling", "assigner.sliding", "assigner.session", "trigger.event_time", "negative_timestamps",
        "unbounded_input", "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.legacy_ascending",
        "watermark.punctuated"}


def test_a_watermark_is_jets_one_millisecond_later(engine):
    """Flink's `Watermark(9)` is Jet's 10, which emits `[0, 10)`; the record at 10 after `Watermark(20)` is dropped
    (its window was emitted), and counted as Flink counts it; a watermark that does not increase changes nothing."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), record("a", 2, ts=9), watermark(8), watermark(9),
                                             watermark(9), watermark(4), record("a", 3, ts=10), watermark(20),
                                             record("a", 4, ts=10), record("a", 5, ts=-1)])
    assert observe(engine, case) == Observation(
        firings=(result(TimeWindow(0, 10), (1, 2)), result(TimeWindow(10, 20), (3,))),
        dropped=(dropped(4, 10), dropped(5, -1)))


def test_the_bound_is_the_allowed_lag(engine, reference):
    """`forBoundedOutOfOrderness(2)` and `withTimestamps(ts, 2)` both emit `[0, 10)` at the record 12: the record at 6
    that follows is dropped by both, and the two agree on the whole case."""
    case = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(2, punctuated=True),
                events=[record("a", 1, ts=3), record("a", 2, ts=11), record("a", 3, ts=5), record("a", 4, ts=12),
                        record("a", 5, ts=6)])
    assert observe(engine, case) == Observation(
        firings=(result(TimeWindow(0, 10), (1, 3)), result(TimeWindow(10, 20), (2, 4))), dropped=(dropped(5, 6),))
    assert not difference(observe(reference, case), observe(engine, case), len(case.events))


def test_without_end_of_input_the_last_windows_stay(engine):
    """The source does not complete, so Jet does not emit what it holds; a late record is still dropped."""
    case = Case(window=tumbling(10), end_of_input=False, events=[record("a", 1, ts=3), watermark(9),
                                                                  record("a", 2, ts=15), record("a", 3, ts=4)])
    assert observe(engine, case) == Observation(firings=(result(TimeWindow(0, 10), (1,)),), dropped=(dropped(3, 4),))


def test_sliding_and_session_windows(engine):
    """Frames of the slide, windows a multiple of it; sessions merge records less than a gap apart (an explicit
    `EventTimeTrigger` is the default), and a session's result carries its end - 1."""
    sliding = Case(window=Sliding(20, 10), events=[record("a", 1, ts=12), record("a", 2, ts=-3)])
    sessions = Case(window=Session(5), trigger=EventTimeTrigger(),
                    events=[record("a", 1, ts=0), record("a", 2, ts=4), record("b", 3, ts=1), watermark(20),
                            record("a", 4, ts=30)])
    assert [unordered(o) for o in engine.run([sliding, sessions])] == [
        Observation(firings=(result(TimeWindow(-20, 0), (2,)), result(TimeWindow(-10, 10), (2,)),
                             result(TimeWindow(0, 20), (1,)), result(TimeWindow(10, 30), (1,)))),
        Observation(firings=(result(TimeWindow(0, 9), (1, 2)), result(TimeWindow(30, 35), (4,)),
                             result(TimeWindow(1, 6), (3,), key="b")))]


def test_jets_rejections_and_the_contracts_window_limit(engine):
    rejected = observe(engine, Case(window=tumbling(0), events=[record("a", 1, ts=1)]))
    assert rejected == Observation.invalid_spec("windowSize must be positive")
    stopped = observe(engine, Case(window=Sliding(20_000, 1), events=[record("a", 1, ts=1)]))
    assert stopped == Observation(error=Error(
        "runtime", "a window assignment yields more than 10,000 windows for one element: beyond what the contract "
                   "compares (stopped)"))


def test_a_walk_past_the_limit_stops_the_case_where_it_would_start(engine):
    """Jet's window stage walks every window end up to a watermark: the adapter counts the frames it visits before
    the source sends the watermark, and stops the case there, with what Jet emitted before."""
    case = Case(window=tumbling(1), events=[record("a", 1, ts=5), watermark(10), record("a", 2, ts=20),
                                            watermark(10**8), record("a", 3, ts=30)])
    assert observe(engine, case) == Observation(firings=(result(TimeWindow(5, 6), (1,)),),
                                                error=Error("runtime", WALK_STOPPED))
    # a sliding window is combined from its 10,000 frames at each of the 5,001 window ends up to the watermark
    sliding = Case(window=Sliding(10_000, 1), events=[record("a", 1, ts=0), watermark(5_000)])
    assert observe(engine, sliding) == Observation(error=Error("runtime", WALK_STOPPED))


def test_cases_in_one_request_answer_as_each_alone(engine):
    """A request's cases each get a job of their own."""
    cases = [Case(window=tumbling(10), events=[record("a", v, ts=v) for v in range(3)]),
             Case(window=Session(2), events=[record("a", 1, ts=0), record("b", 2, ts=1)]),
             Case(window=tumbling(0), events=[record("a", 1, ts=1)])]
    assert engine.run(cases) == [observe(engine, case) for case in cases]


def divergence_cases() -> list[tuple[str, int, Case]]:
    return [(p.name, i, c) for p in sorted(DIVERGENCES.glob("*.json")) for i, c in enumerate(load_cases(p))]


def test_each_divergence_differs_on_the_engine_and_agrees_on_the_reference(engine, reference):
    found = divergence_cases()
    assert found, "no divergence case files"
    cases = [case for _, _, case in found]
    assert all(required_features(case) <= engine.features for case in cases)
    for (name, index, case), observation in zip(found, engine.run(cases), strict=True):
        assert difference(case.expected, observation, len(case.events)), f"{name}#{index} no longer differs"
        assert not difference(case.expected, observe(reference, case), len(case.events)), f"{name}#{index}"


def test_the_readme_links_exactly_the_divergence_files():
    assert linked_divergence_files(SECTION, "hazelcast-jet") == {p.name for p in DIVERGENCES.glob("*.json")}


def _sessions(f) -> bool:
    return f["case"]["window"]["assigner"] == "session"


#: Which README point (its case file) explains a minimal counterexample of the suite.
EXPLAINED = {
    "partially_late.json": lambda f: f["case"]["window"]["assigner"] == "sliding"
    and re.search(r"extra dropped record", f["difference"]),
    "touching_sessions.json": _sessions,
    "late_per_record.json": _sessions,
    "session_closes_later.json": lambda f: _sessions(f) and not f["case"].get("end_of_input", True),
    "throttled_watermark.json": lambda f: _sessions(f) and f["case"].get("watermark_generator") is not None,
    "session_gap_accepted.json": lambda f: _sessions(f) and f["case"]["window"]["gap"] <= 0,
    "size_not_multiple_of_slide.json": lambda f: "windowSize must be integer multiple of slideBy" in f["difference"],
    "rejection_messages.json": lambda f: re.search(r"the error is invalid_spec: .*, not invalid_spec", f["difference"]),
    "windows_per_record.json": lambda f: "size / slide <= 10000000" in f["difference"],
    "end_of_time.json": lambda f: WALK_STOPPED in f["difference"]
    or "java.lang.IllegalArgumentException: -" in f["difference"],
}


def test_the_suite_finds_the_divergences_the_readme_names(tmp_path):
    """The whole property suite (profile `ci-slow`) against the engine: it differs, on exactly the properties the
    README lists, and every minimal counterexample shows a difference one of its points explains."""
    assert_the_suite_finds_what_the_section_names(tmp_path / "report", "hazelcast-jet", SECTION, EXPLAINED,
                                                  timeout=1200)

"""The `pathway` engine: Pathway 0.33's `windowby` with `exactly_once_behavior`, a process in its own environment
(`.venv-pathway`).

The translation is checked on hand cases through the process, as the suite runs it (the adapter answers
position-free: no `at`, no watermark on a firing), and every divergence from Flink 2.x that it shows is a case file
under `cases/engines/pathway/` that the README's section on Pathway links: each differs on `pathway` and agrees on
`reference`.
"""

from __future__ import annotations

import re

import pytest
from engine_readme import ROOT, assert_the_suite_finds_what_the_section_names, linked_divergence_files, readme_section

from window_contract import Case, load_implementation, record, session, sliding, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessTimestampExtractor, BoundedOutOfOrdernessWatermarks
from window_contract.case_json import load_cases
from window_contract.difference import difference
from window_contract.facts import TOO_MANY_WINDOWS
from window_contract.features import required_features
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow

DIVERGENCES = ROOT / "cases" / "engines" / "pathway"
SECTION = readme_section("Pathway")


@pytest.fixture(scope="module")
def engine():
    pathway = load_implementation("pathway")
    yield pathway
    pathway.close()


@pytest.fixture(scope="module")
def reference():
    return load_implementation("reference")


def observe(engine, case: Case) -> Observation:
    return engine.run([case])[0]


def fired(window: TimeWindow, values: tuple[int, ...], key: str = "a") -> Firing:
    """A firing as the adapter reports it: the window's last millisecond, no position, no watermark."""
    return Firing(None, key, window, window.end - 1, values, None)


def agrees(reference, engine, case: Case) -> bool:
    return not difference(observe(reference, case), observe(engine, case), len(case.events))


def test_declares_what_pathway_windows_offer_and_says_it_is_position_free(engine):
    assert engine.name == "pathway" and engine.position_free and engine.costly_calls
    assert {"assigner.tumbling", "assigner.sliding", "assigner.session", "offset", "negative_timestamps",
            "watermark.bounded_out_of_orderness", "watermark.punctuated"} <= engine.features
    assert {"late_side_output", "unbounded_input", "allowed_lateness", "assigner.global", "assigner.count",
            "trigger.count", "time.processing", "watermark.periodic", "watermark.idleness", "channels",
            "extreme_values"}.isdisjoint(engine.features)
    assert not any(f.startswith("evictor.") for f in engine.features)


def test_flinks_watermark_is_a_heartbeat_one_millisecond_later(engine):
    """`Watermark(9)` closes `[0, 10)` with the record at 9 in it, `Watermark(8)` does not; a record of an emitted
    window is dropped; the heartbeat's own windows are left out; negative times are times like any other."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=-3), record("a", 2, ts=9), watermark(8), watermark(9),
                                             record("a", 3, ts=10), record("a", 4, ts=25), watermark(20),
                                             record("a", 5, ts=10)])
    assert observe(engine, case) == Observation(
        firings=(fired(TimeWindow(-10, 0), (1,)), fired(TimeWindow(0, 10), (2,)), fired(TimeWindow(10, 20), (3,)),
                 fired(TimeWindow(20, 30), (4,))),
        dropped=(LateRecord(None, "a", 5, 10),))


@pytest.mark.parametrize("generator", [BoundedOutOfOrdernessWatermarks(2, punctuated=True, interval=0),
                                       BoundedOutOfOrdernessTimestampExtractor(2, punctuated=True, interval=0)])
def test_a_generators_lag_is_the_shift(engine, reference, generator):
    """Flink's generated watermark and Pathway's `end + shift <= time` close the same windows at the same record,
    across keys."""
    case = Case(window=tumbling(10), watermark_generator=generator,
                events=[record("a", 1, ts=3), record("a", 2, ts=11), record("a", 3, ts=9), record("a", 4, ts=12),
                        record("b", 5, ts=21), record("a", 6, ts=2), record("a", 7, ts=8)])
    assert agrees(reference, engine, case)
    assert observe(reference, case).dropped, "the case drops a record"


def test_an_offset_is_the_origin_and_sliding_windows_are_hops(engine, reference):
    case = Case(window=sliding(10, 5, 2), events=[record("a", 1, ts=12), record("a", 2, ts=32), watermark(21),
                                                  record("a", 3, ts=13), record("b", 4, ts=33)])
    assert agrees(reference, engine, case)


def test_a_sliding_window_shorter_than_its_hop_leaves_records_out_without_dropping_them(engine, reference):
    case = Case(window=sliding(5, 10), events=[record("a", 1, ts=3), record("a", 2, ts=7), watermark(20),
                                               record("a", 3, ts=4)])
    assert observe(engine, case) == Observation(firings=(fired(TimeWindow(0, 5), (1,)),),
                                                dropped=(LateRecord(None, "a", 3, 4),))
    assert agrees(reference, engine, case)


def test_a_session_is_named_as_pathway_names_it_first_to_last_plus_one(engine):
    """Out of order, within the gap: Pathway's session `[0, 8]` (read `[0, 9)`), emitted as it grows."""
    case = Case(window=session(5), events=[record("a", 1, ts=4), record("a", 2, ts=8), record("a", 3, ts=0)])
    assert observe(engine, case).firings[-1] == fired(TimeWindow(0, 9), (1, 2, 3))


def test_a_panic_in_the_worker_is_a_runtime_error_and_its_batch_runs_alone(engine, reference):
    good = Case(window=tumbling(10), events=[record("a", 1, ts=3)])
    bad = Case(window=tumbling(0), events=[record("a", 1, ts=3)])
    crashed, answered = engine.run([bad, good])
    assert crashed.error.kind == "runtime" and "divide by zero" in crashed.error.message and not crashed.dropped
    assert answered == Observation(firings=(fired(TimeWindow(0, 10), (1,)),))


def test_an_element_with_too_many_windows_stops_the_case_there(engine, reference):
    """a@3 and the heartbeat at 5 are in 10,000 windows, a@4 in 10,001: the case stops at a@4, without an end of
    input (the watermark 4 fired one window)."""
    case = Case(window=sliding(20_001, 2), events=[record("a", 1, ts=3), watermark(4), record("a", 2, ts=4)])
    stopped = observe(engine, case)
    assert stopped.error == Error("runtime", TOO_MANY_WINDOWS) and len(stopped.firings) == 1
    assert agrees(reference, engine, case)


def test_cases_in_one_computation_are_jobs_of_their_own(engine):
    """A batch is one computation with a table per case: each answers as it does alone."""
    cases = [Case(window=tumbling(10), events=[record("a", 1, ts=15), record("a", 2, ts=5)]),
             Case(window=session(3), events=[record("a", 1, ts=1)]),
             Case(window=tumbling(10), events=[record("a", 1, ts=5)])]
    assert engine.run(cases) == [observe(engine, case) for case in cases]


def divergence_cases() -> list[tuple[str, int, Case]]:
    return [(p.name, i, c) for p in sorted(DIVERGENCES.glob("*.json")) for i, c in enumerate(load_cases(p))]


def test_each_divergence_differs_on_pathway_and_agrees_on_the_reference(engine, reference):
    found = divergence_cases()
    assert found, "no divergence case files"
    cases = [case for _, _, case in found]
    assert all(required_features(case) <= engine.features for case in cases)
    for (name, index, case), observation in zip(found, engine.run(cases), strict=True):
        assert difference(case.expected, observation, len(case.events)), f"{name}#{index} no longer differs"
        assert not difference(case.expected, observe(reference, case), len(case.events)), f"{name}#{index}"


def test_the_readme_links_exactly_the_divergence_files():
    assert linked_divergence_files(SECTION, "pathway") == {p.name for p in DIVERGENCES.glob("*.json")}


def assigner(failure) -> str:
    return failure["case"]["window"]["assigner"]


#: Which README point (its case file) explains a minimal counterexample of the suite.
EXPLAINED = {
    "session_window_end.json": lambda f: assigner(f) == "session" and "extra firing" in f["difference"],
    "session_emitted_early.json": lambda f: assigner(f) == "session" and "extra firing" in f["difference"],
    "session_gap_strict.json": lambda f: assigner(f) == "session",
    "stream_time.json": lambda f: re.search(r"extra dropped record|is missing", f["difference"]),
    "origin_starts_time.json": lambda f: f["case"]["window"].get("offset", 0) != 0 and "is missing" in f["difference"],
    "accepted_specs.json": lambda f: "invalid_spec error is missing" in f["difference"]
    or ("more than 10,000 windows" in f["difference"] and "not invalid_spec" in f["difference"]),
    "division_by_zero.json": lambda f: "attempt to divide by zero" in f["difference"],
}

#: The properties the CI step runs (profile `ci-slow`): a computation per shrinking step costs about a second.
SUITE_PROPERTIES = ("matches_reference", "fired_values_lie_in_their_window", "rejected_specification_has_no_outputs")


def test_the_suite_finds_the_divergences_the_readme_names(tmp_path):
    """The property suite (profile `ci-slow`, `SUITE_PROPERTIES`) against the engine: it differs, on exactly the
    properties the README lists, and every minimal counterexample shows a difference one of its points explains."""
    assert_the_suite_finds_what_the_section_names(tmp_path / "report", "pathway", SECTION, EXPLAINED,
                                                  properties=SUITE_PROPERTIES, timeout=900)

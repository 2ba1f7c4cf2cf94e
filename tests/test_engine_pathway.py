"""The `pathway` engine: Pathway 0.33's `windowby` with `exactly_once_behavior`, a process in its own environment
(`.venv-pathway`).

The translation is checked on hand cases through the process, as the suite runs it (the adapter answers
position-free: no `at`, no watermark on a firing); every divergence from Flink 2.x that it shows is listed in
`cases/engines/pathway/divergences.toml` with its case, which `tests/test_divergences.py` holds to the engine and to
its porting page's prose (`about.md`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_under_test import (
    assert_batches_answer_as_each_case_alone,
    assert_declares,
    engine_fixtures,
    fired,
    observe,
    suite_test,
)

from window_contract import Case, record, session, sliding, tumbling, watermark
from window_contract.case import BoundedOutOfOrdernessTimestampExtractor, BoundedOutOfOrdernessWatermarks
from window_contract.difference import difference
from window_contract.facts import TOO_MANY_WINDOWS
from window_contract.join_case import JoinCase
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import (
    JoinObservation,
    Pair,
    SideRecord,
    SqlRow,
    join_difference,
    join_equivalent,
)
from window_contract.observation import Error, LateRecord, Observation, TimeWindow

ROOT = Path(__file__).resolve().parents[1]

engine, reference = engine_fixtures("pathway")


def agrees(reference, engine, case: Case) -> bool:
    return not difference(observe(reference, case), observe(engine, case), len(case.events))


def test_declares_what_pathway_windows_offer_and_says_it_is_position_free(engine):
    assert_declares(engine, "pathway",
                    {"assigner.tumbling", "assigner.sliding", "assigner.session", "offset", "negative_timestamps",
                     "watermark.bounded_out_of_orderness", "watermark.punctuated"},
                    {"late_side_output", "unbounded_input", "allowed_lateness", "assigner.global", "assigner.count",
                     "trigger.count", "time.processing", "watermark.periodic", "watermark.idleness", "channels",
                     "extreme_values"})


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
    assert_batches_answer_as_each_case_alone(engine, cases)


#: The property suite against the engine on its manifest's budget (cases/engines/<engine>/engine.toml): the
#: properties it breaks are its page's, and the list explains each minimal counterexample.
test_the_suite_finds_the_divergences_the_readme_names = suite_test("pathway")


def test_the_end_of_time_is_a_heartbeat_just_late_enough_to_close_every_window_so_far(engine):
    """`Watermark(Long.MAX_VALUE)` after a@9 is a heartbeat at 19 (the largest time plus the size), which closes
    `[0, 10)` and not `[10, 20)`, so a@19 joins it (time_never_ends.json); before any record of time 0 or later,
    the largest time counts as 0: after a@-15 the heartbeat is at 10, and a@-5 is dropped."""
    ahead = Case(window=tumbling(10), events=[record("a", 1, ts=9), watermark(2**63 - 1), record("a", 2, ts=19)])
    assert observe(engine, ahead) == Observation(firings=(fired(TimeWindow(0, 10), (1,)),
                                                          fired(TimeWindow(10, 20), (2,))))
    behind = Case(window=tumbling(10), events=[record("a", 1, ts=-15), watermark(2**63 - 1), record("a", 2, ts=-5)])
    assert observe(engine, behind) == Observation(firings=(fired(TimeWindow(-20, -10), (1,)),),
                                                  dropped=(LateRecord(None, "a", 2, -5),))


def test_a_heartbeat_that_no_window_holds_moves_the_time_from_the_next_windows_start(engine):
    """Pathway's time is the largest time of the rows its windows hold: `Watermark(-7)`'s heartbeat at -6 falls in
    the gap `[-13, 0)` of `sliding(2, 15)`, so it goes at 0, which closes the same windows: a@-15 is dropped, as
    in Flink (at -6 it moved nothing, and `[-15, -13)` fired with a@-15)."""
    case = Case(window=sliding(2, 15), events=[record("b", 1, ts=-29), watermark(-7), record("a", 2, ts=-15)])
    assert observe(engine, case) == Observation(firings=(fired(TimeWindow(-30, -28), (1,), key="b"),),
                                                dropped=(LateRecord(None, "a", 2, -15),))


# --- joins: engines/pathway_joins.py ------------------------------------------------------------------------------

def test_declares_the_joins_pathway_writes_and_not_the_cogroup_nor_sqls_window_join(engine):
    assert {"join.interval", "join.sql_interval", "join.window"} <= engine.features
    assert not {"join.cogroup", "join.sql_window"} & engine.features


def join_cases(*paths: str) -> list[JoinCase]:
    return [c for path in paths for c in load_join_cases(ROOT / path)]


def test_flinks_bounds_exclusivity_and_watermarks_are_pathways_interval_and_heartbeats(engine):
    """Where Flink's rules and Pathway's meet, the engine gives Flink's observation: inclusive and exclusive bounds,
    a late record behind both watermarks dropped, sliding window joins once a window, a SQL left join's padding."""
    cases = [c for c in join_cases("cases/joins/interval_bounds.join.json", "cases/joins/window_join.join.json",
                                   "cases/joins/sql/interval_join.join.json")
             if c.name.startswith(("exclusive bounds", "sliding windows", "left join: left 10 without a partner"))]
    assert len(cases) == 3
    for case, got in zip(cases, engine.run_joins(cases), strict=True):
        assert join_difference(case.expected, got, positions=False) == "", case.name


#: What Pathway gives for each of its join divergence cases (cases/engines/pathway/*.join.json, whose `expected` is
#: Flink's), case by case: outputs, dropped records, error; no positions, no watermarks.
REFUSED = Error("invalid_spec", "ValueError: lower_bound has to be less than or equal to the upper_bound in the "
                                "Table.interval_join().")
PATHWAY_GIVES = {
    "join_own_input_time": (JoinObservation(dropped=(SideRecord(None, "left", "a", 2, 8),)),
                            JoinObservation(dropped=(SideRecord(None, "left", "a", 1, 10),))),
    "join_no_late_output": (JoinObservation(dropped=(SideRecord(None, "left", "a", 1, 10),)),),
    "join_forgotten_at_cutoff": (JoinObservation(),),
    "join_empty_interval": (JoinObservation(error=REFUSED),),
    "join_bounds_message": (JoinObservation(error=REFUSED),),
    "join_long_min": (JoinObservation(),),
    "join_time_never_ends": (JoinObservation((Pair(None, "a", 2, None, 1, 2),)),),
    "sql_join_interval_operator": (JoinObservation(dropped=(SideRecord(None, "left", "a", 2, 8),)),
                                   JoinObservation((SqlRow(None, "a", None, 1, None), SqlRow(None, "a", None, 1, 2)))),
    "window_join_drops_nothing": (JoinObservation((Pair(None, "a", 9, None, 1, 2), Pair(None, "a", 9, None, 3, 2))),),
    "window_join_without_end": (JoinObservation((Pair(None, "a", 9, None, 1, 2),)),),
    "window_join_session_grows": (JoinObservation((Pair(None, "a", 2, None, 1, 2), Pair(None, "a", 4, None, 1, 2),
                                                   Pair(None, "a", 4, None, 3, 2))),),
}


def test_each_join_divergence_case_gives_what_pathway_gives_and_differs_from_flink(engine):
    """One request for the engine's join divergence cases (two computations, ten cases to one): each observation is
    Pathway's as about.md says, and differs from the case's `expected`, Flink's. The listed ones are explained by
    their list entries (`tests/test_divergences.py`); the others wait for a switch of their rule."""
    files = sorted((ROOT / "cases" / "engines" / "pathway").glob("*.join.json"))
    assert {f.name.removesuffix(".join.json") for f in files} == set(PATHWAY_GIVES)
    named = [(f.name.removesuffix(".join.json"), n, c) for f in files for n, c in enumerate(load_join_cases(f))]
    for (stem, n, case), got in zip(named, engine.run_joins([c for _, _, c in named]), strict=True):
        assert join_equivalent(got, PATHWAY_GIVES[stem][n], positions=False), (stem, n, got)
        assert not join_equivalent(case.expected, got, positions=False), (stem, n)

"""The engine mutants (`conformance.mutation.engine_mutants`) inject the bug each names, and the check that no
engine's divergence list explains them (`conformance.mutation.engines`) can fail both ways: a mutant that is the
identity changes nothing, and one that reproduces a listed switch is explained."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from conformance.census import drawn_cases
from conformance.divergences import ENGINES, LIST, dialect_of, engine_divergences
from conformance.mutation.engine_mutants import (
    CATALOGUE,
    MUTANTS,
    Engine,
    EngineMutant,
    plainly_runs,
    texts_matching,
)
from conformance.mutation.engines import LISTED, Score, inert, judge, listed_explanations, main, reported
from reference.implementation import simulate
from window_contract import Case, record, sliding, tumbling, watermark
from window_contract.case import CountTrigger
from window_contract.observation import Error, LateRecord, TimeWindow

#: What Beam declares that its sessions and lateness need (its adapter's module imports Beam itself).
SESSIONS = frozenset({"assigner.session", "assigner.tumbling", "allowed_lateness", "negative_timestamps"})


def listed_engine(name: str, features: frozenset[str] = SESSIONS, positions: bool = False) -> Engine:
    return Engine(name, tuple(engine_divergences(name)), listed_explanations(ENGINES / name / LIST), positions,
                  features)


def identity(case, observed, engine, n):
    return observed


def test_a_mutant_that_is_the_identity_changes_nothing():
    engine = listed_engine("beam")
    [score] = judge(engine, [EngineMutant("identity", "no bug", identity)], drawn_cases(SESSIONS, 40, 1)).scores
    assert score.changed == 0 and score.holds


def test_a_mutant_that_takes_a_listed_rule_away_is_no_divergence_of_the_engine():
    """Beam less its touching-sessions switch is not Beam: the engine runs every rule its list names at once, so
    its list explains none of the cases that mutant changes (before attribution asked for all the rules, it
    explained every one)."""
    beam = listed_engine("beam")
    without = dialect_of(d for d in beam.divergences if d.is_switch and d.id != "beam.touching-sessions")
    forgets = EngineMutant("forgets_touching_sessions", "touching sessions merge",
                           lambda case, observed, e, n: simulate(case, dialect=without))
    [score] = judge(beam, [forgets], drawn_cases(SESSIONS, 60, 1)).scores
    assert score.changed > 0 and score.explained.total() == 0 and score.holds


def test_a_mutant_explained_on_more_than_a_tenth_of_what_it_changes_fails():
    assert Score("m", "e", changed=10, explained=Counter({"d": 1})).holds
    assert not Score("m", "e", changed=10, explained=Counter({"d": 1, "d, e": 1})).holds
    assert Score("m", "e", listed="e.d").holds  # the bug is a listed divergence: not judged


def test_a_pairing_whose_bug_is_listed_is_not_judged():
    engine = listed_engine("beam")
    listed = EngineMutant("stall", "the listed stall", MUTANTS["crash_without_cause"].inject,
                          listed=lambda engine: "beam.pipeline-stall")
    [score] = judge(engine, [listed], drawn_cases(SESSIONS, 10, 1)).scores
    assert score.listed == "beam.pipeline-stall" and score.changed == 0 and score.holds


def test_a_mutant_that_changes_no_case_of_any_engine_is_inert():
    engine = listed_engine("beam")
    judged = judge(engine, [EngineMutant("identity", "no bug", identity), MUTANTS["value_changed"]],
                   drawn_cases(SESSIONS, 20, 1))
    assert inert([judged]) == ["identity"]


# --- the bugs, each on a hand case ----------------------------------------------------------------


def tumbling_case(**options) -> Case:
    return Case(window=tumbling(10), events=[record("a", 1, 3), watermark(9), record("a", 2, 15), watermark(19),
                                             record("a", 3, 4), watermark(30)], end_of_input=False, **options)


def inject(name: str, case: Case, engine: Engine | None = None):
    engine = engine or listed_engine("pyflink-python", positions=True)
    return MUTANTS[name].inject(case, simulate(case, dialect=engine.dialect), engine, 0)


def test_a_firing_one_watermark_later_comes_at_the_next_watermark():
    case = tumbling_case()
    assert [(f.at, f.window) for f in simulate(case).firings] == [(1, TimeWindow(0, 10)), (3, TimeWindow(10, 20))]
    moved = inject("firing_one_watermark_later", case)
    assert [(f.at, f.window, f.watermark) for f in moved.firings] == [(3, TimeWindow(10, 20), 19),
                                                                      (3, TimeWindow(0, 10), 19)]


def test_an_on_time_record_reported_late_leaves_its_firings():
    case = tumbling_case(late_side_output=True)
    assert simulate(case).late == (LateRecord(4, "a", 3, 4),)
    mutated = inject("on_time_record_late", case)
    assert [f.values for f in mutated.firings] == [(2,)]  # [0, 10) held only the record, and fires no more
    assert mutated.late == (LateRecord(4, "a", 3, 4), LateRecord(0, "a", 1, 3))


def test_a_late_record_is_lost_or_kept():
    case = tumbling_case(late_side_output=True)
    assert not inject("late_record_lost", case).late
    kept = inject("late_record_kept", case)
    assert not kept.late and [f.values for f in kept.firings] == [(1, 3), (2,)]


def test_the_simple_bugs_change_the_firings_they_name():
    case = tumbling_case()
    assert [f.window for f in inject("last_firing_dropped", case).firings] == [TimeWindow(0, 10)]
    assert [f.window for f in inject("window_end_one_later", case).firings] == [TimeWindow(0, 11), TimeWindow(10, 21)]
    assert [f.values for f in inject("firing_duplicated", case).firings] == [(1,), (2,), (1,)]
    assert [f.values for f in inject("value_changed", case).firings] == [(2,), (2,)]
    assert [f.window for f in inject("time_ends_at_last_record", case).firings] == [TimeWindow(0, 10)]


def test_a_crash_comes_only_where_no_listed_cause_can_hold():
    beam = listed_engine("beam")
    case = Case(window=tumbling(10), events=[record("a", 1, 3), watermark(9), record("a", 2, 15)])
    crashed = inject("crash_without_cause", case, beam)
    assert crashed.firings == simulate(case).firings[:1]  # what fired before the end of input stays
    assert crashed.error.kind == "runtime" and re.search("exceptions must derive from BaseException",
                                                         crashed.error.message)
    unfired = Case(window=tumbling(10), trigger=CountTrigger(2), events=[record("a", 1, 3)])  # Beam's stall
    assert not plainly_runs(unfired, simulate(unfired))
    assert inject("crash_without_cause", unfired, beam) == simulate(unfired)
    far = Case(window=tumbling(1), events=[record("a", 1, 0), record("a", 2, 5000)])  # 5,000 window ends
    assert not plainly_runs(far, simulate(far))


def test_rejections_take_the_lists_words():
    kafka = listed_engine("kafka-streams")
    rejected = inject("rejected_with_listed_rejection", tumbling_case(), kafka)
    assert rejected.error == Error("invalid_spec", "Window advancement interval should be more than zero and less "
                                                   "than window duration")
    hopping = Case(window=sliding(10, 20), events=[record("a", 1, 3)])  # Kafka's listed rejection: not judged
    assert inject("rejected_with_listed_rejection", hopping, kafka) == simulate(hopping, dialect=kafka.dialect)
    accepted = inject("rejected_with_accepted_rule", tumbling_case(), kafka)
    assert accepted.error == Error("invalid_spec", "EventTimeSessionWindows parameters must satisfy 0 < size")


def test_a_negative_slide_is_not_judged_where_the_list_accepts_it():
    mutant = MUTANTS["negative_slide_runs"]
    assert mutant.listed(listed_engine("beam")) == "beam.negative-slide"
    assert mutant.listed(listed_engine("kafka-streams")) is None


def test_a_negative_slide_runs_as_the_positive_one():
    mutant, engine = MUTANTS["negative_slide_runs"], listed_engine("beam", SESSIONS | {"assigner.sliding"})
    case = Case(window=sliding(10, 5), events=[record("a", 1, 3)])
    job = mutant.job(case)
    assert job.window == sliding(10, -5) and simulate(job).error.message.endswith("abs(offset) < slide and size > 0")
    assert mutant.inject(job, simulate(job, dialect=engine.dialect), engine, 0) == simulate(case)
    assert mutant.job(tumbling_case()) is None


# --- the texts a list names, and the catalogue -------------------------------------------------------


def test_a_text_for_each_alternative_of_a_pattern():
    pattern = r"^(Hazelcast Jet walks every window end up to each watermark|java\.lang\.IllegalArgumentException: -)"
    assert texts_matching(pattern) == ("Hazelcast Jet walks every window end up to each watermark",
                                       "java.lang.IllegalArgumentException: -")
    spark = r"The `slide_duration`\(\d+L\) must be <= the `window_duration`\(\d+L\)"
    assert texts_matching(spark) == ("The `slide_duration`(0L) must be <= the `window_duration`(0L)",)


@pytest.mark.parametrize("engine", LISTED)
def test_every_pattern_of_every_list_has_texts_it_matches(engine):
    for params in listed_explanations(ENGINES / engine / LIST).values():
        for pattern in (v for k, v in params.items() if k in ("message", "flink")):
            assert all(re.search(pattern, text) for text in texts_matching(pattern))


def test_the_catalogue_has_at_least_ten_kinds_of_bug():
    assert len(CATALOGUE) >= 10 and len(MUTANTS) == len(CATALOGUE)


def test_a_position_free_engine_reports_no_positions():
    case = tumbling_case()
    assert all(f.at is None and f.watermark is None for f in reported(simulate(case), listed_engine("beam")).firings)


def test_the_command_prints_the_table_and_holds_an_unexplained_mutant(capsys):
    assert main(["--engine", "pyflink-python", "--mutant", "value_changed", "--cases", "20"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("value_changed")]
    changed, explained, unexplained = map(int, row.split()[2:5])
    assert changed > 0 and explained == 0 and unexplained == changed

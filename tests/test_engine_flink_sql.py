"""The `flink-sql` and `flink-sql-legacy` engines: Flink SQL's windows on Flink 2.3's runtime.

The mapping is checked on hand cases through the runner, as the suite runs it (positions tied to the watermark
or the late record that caused a firing, dropped records found at the end of input, deterministic rejections),
and every divergence from Flink's DataStream API is listed in `cases/engines/flink-sql/divergences.toml` or
`cases/engines/flink-sql-legacy/divergences.toml`, with its case file, which its porting page's prose (`about.md`)
links (`tests/test_divergences.py` holds each list to its engine).
"""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest
from engine_pages import ROOT, about, assert_the_suite_finds_what_the_section_names

from conformance.divergences import attribute, engine_divergences
from flink_impl.command import FLINK, FLINK_1_20, Limits, runner_command
from flink_impl.sql import FLINK_SQL, FLINK_SQL_1_20, FLINK_SQL_LEGACY, WATERMARK_CLAUSE, FlinkSqlLegacyImplementation
from window_contract import Case, load_implementation, record, session, tumbling, watermark
from window_contract.case import (
    BoundedOutOfOrdernessWatermarks,
    MonotonousWatermarks,
    Sliding,
    WatermarkStatus,
    case_to_json,
    processing_time,
)
from window_contract.case_json import case_files, load_cases
from window_contract.difference import difference
from window_contract.facts import LONG_MAX, TOO_MANY_WINDOWS
from window_contract.features import required_features
from window_contract.implementation import ImplementationFailure
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow
from window_contract.observation_json import observation_to_json

pytestmark = pytest.mark.flink

#: Each dialect's page prose (`about.md`), which names the properties the suite finds broken on it.
DIALECTS = {"flink-sql": about("flink-sql"), "flink-sql-legacy": about("flink-sql-legacy")}
#: Hand cases from `cases/` on which both dialects agree with Flink.
AGREEING = ["cases/seeds", "cases/sessions/merging.json", "cases/timers", "cases/lateness/side_output_and_dropped.json",
            "cases/watermarks/valve.json", "cases/watermarks/end_of_channel.json", "cases/sliding/window_budget.json"]


@pytest.fixture(scope="module", params=["flink-sql", "flink-sql-legacy"])
def engine(request):
    return load_implementation(request.param)


@pytest.fixture(scope="module")
def reference():
    return load_implementation("reference")


def test_declares_what_sql_windows_express():
    """Tumbling, sliding and session windows with listed watermarks, and the generators a WATERMARK clause says; no
    DataStream trigger, no evictors, count or global windows, processing time, late side output or open input,
    punctuated watermarks or legacy extractors; the legacy group windows take no offset and have no `CUMULATE`, nor
    has the DataStream API (no cumulative assigner); they alone take the emit options (`after_end_of_window`, with
    delays above 0 on the case's clock), which the window table functions refuse."""
    emit = {"trigger.after_end_of_window", "trigger.after_end_of_window.delay"}
    assert emit <= FLINK_SQL_LEGACY.features
    assert emit.isdisjoint(FLINK_SQL.features | FLINK_SQL_1_20.features | FLINK.features | FLINK_1_20.features)
    for variant in (FLINK_SQL, FLINK_SQL_LEGACY):
        assert not any(f.startswith(("trigger.", "evictor.")) for f in variant.features - emit)
        assert {f for f in variant.features if f.startswith("watermark.")} == WATERMARK_CLAUSE
        assert {"assigner.count", "assigner.global", "assigner.dynamic_session", "time.processing",
                "late_side_output", "unbounded_input", "extreme_values"}.isdisjoint(variant.features)
        assert {"assigner.tumbling", "assigner.sliding", "assigner.session", "allowed_lateness",
                "negative_timestamps", "channels"} <= variant.features
    assert "offset" in FLINK_SQL.features and "offset" not in FLINK_SQL_LEGACY.features
    assert "assigner.cumulative" in FLINK_SQL.features
    assert "assigner.cumulative" not in FLINK_SQL_LEGACY.features | FLINK.features | FLINK_1_20.features


def test_cumulate_runs_as_the_window_table_function_and_agrees_with_its_hand_cases():
    """`CUMULATE(TABLE t, DESCRIPTOR(rowtime), step, size, offset)`: the windows of a period fire one by one, a record
    late for some of them joins the rest, offsets align modulo the size, and the planner's rejections are
    `WindowUtil`'s; the cases' expected observations are the runtime's, which the model's agree with
    (`tests/test_cases.py`)."""
    engine = load_implementation("flink-sql")
    cases = [c for p in case_files([ROOT / "cases/cumulative"]) for c in load_cases(p)]
    assert len(cases) >= 15 and all("assigner.cumulative" in required_features(c) for c in cases)
    for case, observation in zip(cases, engine.run(cases), strict=True):
        assert not difference(case.expected, observation, len(case.events)), case.name


def test_the_emit_options_run_on_the_legacy_group_windows_and_agree_with_their_hand_cases():
    """`table.exec.emit.early-fire.*` and `late-fire.*` (`after_end_of_window`): of delay 0, an early firing on every
    record, the on-time firing that finds the result unchanged emitting nothing, late firings; above 0, firings on the
    window aggregate's processing-time timers, at the case's `processing_time` events; the allowed lateness ignored
    without late firing, and `WindowEmitStrategy`'s rejections; the cases' expected observations are the runtime's,
    which the model's agree with (`tests/test_cases.py`)."""
    cases = [c for p in case_files([ROOT / "cases/emit"]) for c in load_cases(p)]
    assert len(cases) >= 15 and all("trigger.after_end_of_window" in required_features(c) for c in cases)
    for case, observation in zip(cases, load_implementation("flink-sql-legacy").run(cases), strict=True):
        assert not difference(case.expected, observation, len(case.events)), case.name


def test_a_firing_is_placed_at_the_watermark_that_fired_it_and_a_late_record_at_its_own_event(engine):
    """The window aggregate runs behind an exchange: its outputs are tied to the watermark that follows them; a
    record that no firing holds at the end of input was dropped, during its own event."""
    case = Case(window=tumbling(10), events=[record("a", 1, ts=3), record("b", 2, ts=9), watermark(8), watermark(9),
                                             record("a", 3, ts=10), watermark(20), record("a", 4, ts=10)])
    [observed] = engine.run([case])
    assert observed == Observation(
        firings=(Firing(3, "a", TimeWindow(0, 10), 9, (1,), 9), Firing(3, "b", TimeWindow(0, 10), 9, (2,), 9),
                 Firing(5, "a", TimeWindow(10, 20), 19, (3,), 20)),
        dropped=(LateRecord(6, "a", 4, 10),))


def test_the_legacy_late_firing_is_placed_at_the_late_record():
    """`late-fire.delay` 0 fires a window again on every late record, as `EventTimeTrigger` does within the
    allowed lateness: the update is placed at the newest record it holds, under the watermark then."""
    case = Case(window=tumbling(10), allowed_lateness=5,
                events=[record("a", 1, ts=3), watermark(9), record("a", 2, ts=4), watermark(14), record("a", 3, ts=5)])
    [observed] = load_implementation("flink-sql-legacy").run([case])
    assert observed == Observation(
        firings=(Firing(1, "a", TimeWindow(0, 10), 9, (1,), 9), Firing(2, "a", TimeWindow(0, 10), 9, (1, 2), 9)),
        dropped=(LateRecord(4, "a", 3, 5),))


def test_sessions_merge_when_they_touch(engine):
    """Both dialects merge `[0, 5)` and `[5, 10)`, as `TimeWindow.intersects` does."""
    [observed] = engine.run([Case(window=session(5), events=[record("a", 1, ts=0), record("a", 2, ts=5),
                                                            record("a", 3, ts=11)])])
    assert [(f.window, f.values) for f in observed.firings] == [(TimeWindow(0, 10), (1, 2)),
                                                                (TimeWindow(11, 16), (3,))]


def test_a_rejection_names_no_plan_and_reads_the_same_in_any_batch():
    """The planner's message for a query it cannot plan counts its anonymous tables; the runner keeps the rest."""
    legacy = load_implementation("flink-sql-legacy")
    rejected = Case(window=session(5), allowed_lateness=10, events=[record("a", 1, ts=0)])
    alone = legacy.run([rejected])[0]
    assert alone.error.kind == "invalid_spec"
    assert alone.error.message == "Session window doesn't support EMIT strategy currently."
    assert legacy.run([Case(window=tumbling(10), events=[record("a", 1, ts=0)]), rejected])[1] == alone


@pytest.mark.parametrize("path", AGREEING)
def test_hand_cases_agree_with_flink(engine, path):
    """Without a generator: a generator is the table's WATERMARK clause, whose rules are SQL's own (below)."""
    cases = [c for p in case_files([ROOT / path]) for c in load_cases(p)
             if required_features(c) <= engine.features and c.watermark_generator is None]
    assert cases, f"{path} has no case {engine.name} supports"
    for case, observation in zip(cases, engine.run(cases), strict=True):
        assert not difference(case.expected, observation, len(case.events)), case.name


def test_hand_generator_cases_differ_from_flink_only_as_listed(engine):
    """The hand cases of watermarks that Flink makes (`cases/watermarks`) that the engine declares: each observation is
    Flink's, or differs from it only as the engine's listed divergences say (the WATERMARK clause's rules)."""
    cases = [c for p in case_files([ROOT / "cases/watermarks"]) for c in load_cases(p)
             if required_features(c) <= engine.features and c.watermark_generator is not None]
    assert len(cases) >= 10
    divergences = engine_divergences(engine.name)
    explained = [attribute(case, case.expected, observation, divergences).explained_by
                 for case, observation in zip(cases, engine.run(cases), strict=True)]
    assert None not in explained, [c.name for c, e in zip(cases, explained, strict=True) if e is None]
    assert any(explained), "no hand case shows the clause's rules"


def test_a_sliding_size_that_is_no_multiple_of_the_slide_is_rejected_by_hop_only():
    """`HOP` slices windows into slides; the legacy `HOP` group window does not."""
    case = Case(window=Sliding(10, 3), events=[record("a", 1, ts=0)])
    [tvf] = load_implementation("flink-sql").run([case])
    [legacy] = load_implementation("flink-sql-legacy").run([case])
    assert tvf.error is not None and "integral multiple of slide" in tvf.error.message
    assert legacy.error is None and len(legacy.firings) == 4


def test_a_case_stopped_at_a_record_keeps_every_firing_before_it():
    """The record at 1 is in 10,000 windows of 20,001 every 2, the one at 0 in 10,001: the case stops there, with the
    contract's error, after the 50 firings of the watermark 100. The window aggregate runs behind an exchange, and a
    job failed at the record lost those firings, still on their way; the replay ends the case instead, and the job
    runs on to its end, which reaches the recorder behind them."""
    case = Case(window=Sliding(20_001, 2), events=[record("a", 1, ts=1), watermark(100), record("a", 2, ts=0)])
    [observed] = load_implementation("flink-sql-legacy").run([case])
    assert observed == load_implementation("reference").run([case])[0]
    assert (len(observed.firings), observed.error) == (50, Error("runtime", TOO_MANY_WINDOWS))


#: A legacy `HOP` whose size is no multiple of its slide merges size / gcd(size, slide) panes at each firing: two
#: billion here, minutes of work for each of the record's two windows, long after the replay has ended.
SLOW = Case(window=Sliding(2_000_000_001, 2_000_000_000), events=[record("a", 1, ts=0)])
#: Long enough for a job of two small queries to deploy and end its first, far too short for `SLOW`: the timeout
#: counts the runner's CPU from the job's start, then from the last case that ended, which the load of the machine
#: does not stretch (the first case ends after about 1 CPU-s: a timeout of 1 cut it, of 2 did not).
CUT = Limits(job_timeout_seconds=8)
#: Alone, `SLOW` ends no case whether the job has deployed by then or not: a short timeout stops it as surely.
CUT_ALONE = Limits(job_timeout_seconds=3)


def test_a_case_whose_outputs_the_job_timeout_cut_is_left_to_run_again_not_answered():
    """The window aggregate runs behind an exchange: when the job times out, a case whose replay has ended may still
    be firing. The runner keeps the case whose recorder saw its end, and leaves the other to run again (`retry`), in a
    new runner (`exiting`), never answering it with the outputs that had arrived."""
    fast = Case(window=tumbling(10), events=[record("a", 1, ts=3)])
    request = {"type": "run", "id": 1, "cases": [case_to_json(fast), case_to_json(SLOW)]}
    with subprocess.Popen(shlex.split(runner_command(CUT, FLINK_SQL_LEGACY)), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as runner:
        runner.stdin.write(json.dumps(request) + "\n")
        runner.stdin.flush()
        assert json.loads(runner.stdout.readline())["type"] == "hello"
        answer = json.loads(runner.stdout.readline())
        runner.stdin.close()
        runner.wait(timeout=60)
    assert (answer["retry"], answer["exiting"], answer["observations"][1]) == ([1], True, None)
    assert answer["observations"][0] == observation_to_json(load_implementation("reference").run([fast])[0])


def test_a_case_the_job_timeout_cuts_alone_could_not_run():
    """Alone in its request, the cut case leaves nothing to answer: the suite reports that it could not run, with the
    runner's word for why, as it reports a hang; never a case that emitted nothing."""
    runner_says = "no case of a job ended in its timeout of 3 s of CPU; 1 of its 1 cases"
    with pytest.raises(ImplementationFailure, match=f"no progress(.|\n)*{runner_says}"):
        FlinkSqlLegacyImplementation(CUT_ALONE).run([SLOW])


@pytest.mark.engine_suite
@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_the_suite_finds_the_divergences_the_readme_names(tmp_path, dialect):
    """The property suite (its manifest's budget: one property whose minimal case the README names) against the
    dialect: it differs, on exactly the properties its part of the README lists, and every minimal counterexample
    shows a difference its list of divergences explains (`cases/engines/<dialect>/divergences.toml`)."""
    assert_the_suite_finds_what_the_section_names(tmp_path / "report", dialect, DIALECTS[dialect])


def clause_case(generator, *events) -> Case:
    return Case(window=tumbling(1000), watermark_generator=generator, events=list(events))


def received(observed: Observation) -> list[tuple[int | None, int]]:
    return [(w.at, w.watermark) for w in observed.watermarks]


def test_the_watermark_clause_emits_max_minus_bound_at_a_rise_above_the_interval_and_on_its_timer(engine):
    """`rowtime - INTERVAL '10'`: the record at 5000 raises the watermark from 40 to 4990, more than the interval of
    200, so the assigner emits it right after the record; 5090 rises less and waits for the timer, which the case's
    clock fires at 201. The job of a case with another interval runs apart, on its own interval: at 10,000 no rise is
    large enough, and no timer fires before the end."""
    events = (record("a", 1, ts=50), record("a", 2, ts=5000), record("a", 3, ts=5100), processing_time(201),
              processing_time(402))
    every_200, every_10000 = engine.run([clause_case(BoundedOutOfOrdernessWatermarks(10, interval=200), *events),
                                         clause_case(BoundedOutOfOrdernessWatermarks(10, interval=10_000), *events)])
    assert received(every_200) == [(1, 4990), (3, 5090), (5, LONG_MAX)]
    assert [(f.at, f.window, f.values) for f in every_200.firings] == [(1, TimeWindow(0, 1000), (1,)),
                                                                       (5, TimeWindow(5000, 6000), (2, 3))]
    assert received(every_10000) == [(5, LONG_MAX)]


def test_the_watermark_clause_starts_at_zero(engine):
    """`rowtime` alone (`forMonotonousTimestamps()`) is the largest timestamp itself, and nothing at or below 0 is
    emitted: the records at -5 and 0 give none; 3 comes on the timer after the record at 3."""
    observed, = engine.run([clause_case(MonotonousWatermarks(interval=100), record("a", 1, ts=-5),
                                        processing_time(101), record("a", 2, ts=0), processing_time(202),
                                        record("a", 3, ts=3), processing_time(303))])
    assert received(observed) == [(5, 3), (6, LONG_MAX)]


def test_an_idle_status_from_upstream_silences_the_clause_without_idleness(engine):
    """The assigner forwards a status from upstream and takes it as its own: marked idle, with idleness off, it never
    marks itself active again, and the chain drops every later watermark, the end of input too."""
    observed, = engine.run([clause_case(BoundedOutOfOrdernessWatermarks(0, interval=100), record("a", 1, ts=5),
                                        WatermarkStatus(0, True), record("a", 2, ts=50), processing_time(101))])
    assert observed == Observation(watermarks=())

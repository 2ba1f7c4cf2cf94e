"""Unit tests of the stages of the Spark pipeline: Java arithmetic, the relational stages on small
DataFrames, the per-key replay (pure Python), and the driver-side checks of a specification."""

from __future__ import annotations

import re
from dataclasses import dataclass
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql import functions as F

import spark_impl.operator as spark_operator
from spark_impl import javalong as J
from spark_impl import relational as R
from spark_impl.chains import least_multiple_in, skip_to
from spark_impl.evictors import Evictor, evictions
from spark_impl.implementation import is_relational
from spark_impl.operator import PROCESSING_TIME, RECORD, WATERMARK, simulate
from spark_impl.session import get_session
from spark_impl.spec import invalid_spec_message, operator_spec
from spark_impl.triggers import Trigger, _Continuous
from spark_impl.windows import AssignerFailure, assign_windows, merge_windows, window_start
from strategies.bursts import burst_cases
from window_contract import (
    LONG_MAX,
    LONG_MIN,
    Case,
    ContinuousEventTimeTrigger,
    CountEvictor,
    DeltaEvictor,
    TimeEvictor,
    cumulative,
    processing_time,
    purging,
    record,
    session,
    sliding,
    tumbling,
    watermark,
)
from window_contract import TimeWindow as W
from window_contract.case import ContinuousProcessingTimeTrigger, Global
from window_contract.facts import NEVER_ENDS, TOO_MANY_OUTPUTS, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark():
    return get_session()


# --- Java long arithmetic -----------------------------------------------------------------------

def test_java_remainder_and_division_truncate():
    assert (J.rem(-7, 3), J.div(-7, 3), J.rem(7, -3), J.div(7, -3)) == (-1, -2, 1, -2)
    assert J.div(LONG_MIN, -1) == LONG_MIN and J.rem(LONG_MIN, -1) == 0
    assert J.java_abs(LONG_MIN) == LONG_MIN
    assert J.add(LONG_MAX, 1) == LONG_MIN and J.sub(LONG_MIN, 1) == LONG_MAX
    with pytest.raises(ArithmeticError, match="/ by zero"):
        J.rem(1, 0)


def test_spark_arithmetic_matches_java(spark):
    row = spark.range(1).select(
        (F.lit(-7) % 3).alias("rem"), F.pmod(F.lit(-7), F.lit(3)).alias("pmod"),
        J.col_add(F.lit(LONG_MAX), F.lit(2)).alias("wrap_up"),
        J.col_add(F.lit(LONG_MIN), F.lit(-1)).alias("wrap_down"),
        J.col_add(F.lit(-5), F.lit(3)).alias("plain"),
        J.col_saturating_add(F.lit(LONG_MAX - 1), F.lit(5)).alias("saturated")).first()
    assert row.asDict() == {"rem": -1, "pmod": 2, "wrap_up": LONG_MIN + 1, "wrap_down": LONG_MAX,
                            "plain": -2, "saturated": LONG_MAX}
    # Columns, not literals: the optimizer rewrites sums of columns (it once folded two Long.MIN_VALUE
    # literals of the wrap-around into an overflow).
    pairs = [(16, LONG_MAX), (-16, LONG_MIN), (5, -7), (LONG_MAX, LONG_MAX), (LONG_MIN, LONG_MIN)]
    df = spark.createDataFrame(pairs, "a long, b long")
    got = [r.s for r in df.select(J.col_add(F.col("a"), F.col("b")).alias("s")).collect()]
    assert got == [J.add(a, b) for a, b in pairs]


# --- window assignment --------------------------------------------------------------------------

def test_window_start_floors_negative_timestamps_with_offset():
    assert window_start(-1, 0, 10) == -10
    assert window_start(-1, 3, 10) == -7
    assert window_start(12, -3, 5) == 12
    assert window_start(LONG_MAX - 3, 0, 10) == LONG_MAX - 7


def test_relational_assignment_agrees_with_the_sliding_loop(spark):
    specs = [(10, 4, 0), (3, 5, 0), (10, 10, 3), (7, 3, -2)]
    rows = [(i, ts, size, slide, offset, 0) for i, (size, slide, offset) in enumerate(specs)
            for ts in (-11, -1, 0, 4, 13)]
    df = spark.createDataFrame(rows, "case_id long, ts long, size long, slide long, offset long, lateness long")
    df = df.select("*", F.lit(0).cast("long").alias("step"))  # not cumulative
    assigned = R.assign_windows(df).collect()
    got = sorted((r.case_id, r.ts, r.start, r.end) for r in assigned)
    want = sorted((i, ts, w.start, w.end) for i, ts, size, slide, offset, _ in rows
                  for w in assign_windows(sliding(size, slide, offset), ts, 0))
    assert got == want
    assert not [r for r in got if r[:2] == (1, 4)]  # size 3 < slide 5: ts 4 falls in no window
    # k = 0 is the latest-ending window of each element
    latest = {(r.case_id, r.ts): r.end for r in assigned if r.k == 0}
    assert all(r.end <= latest[(r.case_id, r.ts)] for r in assigned)


@pytest.mark.parametrize("excess", [0, 1], ids=["at the bound", "one past it"])
def test_the_relational_bound_on_size_plus_slide_is_exact(excess):
    # The worst record the pipeline takes: the lowest time, with an offset that puts a start at
    # ts - size + 1, the lowest start Flink's loop yields; the step after it wraps only past the bound.
    ts, size = -R.SAFE_BOUND + 1, 2**61 + 1
    slide = R.MAX_SIZE_PLUS_SLIDE - size + excess
    window = sliding(size, slide, offset=(ts - size + 1) % slide)
    wrapped = [w for w in assign_windows(window, ts, 0) if w.start > ts]
    assert bool(wrapped) == bool(excess)
    assert R.sliding_loop_stays_in_range(size, slide) == (not excess)
    assert is_relational(Case(window=window, events=[record("a", 1, ts=ts)])) == (not excess)


@pytest.mark.parametrize("size, slide, relational", [
    (WINDOWS_PER_ELEMENT_LIMIT, 1, True), (WINDOWS_PER_ELEMENT_LIMIT * 2 - 1, 2, True),
    (WINDOWS_PER_ELEMENT_LIMIT + 1, 1, False), (10_000_000, 1, False)])
def test_sliding_windows_past_the_limit_an_element_go_to_the_replay(size, slide, relational):
    # ceil(size / slide) windows an element: within the limit the pipeline explodes them, past it
    # the replay stops the case at the record instead of exploding it into millions of rows.
    case = Case(window=sliding(size, slide), events=[record("a", 1, ts=0)])
    assert R.sliding_windows_within_limit(size, slide) == relational
    assert is_relational(case) == relational
    if relational:
        assert len(assign_windows(case.window, 0, 0)) == WINDOWS_PER_ELEMENT_LIMIT
    else:
        with pytest.raises(AssignerFailure, match=re.escape(TOO_MANY_WINDOWS)):
            assign_windows(case.window, 0, 0)


def test_cleanup_time_saturates(spark):
    df = spark.createDataFrame([(0, 5, 10, 10, 0, LONG_MAX, 0)],
                               "case_id long, ts long, size long, slide long, offset long, lateness long, step long")
    assert [r.cleanup for r in R.assign_windows(df).collect()] == [LONG_MAX]


# --- relational stages --------------------------------------------------------------------------

#: The pipeline's events: a case's window parameters on every row (`_case_rows`).
_EVENTS_SCHEMA = ("case_id long, at long, kind byte, key string, value long, ts long, "
                  "size long, slide long, step long, offset long, lateness long, side_output boolean")


def _case_rows(rows, window, lateness, side_output=True, case_id=0):
    """The events `rows` (`at, kind, key, value, ts`) of case `case_id` with its window parameters on every row, as the
    pipeline's events carry them: in the data, not as literals, so that every test's plan is the same code,
    compiled once (Spark compiles a plan's literals into its code)."""
    params = {**R.window_parameters(window), "lateness": lateness}
    return [(case_id, *row, *params.values(), side_output) for row in rows]


def _case_events(spark, rows, window, lateness, side_output=True):
    """`_case_rows` of case 0 as the pipeline's events."""
    return spark.createDataFrame(_case_rows(rows, window, lateness, side_output), _EVENTS_SCHEMA)


def _events(spark, rows, lateness=0, side_output=True, size=10, slide=10, offset=0):
    return _case_events(spark, rows, sliding(size, slide, offset), lateness, side_output)


def test_watermark_steps_ignore_regressions_and_arrivals_see_the_last_step_before_them(spark):
    rows = [(0, 0, "a", 1, 1), (1, 1, None, None, 20), (2, 1, None, None, 5), (3, 0, "a", 2, 2),
            (4, 1, None, None, 20), (5, 1, None, None, 30), (6, 0, "a", 3, 3)]
    steps = R.watermark_steps(_events(spark, rows))
    assert sorted(tuple(r) for r in steps.collect()) == [(0, 1, 20), (0, 5, 30)]
    queries = spark.createDataFrame([(0, 0), (0, 3), (0, 6)], "case_id long, at long")
    got = sorted((r.at, r.wm) for r in R.with_arrival_watermark(queries, steps).collect())
    assert got == [(0, LONG_MIN), (3, 20), (6, 30)]


def test_first_watermark_reaching_a_threshold(spark):
    steps = spark.createDataFrame([(0, 1, 5), (0, 4, 9), (0, 7, LONG_MAX)], "case_id long, at long, wm long")
    times = spark.createDataFrame([(0, 5), (0, 6), (0, 9), (0, 100), (1, 3)], "case_id long, t long")
    got = sorted(tuple(r) for r in R.first_watermark_reaching(steps, times).collect())
    assert got == [(0, 5, 1, 5), (0, 6, 4, 9), (0, 9, 4, 9), (0, 100, 7, LONG_MAX), (1, 3, None, None)]


def _outputs(events, gaps=True):
    out = R.relational_outputs(events).outputs.collect()
    if not gaps:  # windows without gaps between them: the plan that leaves out their lookup, the same outputs
        assert sorted(map(tuple, R.relational_outputs(events, gaps=False).outputs.collect())) == sorted(map(tuple, out))
    return _shaped(out)


def _shaped(out):
    """Output rows as the tests compare them: the firings `(at, window start, values, watermark)` in order, and the
    late and dropped records `(at, kind, value)`."""
    return ([(r.at, r.window_start, r.values, r.watermark) for r in sorted(out, key=lambda r: (r.at, r.window_start))
             if r.kind == "firing"],
            sorted((r.at, r.kind, r.value) for r in out if r.kind != "firing"))


def test_lateness_decides_between_late_firing_and_side_output(spark):
    rows = [(0, 0, "a", 1, 1), (1, 1, None, None, 12), (2, 0, "a", 2, 2), (3, 1, None, None, 14),
            (4, 0, "a", 3, 3)]
    # [0, 10): on time at 1 with [1]; the element at 2 is within lateness 5 (cleanup 14 > 12) and fires
    # late with [1, 2]; the watermark 14 cleans the window up, so the element at 4 is late.
    assert _outputs(_events(spark, rows, lateness=5), gaps=False) == ([(1, 0, [1], 12), (2, 0, [1, 2], 12)],
                                                                      [(4, "late", 3)])
    assert _outputs(_events(spark, rows, lateness=0, side_output=False), gaps=False)[1] == [(2, "dropped", 2),
                                                                                           (4, "dropped", 3)]


def test_an_element_without_a_window_is_late_only_behind_the_watermark(spark):
    # size 3 < slide 5: ts 4 has no window; it is late once ts + lateness <= watermark (at 2, not at 0).
    # ts 0 falls in [0, 3), already late at 3 (cleanup 3 <= 5): skipped, so late as well.
    rows = [(0, 0, "a", 1, 4), (1, 1, None, None, 5), (2, 0, "a", 2, 4), (3, 0, "a", 3, 0)]
    assert _outputs(_events(spark, rows, lateness=1, size=3, slide=5)) == ([], [(2, "late", 2), (3, "late", 3)])


def test_a_record_late_for_its_earliest_window_is_added_to_its_latest(spark):
    # size 10, slide 5: slices of 5. The record at ts 7 (at 2) fires [0, 10) late with [1, 2] (cleanup 11 > 9);
    # after the watermark 11 the one at ts 8 (at 4) is late for [0, 10) but not for [5, 15), which takes it: no
    # side output, and [5, 15) fires at the end with both.
    rows = [(0, 0, "a", 1, 2), (1, 1, None, None, 9), (2, 0, "a", 2, 7), (3, 1, None, None, 11), (4, 0, "a", 3, 8),
            (5, 1, None, None, LONG_MAX)]
    assert _outputs(_events(spark, rows, lateness=2, size=10, slide=5), gaps=False) == (
        [(1, -5, [1], 9), (1, 0, [1], 9), (2, 0, [1, 2], 9), (5, 5, [2, 3], LONG_MAX)], [])


#: Records and watermarks of one key, negative times among them, in arrival order: some on time, some firing a
#: window late, some late for their earliest windows only, some late for every window.
_EDGES = [("r", -7), ("r", -2), ("w", -4), ("r", -6), ("r", -9), ("w", 0), ("r", -3), ("r", 1), ("r", -1), ("w", 3),
          ("r", -5), ("r", 2), ("r", -11), ("w", 8), ("r", 0), ("r", 6), ("r", 3)]


def _relational_and_replayed(spark, runs):
    """For each `(window, lateness, edges)` of `runs` (one key's `edges`, in arrival order: ("r", ts) a record of value
    its arrival, ("w", t) a watermark; the end of input after them), `_outputs` of the relational pipeline and the
    same of the per-key replay, both with the side output, and the replay's observation. The runs are the cases of one
    batch, as the pipeline runs a request's: one job for all."""
    rows, replays = [], []
    for case_id, (window, lateness, edges) in enumerate(runs):
        events = [(at, RECORD, at, ts) if kind == "r" else (at, WATERMARK, None, ts)
                  for at, (kind, ts) in enumerate(edges)] + [(len(edges), WATERMARK, None, LONG_MAX)]
        case = Case(window=window, allowed_lateness=lateness, late_side_output=True, events=[record("a", 0, ts=0)])
        replays.append(simulate(operator_spec(case), "a", events))
        rows += _case_rows([(at, kind, "a" if kind == RECORD else None, value, ts) for at, kind, value, ts in events],
                           window, lateness, case_id=case_id)
    out = R.relational_outputs(spark.createDataFrame(rows, _EVENTS_SCHEMA)).outputs.collect()
    return [(_shaped([r for r in out if r.case_id == case_id]),
             ([(f.at, f.window.start, list(f.values), f.watermark)
               for f in sorted(replayed.firings, key=lambda f: (f.at, f.window.start))],
              sorted((r.at, "late", r.value) for r in replayed.late)),
             replayed) for case_id, replayed in enumerate(replays)]


_BUCKET_WINDOWS = [sliding(10, 4, 1), sliding(7, 3, -2), sliding(3, 5, -2), sliding(9, 3, 2), tumbling(7, -3),
                   cumulative(3, 9, 2), cumulative(2, 8, -5)]
#: The least record time the pipeline takes, -2^62 + 1.
_LEAST_TS = -R.SAFE_BOUND + 1
#: A tumbling size whose bucket of `_LEAST_TS` starts below -2^62 (`test_a_bucket_starting_below_...`).
_BELOW_SIZE = 3_122_274_243_201_427_968
#: A sliding size and slide whose earliest window of `_LEAST_TS` starts in the bucket before its own, which would
#: start below Long.MIN_VALUE (`test_the_bucket_before_one_starting_near_...`).
_NEAR_MIN_SIZE, _NEAR_MIN_SLIDE = 3 * 2**60 - 1, 2**60


@pytest.fixture(scope="module")
def bucket_runs(spark):
    """`_relational_and_replayed` of every run of the tests below, by name, in one job."""
    runs = {(window, lateness): (window, lateness, _EDGES) for window in _BUCKET_WINDOWS for lateness in (0, 3)}
    runs["below"] = (tumbling(_BELOW_SIZE, _BELOW_SIZE - 2), 0, [("r", _LEAST_TS), ("r", _LEAST_TS + 1)])
    runs["near min"] = (sliding(_NEAR_MIN_SIZE, _NEAR_MIN_SLIDE), 0,
                        [("r", _LEAST_TS), ("r", _LEAST_TS + 1), ("w", 0), ("r", _LEAST_TS + _NEAR_MIN_SLIDE)])
    return dict(zip(runs, _relational_and_replayed(spark, list(runs.values())), strict=True))


@pytest.mark.parametrize("window", _BUCKET_WINDOWS, ids=str)
@pytest.mark.parametrize("lateness", [0, 3])
def test_buckets_fire_what_the_per_key_replay_fires(bucket_runs, window, lateness):
    # Buckets of `size` (an element in its own and, for windows starting before it, the one before), each window
    # filtered from its bucket, decide each (element, window) as the per-key replay of the same events does: sizes
    # that are multiples of the slide and not, windows with gaps, negative offsets, cumulative periods.
    got, want, replayed = bucket_runs[window, lateness]
    assert got == want
    late_firings = [f for f in replayed.firings if f.at < len(_EDGES) and _EDGES[f.at][0] == "r"]
    assert replayed.late and (lateness == 0 or any(len(f.values) > 1 for f in late_firings))


def test_a_bucket_starting_below_the_pipelines_times_takes_its_windows_from_its_elements(bucket_runs):
    # ts -2^62 + 1 lies in the bucket (a tumbling window) starting at -6,244,548,486,402,855,938, below -2^62:
    # `getWindowStartWithOffset` of that start would compute start - offset past Long.MIN_VALUE.
    size, ts = _BELOW_SIZE, _LEAST_TS
    assert window_start(ts, size - 2, size) - (size - 2) < LONG_MIN
    got, want, _ = bucket_runs["below"]
    assert got == want == ([(2, window_start(ts, size - 2, size), [0, 1], LONG_MAX)], [])


def test_the_bucket_before_one_starting_near_long_min_value_is_named_without_wrapping(bucket_runs):
    # size 3 * 2^60 - 1, slide 2^60: ts -2^62 + 1 lies in the bucket starting at -2 * size + 2 (so near -2^63 + 2^61),
    # and its earliest window starts before it, in the bucket before, which would start below Long.MIN_VALUE.
    size, slide, ts = _NEAR_MIN_SIZE, _NEAR_MIN_SLIDE, _LEAST_TS
    own = window_start(ts, 0, size)
    assert own - size < LONG_MIN and min(w.start for w in assign_windows(sliding(size, slide), ts, 0)) < own
    got, want, _ = bucket_runs["near min"]
    assert got == want and len(got[0]) >= 3


# --- the per-key replay -------------------------------------------------------------------------

def _replay(case: Case, end_of_input: bool = True):
    """One key's replay of `case`'s events (every record as key "a"'s), ending its input unless told not to."""
    kinds = {"Record": RECORD, "Watermark": WATERMARK, "ProcessingTime": PROCESSING_TIME}
    events = [(at, kinds[type(e).__name__], getattr(e, "value", None),
               getattr(e, "ts", getattr(e, "timestamp", getattr(e, "time", None))))
              for at, e in enumerate(case.events)]
    if end_of_input:
        events.append((len(case.events), WATERMARK, None, LONG_MAX))
    return simulate(operator_spec(case), "a", events)


def test_session_windows_merge_when_adjacent():
    out = _replay(Case(window=session(5), events=[record("a", 1, 0), record("a", 2, 5), watermark(100)]))
    assert [(f.window.start, f.window.end, f.values) for f in out.firings] == [(0, 10, (1, 2))]
    assert merge_windows([W(0, 5), W(5, 10), W(11, 12)]) == [(W(0, 10), [W(0, 5), W(5, 10)])]


def test_evictors():
    contents = [(1, 10), (2, 3), (3, 8), (4, 12)]
    assert evictions(CountEvictor(2)).evict(contents) == [(3, 8), (4, 12)]
    assert evictions(CountEvictor(-1)).evict(contents) == []
    assert evictions(CountEvictor(LONG_MIN)).evict(contents) == contents  # size - maxCount wraps: nothing goes
    assert evictions(TimeEvictor(4)).evict(contents) == [(1, 10), (4, 12)]
    assert evictions(DeltaEvictor(2.0, "absolute_difference")).evict(contents) == [(3, 8), (4, 12)]


def test_every_trigger_and_evictor_of_the_format_has_its_class_and_an_unknown_kind_is_named():
    from spark_impl.implementation import SparkImplementation
    from spark_impl.triggers import decisions
    from window_contract.case import EVICTORS, TRIGGERS

    declared = {kind for kind in TRIGGERS if kind.feature.name in SparkImplementation.features}
    assert set(Evictor.classes) == set(EVICTORS) and set(Trigger.classes) == declared == set(TRIGGERS)

    @dataclass(frozen=True)
    class SlidingEvictor:
        after: bool = False

    with pytest.raises(TypeError, match="spark_impl has no Evictor class for SlidingEvictor .it knows CountEvictor, "
                                        "DeltaEvictor, TimeEvictor.: a kind of the format needs one"):
        evictions(SlidingEvictor())
    with pytest.raises(TypeError, match="no Trigger class for SlidingEvictor"):
        decisions(SlidingEvictor())


def test_continuous_processing_time_trigger_fires_every_interval():
    # A processing-time timer fires once the clock has passed it (a real task waits t - now + 1 ms):
    # the fire timer at 10 does not fire at clock 10; the second element finds a fire time and adds
    # none; at clock 20 the timer at 10 fires with both values and registers 20, not yet passed.
    out = _replay(Case(window=Global(), trigger=ContinuousProcessingTimeTrigger(10),
                       events=[record("a", 1, 0), processing_time(10), record("a", 2, 0), processing_time(20)]))
    assert [(f.at, f.values) for f in out.firings] == [(3, (1, 2))] and out.error is None


def test_a_timer_loop_that_never_ends_is_stopped_after_the_outputs_before_it():
    # Purged at its first firing, the global window has nothing left to emit at the end of input,
    # but its continuous trigger registers the next fire time 4 ms on: multiples of 4, which never
    # land on Long.MAX_VALUE, so `time + 4` wraps past it back below the watermark for ever.
    out = _replay(Case(window=Global(), trigger=purging(ContinuousEventTimeTrigger(4)),
                       events=[record("a", 1, 1), watermark(4)]))
    assert [(f.at, f.values) for f in out.firings] == [(1, (1,))]
    assert out.error == (2, NEVER_ENDS)


def test_a_chain_that_lands_on_long_max_value_ends_after_two_to_the_64_empty_timers():
    # Multiples of 5 from 5 wrap past Long.MAX_VALUE too, but an odd step reaches every long, Long.MAX_VALUE
    # (the window's end) included: some 2^64 / 5 fire times later the chain ends, and every one of them
    # found the purged window empty. The replay steps over them in one move.
    out = _replay(Case(window=Global(), trigger=purging(ContinuousEventTimeTrigger(5)),
                       events=[record("a", 1, 1), watermark(5)]))
    assert [(f.at, f.values) for f in out.firings] == [(1, (1,))]
    assert out.error is None


def test_a_burst_of_a_billion_empty_periodic_timers_costs_nothing():
    out = _replay(Case(window=Global(), trigger=purging(ContinuousProcessingTimeTrigger(1)), end_of_input=False,
                       events=[record("a", 1, 0), processing_time(10**9), record("a", 2, 0),
                               processing_time(10**9 + 2)]))
    assert [(f.at, f.values) for f in out.firings] == [(1, (1,)), (3, (2,))] and out.error is None


def test_a_key_past_the_output_limit_stops_the_case(monkeypatch):
    monkeypatch.setattr(spark_operator, "OUTPUT_LIMIT", 3)
    out = _replay(Case(window=Global(), trigger=ContinuousEventTimeTrigger(1), end_of_input=False,
                       events=[record("a", 1, 0), watermark(2), watermark(10)]))
    assert [f.at for f in out.firings] == [1, 1, 2] and out.error == (2, TOO_MANY_OUTPUTS)


# --- driver-side checks of the specification --------------------------------------------------

@pytest.mark.parametrize("window, message", [
    (tumbling(5, offset=5), "TumblingEventTimeWindows parameters must satisfy abs(offset) < size"),
    (tumbling(5, offset=LONG_MIN), None),  # Math.abs(Long.MIN_VALUE) < size: Flink accepts it
    (sliding(5, 2, offset=-2), "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0"),
    (sliding(0, 2), "SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0"),
    (sliding(20_000_001, 2, time="processing"), None),
    (session(-1), "EventTimeSessionWindows parameters must satisfy 0 < size"),
])
def test_invalid_spec_messages(window, message):
    assert invalid_spec_message(Case(window=window)) == message


def test_timer_firings_of_a_watermark_come_in_timestamp_order_across_keys():
    """At a watermark (here the end of input) Flink's timer queue fires the earliest window first,
    whatever its key; the rows from the pipeline's key groups arrive in no such order. So too under purging
    triggers, however deep (the replay's path: the rows come in key order)."""

    from spark_impl.implementation import SparkImplementation
    from window_contract.case import EventTimeTrigger

    events = [record("a", 1, 2), record("b", 2, 0), record("c", 3, 1)]
    cases = [Case(window=tumbling(1), events=events, trigger=trigger)
             for trigger in (None, purging(EventTimeTrigger()), purging(purging(EventTimeTrigger())))]
    observations = SparkImplementation(get_session()).run(cases)
    assert [[f.timestamp for f in observation.firings] for observation in observations] == [[0, 1, 2]] * 3


def test_timer_order_applies_only_where_timers_fire_at_max_timestamp():

    from spark_impl.frames import timer_positions
    from window_contract.case import ContinuousEventTimeTrigger, EventTimeTrigger, ProcessingTimeoutTrigger

    events = [record("a", 1, 0), watermark(5)]
    assert timer_positions(Case(window=tumbling(10), events=events)) == {1, 2}
    assert timer_positions(Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(2), events=events)) == set()
    nested = purging(purging(EventTimeTrigger()))
    assert timer_positions(Case(window=tumbling(10), trigger=nested, events=events)) == {1, 2}
    timeout = ProcessingTimeoutTrigger(EventTimeTrigger(), 5)  # its own timers fire at no window's maxTimestamp
    assert timer_positions(Case(window=tumbling(10), trigger=purging(timeout), events=events)) == set()


def test_groups_hands_over_each_case_and_key_whole_also_across_batches():
    """`grouped.groups` reads a sorted partition: a group that spans batches comes whole (also one that
    begins a batch), a null key is a group of its own, and the same key in the next case is another."""
    import pyarrow as pa

    from spark_impl.grouped import groups

    rows = [(0, "a", 0), (0, "a", 1), (0, "a", 2), (0, "b", 3), (0, None, 4), (0, None, 5), (1, "a", 6), (1, "a", 7)]
    table = pa.table({"case_id": [r[0] for r in rows], "key": [r[1] for r in rows], "at": [r[2] for r in rows]})
    batches = [batch for start, end in ((0, 2), (2, 5), (5, 6), (6, 8))
               for batch in table.slice(start, end - start).to_batches()]
    found = [(group, t.column("at").to_pylist()) for group, t in groups(batches)]
    assert found == [((0, "a"), [0, 1, 2]), ((0, "b"), [3]), ((0, None), [4, 5]), ((1, "a"), [6, 7])]
    assert list(groups([])) == []


def test_shuffle_partitions_raises_the_setting_within_and_restores_it_after(spark):
    """A large batch's job gets more shuffle partitions (`pipeline.outputs_of`); the session keeps its own."""
    from spark_impl.session import shuffle_partitions

    name = "spark.sql.shuffle.partitions"
    before = spark.conf.get(name)
    more = str(int(before) + 1)
    with shuffle_partitions(spark, int(more)):
        assert spark.conf.get(name) == more
    assert spark.conf.get(name) == before
    with shuffle_partitions(spark, 0):
        assert spark.conf.get(name) == before
    with pytest.raises(RuntimeError), shuffle_partitions(spark, int(more)):
        raise RuntimeError("a failing job")
    assert spark.conf.get(name) == before


# --- a continuous trigger's periodic timers over an empty window (spark_impl.chains) ----------------


@given(st.integers(2, 80).flatmap(lambda m: st.tuples(
    st.just(m), st.integers(1, m - 1), st.integers(1, m - 1).flatmap(lambda lo: st.tuples(
        st.just(lo), st.integers(lo, m - 1))))))
def test_the_least_multiple_in_a_range_is_the_one_stepping_finds(drawn):
    modulus, step, (low, high) = drawn
    stepped = next((k for k in range(modulus + 1) if low <= k * step % modulus <= high), None)
    assert least_multiple_in(step, modulus, low, high) == stepped


@settings(max_examples=200)
@given(interval=st.one_of(st.integers(-7, 7).filter(bool), st.integers(2**62, LONG_MAX), st.just(LONG_MIN)),
       max_ts=st.sampled_from([LONG_MAX, 100, -50]), bound=st.sampled_from([LONG_MAX, 200, -1]),
       back=st.integers(1, 300))
def test_where_a_chain_stops_is_where_stepping_stops(interval, max_ts, bound, back):
    time = min(max_ts, bound + 1) - back
    fire, found = time, None
    for k in range(1, 3000):
        fire = min(J.wrap(fire + interval), max_ts)
        if fire >= min(max_ts, bound + 1):
            found = (k, fire)
            break
    stop = skip_to(time, interval, max_ts, bound)
    assert stop == found if found else (stop is None or stop[0] >= 3000)


@settings(max_examples=40, deadline=None)
@given(burst_cases(max_burst=300))
def test_stepping_over_empty_timers_replays_what_firing_each_replays(case):
    # the same outputs at each position; timers with one timestamp may fire in another order (Flink leaves it open)
    def outputs(out):
        return sorted(map(repr, out.firings + out.late + out.dropped)), out.error

    with mock.patch.object(_Continuous, "skip_empty", lambda *args: None):
        each = _replay(case, case.end_of_input)
    assert outputs(_replay(case, case.end_of_input)) == outputs(each)


@settings(max_examples=40, deadline=None)
@given(burst_cases(max_burst=300))
def test_a_chain_fired_to_the_output_limit_at_once_replays_what_firing_each_replays(case):
    """With a limit of 8 outputs a key, a burst of a trigger that keeps its contents (up to 20 firings) passes it:
    the same outputs up to the event the key stops in (whose outputs the contract does not compare), the same
    error."""
    def before_the_stop(out):
        stop = out.error[0] if out.error else len(case.events) + 1
        return sorted(repr(o) for o in out.firings + out.late + out.dropped if o.at < stop), out.error

    with mock.patch.object(spark_operator, "OUTPUT_LIMIT", 8):
        at_once = _replay(case, case.end_of_input)
        with mock.patch.object(_Continuous, "runs_past", lambda *args: False):
            each = _replay(case, case.end_of_input)
    assert before_the_stop(at_once) == before_the_stop(each)


def test_a_runaway_chain_fires_the_keys_last_outputs_at_once_and_stops_it():
    """`cases/triggers/continuous.json`'s case: a chain round the long range on unchanged contents."""
    case = Case(window=Global(), trigger=ContinuousEventTimeTrigger(5), events=[record("a", 1, 1), watermark(12)])
    at_once = _replay(case)
    assert len(at_once.firings) == 100_000 and {f.values for f in at_once.firings} == {(1,)}
    assert at_once.error == (2, TOO_MANY_OUTPUTS)
    with mock.patch.object(_Continuous, "runs_past", lambda *args: False):
        assert _replay(case) == at_once

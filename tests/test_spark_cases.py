"""The Spark implementation on hand-computed cases, in one batch, and batch independence.

Every expected observation below is worked out by hand from Flink's rules (notes in each case).
The whole file runs a handful of Spark jobs on one shared session; it fails, never skips, when
Java or PySpark is missing.
"""

from __future__ import annotations

import pytest

from spark_impl.implementation import SparkImplementation, is_relational
from window_contract import (
    LONG_MAX,
    LONG_MIN,
    Case,
    ContinuousEventTimeTrigger,
    CountEvictor,
    CountTrigger,
    Firing,
    GlobalWindow,
    LateRecord,
    NeverTrigger,
    Observation,
    TimeEvictor,
    TimeWindow,
    count_window,
    cumulative,
    difference,
    global_window,
    processing_time,
    purging,
    record,
    session,
    sliding,
    tumbling,
    watermark,
)
from window_contract.case import EventTimeTrigger
from window_contract.facts import TOO_MANY_WINDOWS
from window_contract.observation import Error

pytestmark = pytest.mark.spark

W = TimeWindow
NO_TS = ("Record has Long.MIN_VALUE timestamp (= no timestamp marker). Did you forget to call "
         "'DataStream.assignTimestampsAndWatermarks(...)'?")


def fire(at, key, window, values, wm, ts=None):
    timestamp = ts if ts is not None else (LONG_MAX if isinstance(window, GlobalWindow) else window.end - 1)
    return Firing(at, key, window, timestamp, tuple(values), wm)


CASES: list[tuple[str, Case, Observation]] = [
    ("tumbling: on time at the watermark, then a late record to the side output",
     Case(window=tumbling(1000), late_side_output=True,
          events=[record("a", 1, 999), watermark(999), record("a", 2, 500)]),
     Observation(firings=[fire(1, "a", W(0, 1000), [1], 999)], late=[LateRecord(2, "a", 2, 500)])),
    ("sliding 10/4: size not a multiple of the slide gives windows starting 4, 0, -4",
     Case(window=sliding(10, 4), events=[record("a", 1, 5)]),
     Observation(firings=[fire(1, "a", W(4, 14), [1], LONG_MAX), fire(1, "a", W(0, 10), [1], LONG_MAX),
                          fire(1, "a", W(-4, 6), [1], LONG_MAX)])),
    ("sliding 3/5: ts 4 falls in no window; once the watermark passed it, it is late",
     Case(window=sliding(3, 5), late_side_output=True,
          events=[record("a", 1, 4), record("a", 2, 1), watermark(10), record("a", 3, 4)]),
     Observation(firings=[fire(2, "a", W(0, 3), [2], 10)], late=[LateRecord(3, "a", 3, 4)])),
    ("tumbling with offset 3 and a negative timestamp: [-7, 3)",
     Case(window=tumbling(10, offset=3), events=[record("k", 5, -1), watermark(1), watermark(2)]),
     Observation(firings=[fire(2, "k", W(-7, 3), [5], 2)])),
    ("lateness 5: a late firing with everything, then cleanup at 14 and a dropped record",
     Case(window=tumbling(10), allowed_lateness=5,
          events=[record("a", 1, 1), watermark(9), record("a", 2, 2), watermark(14), record("a", 3, 3)]),
     Observation(firings=[fire(1, "a", W(0, 10), [1], 9), fire(2, "a", W(0, 10), [1, 2], 9)],
                 dropped=[LateRecord(4, "a", 3, 3)])),
    ("lateness Long.MAX_VALUE: cleanup saturates, a window is never late",
     Case(window=tumbling(10), allowed_lateness=LONG_MAX,
          events=[record("a", 1, 1), watermark(100), record("a", 2, 2)]),
     Observation(firings=[fire(1, "a", W(0, 10), [1], 100), fire(2, "a", W(0, 10), [1, 2], 100)])),
    ("explicit EventTimeTrigger, two keys, watermarks that do not increase are ignored",
     Case(window=tumbling(10), trigger=EventTimeTrigger(),
          events=[record("a", 1, 1), record("b", 2, 3), watermark(20), watermark(5), record("b", 3, 25),
                  record("b", 4, 15)]),
     Observation(firings=[fire(2, "a", W(0, 10), [1], 20), fire(2, "b", W(0, 10), [2], 20),
                          fire(6, "b", W(20, 30), [3], LONG_MAX)],
                 dropped=[LateRecord(5, "b", 4, 15)])),
    ("session gap 10: a record bridging two sessions merges them into [0, 25)",
     Case(window=session(10), events=[record("a", 1, 0), record("a", 2, 15), record("a", 3, 8),
                                      watermark(30)]),
     Observation(firings=[fire(3, "a", W(0, 25), [1, 2, 3], 30)])),
    ("count window 2: fires and purges every second element; the global window never ends",
     Case(window=count_window(2), events=[record("a", 1, 3), record("a", 2, 12), record("a", 3, 1)]),
     Observation(firings=[fire(1, "a", GlobalWindow(), [1, 2], LONG_MIN)])),
    ("count window 3 slide 1: CountTrigger(1) with CountEvictor(3) keeps the last three",
     Case(window=count_window(3, 1), events=[record("a", v, 0) for v in (1, 2, 3, 4)]),
     Observation(firings=[fire(0, "a", GlobalWindow(), [1], LONG_MIN),
                          fire(1, "a", GlobalWindow(), [1, 2], LONG_MIN),
                          fire(2, "a", GlobalWindow(), [1, 2, 3], LONG_MIN),
                          fire(3, "a", GlobalWindow(), [2, 3, 4], LONG_MIN)])),
    ("ContinuousEventTimeTrigger(3): fires at 3, then 6 and 9 (9 is maxTimestamp, one deduplicated timer)",
     Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(3),
          events=[record("a", 1, 1), watermark(5), watermark(20)]),
     Observation(firings=[fire(1, "a", W(0, 10), [1], 5), fire(2, "a", W(0, 10), [1], 20),
                          fire(2, "a", W(0, 10), [1], 20)])),
    ("TimeEvictor(5) before the function: keeps ts > max(ts) - 5",
     Case(window=tumbling(100), evictor=TimeEvictor(5),
          events=[record("a", 1, 1), record("a", 2, 10), record("a", 3, 7), watermark(99)]),
     Observation(firings=[fire(3, "a", W(0, 100), [2, 3], 99)])),
    ("CountEvictor(1, after): the function sees all, one element stays for the next firing",
     Case(window=global_window(), trigger=CountTrigger(2), evictor=CountEvictor(1, after=True),
          events=[record("a", v, 0) for v in (1, 2, 3, 4)]),
     Observation(firings=[fire(1, "a", GlobalWindow(), [1, 2], LONG_MIN),
                          fire(3, "a", GlobalWindow(), [2, 3, 4], LONG_MIN)])),
    ("purging CountTrigger(2) on sessions: counts add up when windows merge",
     Case(window=session(10), trigger=purging(CountTrigger(2)),
          events=[record("a", 1, 0), record("a", 2, 20), record("a", 3, 10)]),
     Observation(firings=[fire(2, "a", W(0, 30), [1, 2, 3], LONG_MIN)])),
    ("processing-time tumbling: fires when processing time passes maxTimestamp, not at end of input",
     Case(window=tumbling(10, time="processing"),
          events=[record("a", 1, 100), processing_time(5), record("a", 2, 200), processing_time(12),
                  record("a", 3, 300)]),
     Observation(firings=[fire(3, "a", W(0, 10), [1, 2], LONG_MIN)])),
    ("a window ending past Long.MAX_VALUE wraps: maxTimestamp is Long.MIN_VALUE + 1",
     Case(window=tumbling(10), events=[record("a", 1, LONG_MAX - 3), watermark(0)]),
     Observation(firings=[fire(1, "a", W(LONG_MAX - 7, LONG_MIN + 2), [1], 0, ts=LONG_MIN + 1)])),
    ("a Long.MIN_VALUE timestamp fails the job; what came before stays",
     Case(window=tumbling(10), events=[record("a", 1, 1), watermark(10), record("b", 2, LONG_MIN),
                                       record("a", 3, 2)]),
     Observation(firings=[fire(1, "a", W(0, 10), [1], 10)], error=Error("runtime", NO_TS))),
    ("session merge whose maxTimestamp + lateness wraps below the watermark fails the job",
     Case(window=session(10), allowed_lateness=LONG_MAX,
          events=[record("a", 1, 0), watermark(0), record("a", 2, 5), record("a", 3, 1)]),
     Observation(error=Error("runtime", "The end timestamp of an event-time window cannot become earlier "
                                        "than the current watermark by merging. Current watermark: 0 "
                                        "window: TimeWindow{start=0, end=15}"))),
    ("invalid: sliding with slide 0",
     Case(window=sliding(10, 0), events=[record("a", 1, 1)]),
     Observation.invalid_spec("SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and "
                              "size > 0")),
    ("invalid: more than 10,000,000 sliding windows per element",
     Case(window=sliding(10_000_001, 1), events=[record("a", 1, 1)]),
     Observation.invalid_spec("SlidingEventTimeWindows parameters must satisfy size / slide <= 10000000")),
    ("invalid: tumbling processing time with |offset| >= size",
     Case(window=tumbling(10, offset=-10, time="processing")),
     Observation.invalid_spec("TumblingProcessingTimeWindows parameters must satisfy abs(offset) < size")),
    ("invalid: session windows with a trigger that cannot merge",
     Case(window=session(5), trigger=NeverTrigger()),
     Observation.invalid_spec("A merging window assigner cannot be used with a trigger that does not "
                              "support merging.")),
    ("invalid: session gap 0",
     Case(window=session(0, time="processing")),
     Observation.invalid_spec("ProcessingTimeSessionWindows parameters must satisfy 0 < size")),
    # Flink SQL's CUMULATE, as flink-sql answered it: [0, 10) fires alone at 9; 12 goes to its step's windows, 8
    # (late for [0, 10)) to [0, 20) and [0, 30) only; 29 comes after all three fired; [30, 60)'s period fires the
    # two windows from 40's step on, not [30, 40).
    ("cumulative 10/30: a record late for the first step joins the later windows",
     Case(window=cumulative(10, 30), events=[record("a", 1, 5), record("a", 2, 19), watermark(9), watermark(10),
                                             record("a", 3, 12), record("a", 4, 8), watermark(35),
                                             record("a", 5, 29), record("a", 6, 40)]),
     Observation(firings=[fire(2, "a", W(0, 10), [1], 9), fire(6, "a", W(0, 20), [1, 2, 3, 4], 35),
                          fire(6, "a", W(0, 30), [1, 2, 3, 4], 35), fire(9, "a", W(30, 50), [6], LONG_MAX),
                          fire(9, "a", W(30, 60), [6], LONG_MAX)],
                 dropped=[LateRecord(7, "a", 5, 29)])),
    ("cumulative with an offset beyond the size, replayed under a count trigger: windows align modulo the size",
     Case(window=cumulative(10, 30, offset=47), trigger=CountTrigger(1), events=[record("a", 1, 25)]),
     Observation(firings=[fire(0, "a", W(17, 27), [1], LONG_MIN), fire(0, "a", W(17, 37), [1], LONG_MIN),
                          fire(0, "a", W(17, 47), [1], LONG_MIN)])),
    ("cumulative: a last end within a step of Long.MAX_VALUE makes end += step wrap, which the contract stops",
     Case(window=cumulative(5, 10, offset=(LONG_MAX - 11) % 10), events=[record("a", 1, LONG_MAX - 11)]),
     Observation(error=Error("runtime", TOO_MANY_WINDOWS))),
    ("invalid: cumulative size no multiple of the step (Flink SQL's message)",
     Case(window=cumulative(25, 60)),
     Observation.invalid_spec("CUMULATE table function based aggregate requires maxSize must be an integral "
                              "multiple of step, but got maxSize 60 ms and step 25 ms.")),
]


@pytest.fixture(scope="module")
def spark_impl():
    return SparkImplementation()


@pytest.fixture(scope="module")
def batch_results(spark_impl):
    return spark_impl.run([case for _, case, _ in CASES])


@pytest.mark.parametrize("index", range(len(CASES)), ids=[label for label, _, _ in CASES])
def test_hand_computed_case(batch_results, index):
    label, case, expected = CASES[index]
    assert not difference(expected, batch_results[index]), difference(expected, batch_results[index])


def test_both_pipelines_are_exercised():
    relational = [is_relational(case) for _, case, _ in CASES]
    assert any(relational) and not all(relational)


def test_a_case_alone_equals_the_case_in_a_batch(spark_impl, batch_results):
    # One relational case, one replayed case and one error case, alone and in a shuffled batch
    # where other cases reuse the same keys and timestamps.
    picks = [0, 7, 16]
    alone = [spark_impl.run([CASES[i][1]])[0] for i in picks]
    shuffled = spark_impl.run([CASES[i][1] for i in reversed(range(len(CASES)))])
    for i, observation in zip(picks, alone, strict=True):
        assert observation == batch_results[i]
    assert shuffled[::-1] == batch_results


def test_an_empty_batch_runs_no_job(spark_impl):
    assert spark_impl.run([]) == []

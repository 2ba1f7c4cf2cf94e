"""Real Flink against hand-derived observations: one small case per rule of the window operator.

Every expected observation below is worked out by hand from Flink's classes (the comment says how);
the cases run through `flink` in one batch, so the whole table costs one Flink job.
"""

from __future__ import annotations

import pytest

from flink_impl import FlinkImplementation
from window_contract import (
    LONG_MAX,
    LONG_MIN,
    Case,
    ContinuousEventTimeTrigger,
    CountEvictor,
    CountTrigger,
    Error,
    EventTimeTrigger,
    Firing,
    GlobalWindow,
    LateRecord,
    NeverTrigger,
    Observation,
    PurgingTrigger,
    TimeEvictor,
    TimeWindow,
    count_window,
    difference,
    equivalent,
    global_window,
    processing_time,
    record,
    session,
    sliding,
    tumbling,
    watermark,
)

pytestmark = pytest.mark.flink

NO_TIMESTAMP = ("Record has Long.MIN_VALUE timestamp (= no timestamp marker). "
                "Did you forget to call 'DataStream.assignTimestampsAndWatermarks(...)'?")
MERGING_TRIGGER = "A merging window assigner cannot be used with a trigger that does not support merging."


def fired(at: int, key: str, start: int, end: int, values: list[int], wm: int) -> Firing:
    """A firing of the time window [start, end): its output timestamp is maxTimestamp() = end - 1."""
    return Firing(at, key, TimeWindow(start, end), end - 1, tuple(values), wm)


def fired_global(at: int, key: str, values: list[int], wm: int) -> Firing:
    return Firing(at, key, GlobalWindow(), LONG_MAX, tuple(values), wm)


def late(at: int, key: str, value: int, ts: int) -> LateRecord:
    return LateRecord(at, key, value, ts)


def runtime_error(message: str, *firings: Firing) -> Observation:
    return Observation(firings=firings, error=Error("runtime", message))


CASES: dict[str, tuple[Case, Observation]] = {
    # Watermark 9 reaches maxTimestamp 9 of [0, 10) for both keys; [10, 20) waits for the end of input.
    "tumbling": (
        Case(window=tumbling(10), events=[record("a", 1, 1), record("a", 2, 9), record("b", 5, 3), watermark(9),
                                          record("a", 3, 10)]),
        Observation(firings=(fired(3, "a", 0, 10, [1, 2], 9), fired(3, "b", 0, 10, [5], 9),
                             fired(5, "a", 10, 20, [3], LONG_MAX))),
    ),
    # start = ts - ((ts - offset) % size) with Java's truncating %, corrected when negative:
    # ts 2: (2 - 3) % 10 = -1 -> 2 - (-1 + 10) = -7; ts 3: 0 -> 3.
    "tumbling offset": (
        Case(window=tumbling(10, offset=3), events=[record("a", 1, 2), record("a", 2, 3)]),
        Observation(firings=(fired(2, "a", -7, 3, [1], LONG_MAX), fired(2, "a", 3, 13, [2], LONG_MAX))),
    ),
    # ts -1: (-1) % 10 = -1 -> start -10 (floor alignment, FLINK-26334); ts -10 is a window start.
    # Watermark -1 passes both maxTimestamps, -1 and -11.
    "tumbling negative timestamps": (
        Case(window=tumbling(10), events=[record("a", 1, -1), record("a", 2, -10), record("a", 3, -11),
                                          watermark(-1)]),
        Observation(firings=(fired(3, "a", -10, 0, [1, 2], -1), fired(3, "a", -20, -10, [3], -1))),
    ),
    # offset -3, ts -5: (-5 + 3) % 10 = -2 -> -5 - (-2 + 10) = -13.
    "tumbling negative offset": (
        Case(window=tumbling(10, offset=-3), events=[record("a", 1, -5)]),
        Observation(firings=(fired(1, "a", -13, -3, [1], LONG_MAX),)),
    ),
    # ts Long.MAX_VALUE: start MAX - 7, end = start + 10 wraps to MIN + 2, so maxTimestamp is MIN + 1
    # and watermark 0 already passes it.
    "tumbling window end wraps": (
        Case(window=tumbling(10), events=[record("a", 1, LONG_MAX), watermark(0)]),
        Observation(firings=(fired(1, "a", LONG_MAX - 7, LONG_MIN + 2, [1], 0),)),
    ),
    # cleanupTime 9 + MAX wraps below 9, so it saturates at MAX: the window is never late nor cleaned.
    "lateness saturates": (
        Case(window=tumbling(10), allowed_lateness=LONG_MAX,
             events=[record("a", 1, 1), watermark(100), record("a", 2, 1)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], 100), fired(2, "a", 0, 10, [1, 2], 100))),
    ),
    # ts 7 is in [5, 15) and [0, 10); ts 12 in [10, 20) and [5, 15).
    "sliding": (
        Case(window=sliding(10, 5), events=[record("a", 1, 7), watermark(9), record("a", 2, 12)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], 9), fired(3, "a", 5, 15, [1, 2], LONG_MAX),
                             fired(3, "a", 10, 20, [2], LONG_MAX))),
    ),
    # size 3 < slide 5: ts 4 has lastStart 0, not > 4 - 3, so no window (and it is not late: no output).
    "sliding gaps": (
        Case(window=sliding(3, 5), events=[record("a", 1, 4), record("a", 2, 1)]),
        Observation(firings=(fired(2, "a", 0, 3, [2], LONG_MAX),)),
    ),
    # [0, 10) and [5, 15) merge into [0, 15); [30, 40) stays apart until the end of input.
    "session merging": (
        Case(window=session(10), events=[record("a", 1, 0), record("a", 2, 5), record("a", 3, 30),
                                         watermark(14)]),
        Observation(firings=(fired(3, "a", 0, 15, [1, 2], 14), fired(4, "a", 30, 40, [3], LONG_MAX))),
    ),
    # TimeWindow.intersects: 0 <= 20 && 10 >= 10, so adjacent sessions merge.
    "session adjacent": (
        Case(window=session(10), events=[record("a", 1, 0), record("a", 2, 10), watermark(19)]),
        Observation(firings=(fired(2, "a", 0, 20, [1, 2], 19),)),
    ),
    # Merging [0, 15) with lateness Long.MAX_VALUE: 14 + MAX wraps below the watermark 0, and
    # WindowOperator's merge function rejects the merge.
    "session merge behind the watermark": (
        Case(window=session(10), allowed_lateness=LONG_MAX,
             events=[record("a", 1, 0), watermark(0), record("a", 2, 5)]),
        runtime_error("The end timestamp of an event-time window cannot become earlier than the current "
                      "watermark by merging. Current watermark: 0 window: TimeWindow{start=0, end=15}"),
    ),
    # countWindow(2) = PurgingTrigger(CountTrigger(2)): fires and purges every 2nd element per key;
    # the leftovers never fire (CountTrigger ignores time). The global window's timestamp is MAX.
    "count window": (
        Case(window=count_window(2), events=[record("a", 1, 0), record("a", 2, 0), record("a", 3, 0),
                                             record("b", 4, 0)]),
        Observation(firings=(fired_global(1, "a", [1, 2], LONG_MIN),)),
    ),
    # countWindow(3, 1) = CountTrigger(1) + CountEvictor(3): each element fires the last three.
    "count window sliding": (
        Case(window=count_window(3, 1), events=[record("a", 1, 0), watermark(5), record("a", 2, 0),
                                                record("a", 3, 0), record("a", 4, 0)]),
        Observation(firings=(fired_global(0, "a", [1], LONG_MIN), fired_global(2, "a", [1, 2], 5),
                             fired_global(3, "a", [1, 2, 3], 5), fired_global(4, "a", [2, 3, 4], 5))),
    ),
    # GlobalWindows' default NeverTrigger never fires, not even at the end of input.
    "global never fires": (
        Case(window=global_window(), events=[record("a", 1, 0), watermark(100)]),
        Observation(),
    ),
    # ContinuousEventTimeTrigger(3) on [0, 10): the element registers maxTs 9 and the first fire time
    # 1 - 1 % 3 + 3 = 3. Watermark 5 fires timer 3 (next 6); watermark 9 fires 6 (next min(9, 9)),
    # then the single timer 9 (deduplicated: fire time, maxTs and cleanup time) fires once more.
    "continuous event time": (
        Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(3),
             events=[record("a", 1, 1), watermark(5), watermark(9)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], 5), fired(2, "a", 0, 10, [1], 9),
                             fired(2, "a", 0, 10, [1], 9))),
    ),
    # PurgingTrigger(CountTrigger(2)) on tumbling windows: the 3rd element is purged at cleanup time
    # without a firing, because CountTrigger does not fire on time.
    "purging count trigger": (
        Case(window=tumbling(10), trigger=PurgingTrigger(CountTrigger(2)),
             events=[record("a", 1, 1), record("a", 2, 2), record("a", 3, 3)]),
        Observation(firings=(fired(1, "a", 0, 10, [1, 2], LONG_MIN),)),
    ),
    # A late firing (maxTs 9 <= watermark 9, within the lateness) sees only what came since the purge.
    "purging late firing": (
        Case(window=tumbling(10), trigger=PurgingTrigger(EventTimeTrigger()), allowed_lateness=5,
             events=[record("a", 1, 1), watermark(9), record("a", 2, 5)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], 9), fired(2, "a", 0, 10, [2], 9))),
    ),
    "late firing keeps contents": (
        Case(window=tumbling(10), trigger=EventTimeTrigger(), allowed_lateness=5,
             events=[record("a", 1, 1), watermark(9), record("a", 2, 5)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], 9), fired(2, "a", 0, 10, [1, 2], 9))),
    ),
    # CountEvictor(2) keeps the last two by arrival (not by timestamp).
    "count evictor before": (
        Case(window=tumbling(10), evictor=CountEvictor(2), events=[record("a", 1, 3), record("a", 2, 1),
                                                                   record("a", 3, 2)]),
        Observation(firings=(fired(3, "a", 0, 10, [2, 3], LONG_MAX),)),
    ),
    # Evicting after the function: the function sees everything; the next firing the survivors.
    "count evictor after": (
        Case(window=tumbling(10), trigger=CountTrigger(2), evictor=CountEvictor(1, after=True),
             events=[record("a", 1, 1), record("a", 2, 2), record("a", 3, 3), record("a", 4, 4)]),
        Observation(firings=(fired(1, "a", 0, 10, [1, 2], LONG_MIN), fired(3, "a", 0, 10, [2, 3, 4], LONG_MIN))),
    ),
    # TimeEvictor(3): cutoff = max ts 8 - 3 = 5, elements with ts <= 5 go.
    "time evictor before": (
        Case(window=tumbling(10), evictor=TimeEvictor(3), events=[record("a", 10, 1), record("a", 20, 5),
                                                                  record("a", 30, 8)]),
        Observation(firings=(fired(3, "a", 0, 10, [30], LONG_MAX),)),
    ),
    "time evictor after": (
        Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(5), evictor=TimeEvictor(3, after=True),
             events=[record("a", 10, 1), record("a", 20, 5), record("a", 30, 8), watermark(9)]),
        # Timer 5 (the first fire time, 0 + 5) fires all three and evicts ts <= 5; timer 9 fires [30].
        Observation(firings=(fired(3, "a", 0, 10, [10, 20, 30], 9), fired(3, "a", 0, 10, [30], 9))),
    ),
    # An evictor that empties the window still lets the function be called, with nothing.
    "evictor empties the window": (
        Case(window=tumbling(10), evictor=CountEvictor(0), events=[record("a", 1, 1)]),
        Observation(firings=(fired(1, "a", 0, 10, [], LONG_MAX),)),
    ),
    # Lateness 5: [0, 10) is cleaned up at 14. ts 3 before that joins and fires late; after it,
    # ts 4 is late (4 + 5 <= 14) and goes to the side output.
    "lateness and side output": (
        Case(window=tumbling(10), allowed_lateness=5, late_side_output=True,
             events=[record("a", 1, 1), watermark(9), record("a", 2, 3), watermark(14), record("a", 3, 4)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], 9), fired(2, "a", 0, 10, [1, 2], 9)),
                    late=(late(4, "a", 3, 4),)),
    ),
    "lateness without side output drops": (
        Case(window=tumbling(10), allowed_lateness=5, late_side_output=False,
             events=[record("a", 1, 1), watermark(9), record("a", 2, 3), watermark(14), record("a", 3, 4)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], 9), fired(2, "a", 0, 10, [1, 2], 9)),
                    dropped=(late(4, "a", 3, 4),)),
    ),
    # A record in a late sliding window but also in a live one is not late at all.
    "sliding partly late": (
        Case(window=sliding(10, 5), late_side_output=True, events=[watermark(9), record("a", 1, 7)]),
        Observation(firings=(fired(2, "a", 5, 15, [1], LONG_MAX),)),
    ),
    # Watermarks 5, 9 (again) and LONG_MIN do not increase: ignored, so the watermark stays 9 and
    # ts 3 is late (dropped) rather than joining [0, 10) again.
    "non-increasing watermarks ignored": (
        Case(window=tumbling(10), events=[watermark(LONG_MIN), record("a", 1, 1), watermark(9), watermark(5),
                                          watermark(9), record("a", 2, 3)]),
        Observation(firings=(fired(2, "a", 0, 10, [1], 9),), dropped=(late(5, "a", 2, 3),)),
    ),
    # Without an end of input nothing forces the open window: no firing at len(events).
    "no end of input": (
        Case(window=tumbling(10), end_of_input=False, events=[record("a", 1, 1), record("a", 2, 11),
                                                              watermark(9)]),
        Observation(firings=(fired(2, "a", 0, 10, [1], 9),)),
    ),
    # A watermark of Long.MAX_VALUE in the stream already fired everything: the end adds nothing.
    "max watermark before the end": (
        Case(window=tumbling(10), events=[record("a", 1, 1), watermark(LONG_MAX)]),
        Observation(firings=(fired(1, "a", 0, 10, [1], LONG_MAX),)),
    ),
    # Processing time moves no event-time window; it still takes its place in `at`.
    "processing time events are inert": (
        Case(window=tumbling(10), events=[processing_time(100), record("a", 1, 1), processing_time(200),
                                          watermark(9)]),
        Observation(firings=(fired(3, "a", 0, 10, [1], 9),)),
    ),
    "invalid tumbling size": (
        Case(window=tumbling(0), events=[record("a", 1, 1)]),
        Observation.invalid_spec("TumblingEventTimeWindows parameters must satisfy abs(offset) < size"),
    ),
    "invalid tumbling offset": (
        Case(window=tumbling(10, offset=-10), events=[record("a", 1, 1)]),
        Observation.invalid_spec("TumblingEventTimeWindows parameters must satisfy abs(offset) < size"),
    ),
    "invalid sliding slide": (
        Case(window=sliding(10, 0), events=[record("a", 1, 1)]),
        Observation.invalid_spec("SlidingEventTimeWindows parameters must satisfy abs(offset) < slide and size > 0"),
    ),
    "invalid sliding window count": (
        Case(window=sliding(10_000_001, 1), events=[record("a", 1, 1)]),
        Observation.invalid_spec("SlidingEventTimeWindows parameters must satisfy size / slide <= 10000000"),
    ),
    "invalid session gap": (
        Case(window=session(0), events=[record("a", 1, 1)]),
        Observation.invalid_spec("EventTimeSessionWindows parameters must satisfy 0 < size"),
    ),
    "session with a trigger that cannot merge": (
        Case(window=session(10), trigger=PurgingTrigger(NeverTrigger()), events=[record("a", 1, 1)]),
        Observation.invalid_spec(MERGING_TRIGGER),
    ),
    # Long.MIN_VALUE is Flink's "no timestamp": the assigner fails the job. The firing before stays,
    # and nothing happens after the failure (no end of input).
    "no timestamp fails tumbling": (
        Case(window=tumbling(10), events=[record("a", 1, 1), watermark(9), record("a", 2, 12),
                                          record("a", 3, LONG_MIN)]),
        runtime_error(NO_TIMESTAMP, fired(1, "a", 0, 10, [1], 9)),
    ),
    "no timestamp fails sliding": (
        Case(window=sliding(10, 5), events=[record("a", 3, LONG_MIN)]),
        runtime_error(NO_TIMESTAMP),
    ),
    # ContinuousEventTimeTrigger(0) computes ts % 0 on the first element.
    "continuous trigger interval 0": (
        Case(window=tumbling(10), trigger=ContinuousEventTimeTrigger(0), events=[record("a", 1, 1)]),
        runtime_error("/ by zero"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_flink_matches_the_hand_derived_observation(name: str, flink_observed: dict[str, Observation]) -> None:
    expected = CASES[name][1]
    assert equivalent(expected, flink_observed[name]), difference(expected, flink_observed[name])


def test_a_count_evictor_on_merged_sessions_keeps_elements_in_hash_order_not_time_order() -> None:
    """Why the case format rejects a count evictor on session windows (README, semantics): when sessions
    merge, Flink's heap state backend (`AbstractHeapMergingState.mergeNamespaces`) concatenates their
    lists in the iteration order of the `HashSet` that `TimeWindow.mergeWindows` fills, an order of
    `TimeWindow.hashCode()`, and `CountEvictor` keeps the tail of that list. Two sessions bridged by a
    third element keep one or the other first element depending only on where the stream lies in time."""
    def bridged(shift: int) -> Case:
        return Case(window=session(10), evictor=CountEvictor(2),
                    events=[record("a", 1, shift), record("a", 2, shift + 20), record("a", 3, shift + 10)])

    shifts = [0, 1000]
    observed = FlinkImplementation().run([bridged(s) for s in shifts])
    assert [(o.firings[0].window, o.firings[0].values) for o in observed] == [
        (TimeWindow(s, s + 30), kept) for s, kept in zip(shifts, [(1, 3), (2, 3)], strict=True)]

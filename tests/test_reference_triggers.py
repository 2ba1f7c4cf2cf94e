"""`reference.triggers`: each trigger's answers, timers and state, through a small harness.

The harness plays Flink's `TriggerTestHarness`: it keeps timers and trigger state per window, fires
due timers in timestamp order, and merges windows as `WindowOperator` does (`onMerge` on the result,
then `clear` on each merged window). Scenarios from Flink's `EventTimeTriggerTest`, `CountTriggerTest`,
`PurgingTriggerTest` and `ContinuousEventTimeTriggerTest`; the rules as `javap` shows them in 2.3.0.
"""

from __future__ import annotations

import pytest

from reference.errors import JobFailure
from reference.javalong import LONG_MAX, LONG_MIN
from reference.triggers import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    CountTrigger,
    EventTimeTrigger,
    NeverTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    TriggerResult,
)
from reference.windows import GLOBAL_WINDOW, TimeWindow
from window_contract.facts import CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE

CONTINUE, FIRE = TriggerResult.CONTINUE, TriggerResult.FIRE
FIRE_AND_PURGE, PURGE = TriggerResult.FIRE_AND_PURGE, TriggerResult.PURGE


class Harness:
    """`TriggerTestHarness` for one key: timers and partitioned state per window."""

    def __init__(self, trigger) -> None:
        self.trigger = trigger
        self.watermark = LONG_MIN
        self.processing_time = 0
        self.event_timers: set[tuple[int, object]] = set()
        self.processing_timers: set[tuple[int, object]] = set()
        self.state: dict[tuple[object, str], int] = {}

    def ctx(self, window, merged=()):
        return _Context(self, window, list(merged))

    def element(self, window, ts=0):
        return self.trigger.on_element(ts, window, self.ctx(window))

    def advance_watermark(self, time):
        """Fires every due event-time timer; returns `[(window, timestamp, result)]`."""
        self.watermark = time
        return self._fire(self.event_timers, time, self.trigger.on_event_time)

    def advance_processing_time(self, time):
        self.processing_time = time
        return self._fire(self.processing_timers, time, self.trigger.on_processing_time)

    def _fire(self, timers, time, callback):
        results = []
        while due := [(t, w) for t, w in timers if t <= time]:
            t, w = min(due, key=lambda timer: timer[0])
            timers.discard((t, w))
            results.append((w, t, callback(t, w, self.ctx(w))))
        return results

    def merge(self, target, merged):
        self.trigger.on_merge(target, self.ctx(target, merged))
        for w in merged:
            self.trigger.clear(w, self.ctx(w))

    def clear(self, window):
        self.trigger.clear(window, self.ctx(window))

    def event_timers_of(self, window):
        return sorted(t for t, w in self.event_timers if w == window)

    def processing_timers_of(self, window):
        return sorted(t for t, w in self.processing_timers if w == window)


class _Context:
    def __init__(self, h: Harness, window, merged) -> None:
        self.h, self.window, self.merged = h, window, merged

    def current_watermark(self):
        return self.h.watermark

    def current_processing_time(self):
        return self.h.processing_time

    def register_event_time_timer(self, time):
        self.h.event_timers.add((time, self.window))

    def delete_event_time_timer(self, time):
        self.h.event_timers.discard((time, self.window))

    def register_processing_time_timer(self, time):
        self.h.processing_timers.add((time, self.window))

    def delete_processing_time_timer(self, time):
        self.h.processing_timers.discard((time, self.window))

    def get_state(self, name):
        return self.h.state.get((self.window, name))

    def set_state(self, name, value):
        if value is None:
            self.h.state.pop((self.window, name), None)
        else:
            self.h.state[(self.window, name)] = value

    def merge_state(self, name, reduce):
        values = [v for w in self.merged if (v := self.h.state.pop((w, name), None)) is not None]
        if (own := self.h.state.get((self.window, name))) is not None:
            values.append(own)
        if values:
            merged = values[0]
            for v in values[1:]:
                merged = reduce(merged, v)
            self.h.state[(self.window, name)] = merged


W02, W24, W04 = TimeWindow(0, 2), TimeWindow(2, 4), TimeWindow(0, 4)


def test_trigger_result_flags():
    assert (CONTINUE.is_fire, CONTINUE.is_purge) == (False, False)
    assert (FIRE.is_fire, FIRE.is_purge) == (True, False)
    assert (PURGE.is_fire, PURGE.is_purge) == (False, True)
    assert (FIRE_AND_PURGE.is_fire, FIRE_AND_PURGE.is_purge) == (True, True)


# --- EventTimeTrigger (EventTimeTriggerTest) -----------------------------------------------------


def test_event_time_window_separation_and_firing():
    """EventTimeTriggerTest.testWindowSeparationAndFiring."""
    h = Harness(EventTimeTrigger())
    for w in (W02, W02, W02, W24, W24):
        assert h.element(w) == CONTINUE
    assert not h.state and not h.processing_timers
    assert h.event_timers_of(W02) == [1] and h.event_timers_of(W24) == [3]  # one timer each: deduplicated
    assert h.advance_watermark(2) == [(W02, 1, FIRE)]
    assert h.event_timers_of(W24) == [3] and len(h.event_timers) == 1
    assert h.advance_watermark(4) == [(W24, 3, FIRE)]
    assert not h.event_timers


def test_event_time_late_element_fires_at_once_without_timer():
    """EventTimeTriggerTest.testLateElementTriggersImmediately."""
    h = Harness(EventTimeTrigger())
    h.advance_watermark(2)
    assert h.element(W02) == FIRE
    assert not h.event_timers and not h.state


def test_event_time_fires_when_max_timestamp_equals_the_watermark():
    h = Harness(EventTimeTrigger())
    h.advance_watermark(1)
    assert h.element(W02) == FIRE  # maxTimestamp 1 <= watermark 1
    assert h.element(W24) == CONTINUE


def test_event_time_only_fires_on_its_max_timestamp():
    h = Harness(EventTimeTrigger())
    assert h.trigger.on_event_time(0, W02, h.ctx(W02)) == CONTINUE
    assert h.trigger.on_event_time(1, W02, h.ctx(W02)) == FIRE
    assert h.trigger.on_processing_time(1, W02, h.ctx(W02)) == CONTINUE


def test_event_time_clear_does_not_leak_across_windows():
    """EventTimeTriggerTest.testClear."""
    h = Harness(EventTimeTrigger())
    h.element(W02), h.element(W24)
    h.clear(W24)
    assert h.event_timers_of(W02) == [1] and h.event_timers_of(W24) == []
    h.clear(W02)
    assert not h.event_timers


def test_event_time_merging_windows():
    """EventTimeTriggerTest.testMergingWindows."""
    h = Harness(EventTimeTrigger())
    assert h.trigger.can_merge
    h.element(W02), h.element(W24)
    h.merge(W04, [W02, W24])
    assert h.event_timers == {(3, W04)}
    assert h.advance_watermark(4) == [(W04, 3, FIRE)]
    assert not h.event_timers


def test_event_time_merging_late_windows_sets_no_timer():
    """EventTimeTriggerTest.testMergingLateWindows: a timer would make a second firing."""
    h = Harness(EventTimeTrigger())
    h.element(W02), h.element(W24)
    h.advance_watermark(10)
    assert not h.event_timers
    h.merge(W04, [W02, W24])
    assert not h.event_timers


def test_event_time_on_global_window_waits_for_the_end_of_time():
    h = Harness(EventTimeTrigger())
    assert h.element(GLOBAL_WINDOW) == CONTINUE
    assert h.event_timers == {(LONG_MAX, GLOBAL_WINDOW)}


# --- ProcessingTimeTrigger ---------------------------------------------------------------------


def test_processing_time_trigger_registers_max_timestamp_and_fires_on_any_timer():
    h = Harness(ProcessingTimeTrigger())
    assert h.element(W02) == CONTINUE and h.element(W24) == CONTINUE
    assert h.processing_timers == {(1, W02), (3, W24)} and not h.event_timers
    assert h.advance_processing_time(2) == [(W02, 1, FIRE)]
    assert h.trigger.on_processing_time(0, W24, h.ctx(W24)) == FIRE  # fires whatever the time
    assert h.trigger.on_event_time(3, W24, h.ctx(W24)) == CONTINUE
    h.clear(W24)
    assert not h.processing_timers


def test_processing_time_trigger_merge_registers_only_a_future_end():
    h = Harness(ProcessingTimeTrigger())
    h.element(W02), h.element(W24)
    h.processing_time = 2
    h.merge(W04, [W02, W24])
    assert h.processing_timers == {(3, W04)}
    h.processing_time = 3
    h.merge(TimeWindow(0, 3), [])
    assert h.processing_timers == {(3, W04)}  # maxTimestamp 2 is not after processing time 3


# --- CountTrigger (CountTriggerTest) -------------------------------------------------------------


def test_count_trigger_fires_and_resets_per_window():
    """CountTriggerTest.testWindowSeparationAndFiring with CountTrigger.of(3)."""
    h = Harness(CountTrigger(3))
    assert [h.element(W02) for _ in range(2)] == [CONTINUE, CONTINUE]
    assert [h.element(W24) for _ in range(2)] == [CONTINUE, CONTINUE]
    assert h.state == {(W02, "count"): 2, (W24, "count"): 2}
    assert h.element(W02) == FIRE
    assert (W02, "count") not in h.state  # cleared on firing
    assert h.element(W24) == FIRE
    assert [h.element(W02) for _ in range(3)] == [CONTINUE, CONTINUE, FIRE]
    assert not h.event_timers and not h.processing_timers


def test_count_trigger_ignores_time():
    h = Harness(CountTrigger(1))
    assert h.trigger.on_event_time(1, W02, h.ctx(W02)) == CONTINUE
    assert h.trigger.on_processing_time(1, W02, h.ctx(W02)) == CONTINUE


def test_count_trigger_merging_adds_counts():
    """CountTriggerTest.testMergingWindows."""
    h = Harness(CountTrigger(3))
    h.element(W02), h.element(W24)
    h.merge(W04, [W02, W24])
    assert h.state == {(W04, "count"): 2}
    assert h.element(W04) == FIRE


def test_count_trigger_clear():
    h = Harness(CountTrigger(3))
    h.element(W02)
    h.clear(W02)
    assert not h.state


def test_count_trigger_of_zero_or_one_fires_on_every_element():
    for n in (0, 1, -5):
        h = Harness(CountTrigger(n))
        assert h.element(W02) == FIRE and h.element(W02) == FIRE


# --- PurgingTrigger and NeverTrigger -------------------------------------------------------------


def test_purging_turns_fire_into_fire_and_purge():
    """PurgingTriggerTest.testForwarding: everything else is forwarded as it is."""
    h = Harness(PurgingTrigger(CountTrigger(2)))
    assert h.element(W02) == CONTINUE
    assert h.element(W02) == FIRE_AND_PURGE
    h = Harness(PurgingTrigger(EventTimeTrigger()))
    assert h.element(W02) == CONTINUE
    assert h.advance_watermark(1) == [(W02, 1, FIRE_AND_PURGE)]
    assert h.trigger.on_event_time(0, W02, h.ctx(W02)) == CONTINUE
    h = Harness(PurgingTrigger(ProcessingTimeTrigger()))
    h.element(W02)
    assert h.advance_processing_time(5) == [(W02, 1, FIRE_AND_PURGE)]


def test_purging_delegates_merge_and_clear():
    h = Harness(PurgingTrigger(CountTrigger(3)))
    assert h.trigger.can_merge
    h.element(W02), h.element(W24)
    h.merge(W04, [W02, W24])
    assert h.state == {(W04, "count"): 2}
    h.clear(W04)
    assert not h.state


def test_never_trigger_never_fires_and_cannot_merge():
    h = Harness(NeverTrigger())
    assert not NeverTrigger.can_merge and not PurgingTrigger(NeverTrigger()).can_merge
    assert h.element(GLOBAL_WINDOW) == CONTINUE
    assert h.trigger.on_event_time(LONG_MAX, GLOBAL_WINDOW, h.ctx(GLOBAL_WINDOW)) == CONTINUE
    assert not h.event_timers and not h.processing_timers


# --- ContinuousEventTimeTrigger (2.x) ------------------------------------------------------------


def test_continuous_event_time_fires_every_interval_and_at_the_end():
    """ContinuousEventTimeTriggerTest: window [0, 10), interval 3; first element at ts 1."""
    w = TimeWindow(0, 10)
    h = Harness(ContinuousEventTimeTrigger(3))
    assert h.element(w, ts=1) == CONTINUE
    assert h.event_timers_of(w) == [3, 9]  # the first fire, aligned down to 0, and maxTimestamp
    assert h.element(w, ts=5) == CONTINUE  # a fire time is pending: no new periodic timer
    assert h.event_timers_of(w) == [3, 9]
    assert h.advance_watermark(3) == [(w, 3, FIRE)]
    assert h.event_timers_of(w) == [6, 9]
    # 6 fires and registers min(9, maxTimestamp 9) = 9: the end timer is deduplicated
    assert h.advance_watermark(9) == [(w, 6, FIRE), (w, 9, FIRE)]
    assert not h.event_timers


def test_continuous_event_time_late_element_fires_at_once():
    w = TimeWindow(0, 10)
    h = Harness(ContinuousEventTimeTrigger(3))
    h.advance_watermark(9)
    assert h.element(w, ts=2) == FIRE
    assert not h.event_timers and not h.state


def test_continuous_event_time_first_fire_of_a_negative_timestamp_rounds_up():
    """`timestamp - (timestamp % interval)` with Java's truncating `%`: -3 gives 0, not -5."""
    w = TimeWindow(-10, 10)
    h = Harness(ContinuousEventTimeTrigger(5))
    h.element(w, ts=-3)
    assert h.event_timers_of(w) == [5, 9]
    assert h.state == {(w, "fire-time"): 5}


def test_continuous_event_time_next_fire_is_capped_at_max_timestamp():
    w = TimeWindow(0, 4)
    h = Harness(ContinuousEventTimeTrigger(100))
    h.element(w, ts=0)
    assert h.event_timers_of(w) == [3]  # min(0 + 100, 3)
    assert h.state == {(w, "fire-time"): 3}


def test_continuous_event_time_interval_zero_divides_by_zero():
    h = Harness(ContinuousEventTimeTrigger(0))
    with pytest.raises(JobFailure, match="/ by zero"):
        h.element(TimeWindow(0, 10), ts=1)


def test_continuous_event_time_clear_keeps_the_end_timer():
    """2.x `clear` deletes only the pending periodic timer, not the one at maxTimestamp."""
    w = TimeWindow(0, 10)
    h = Harness(ContinuousEventTimeTrigger(3))
    h.element(w, ts=1)
    h.clear(w)
    assert h.event_timers_of(w) == [9] and not h.state


def test_continuous_event_time_merge_takes_the_earliest_fire_time():
    a, b, ab = TimeWindow(0, 10), TimeWindow(5, 20), TimeWindow(0, 20)
    h = Harness(ContinuousEventTimeTrigger(4))
    h.element(a, ts=1)  # fire time 4
    h.element(b, ts=9)  # fire time 12
    h.merge(ab, [a, b])
    assert h.state == {(ab, "fire-time"): 4}
    assert h.event_timers_of(ab) == [4]
    # The merged windows' fire times were folded into the result before `clear`, which therefore
    # finds none and deletes nothing: their periodic and end timers stay (the operator ignores
    # them later, as their windows are no longer in the merging window set).
    assert h.event_timers_of(a) == [4, 9] and h.event_timers_of(b) == [12, 19]


def test_continuous_event_time_on_the_global_window():
    """WindowOperatorTest.testContinuousWatermarkTrigger: fires at 3000, 6000, ..."""
    h = Harness(ContinuousEventTimeTrigger(3000))
    h.element(GLOBAL_WINDOW, ts=0)
    assert h.event_timers_of(GLOBAL_WINDOW) == [3000, LONG_MAX]
    assert h.advance_watermark(2000) == []
    assert h.advance_watermark(6000) == [(GLOBAL_WINDOW, 3000, FIRE), (GLOBAL_WINDOW, 6000, FIRE)]
    assert h.event_timers_of(GLOBAL_WINDOW) == [9000, LONG_MAX]


def test_continuous_event_time_ignores_an_unknown_timer():
    h = Harness(ContinuousEventTimeTrigger(3))
    assert h.trigger.on_event_time(5, TimeWindow(0, 10), h.ctx(TimeWindow(0, 10))) == CONTINUE


# --- ContinuousProcessingTimeTrigger (2.x) -------------------------------------------------------


def test_continuous_processing_time_aligns_to_the_clock():
    w = TimeWindow(0, 100)
    h = Harness(ContinuousProcessingTimeTrigger(10))
    h.processing_time = 13
    assert h.element(w, ts=LONG_MIN) == CONTINUE  # the record's timestamp plays no part
    assert h.processing_timers_of(w) == [20] and not h.event_timers
    assert h.advance_processing_time(35) == [(w, 20, FIRE), (w, 30, FIRE)]
    assert h.processing_timers_of(w) == [40]
    assert h.trigger.on_processing_time(99, w, h.ctx(w)) == FIRE  # maxTimestamp
    assert h.trigger.on_event_time(40, w, h.ctx(w)) == CONTINUE


def test_continuous_processing_time_timer_without_fire_time_is_a_null_pointer():
    """`fireTimestampState.get().equals(time)` on an empty state throws in Flink 2.x."""
    h = Harness(ContinuousProcessingTimeTrigger(10))
    with pytest.raises(JobFailure) as e:
        h.trigger.on_processing_time(20, TimeWindow(0, 100), h.ctx(TimeWindow(0, 100)))
    assert str(e.value) == CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE  # what the JVM says, as real Flink reports it


def test_continuous_processing_time_merge_and_clear():
    a, b, ab = TimeWindow(0, 100), TimeWindow(50, 200), TimeWindow(0, 200)
    h = Harness(ContinuousProcessingTimeTrigger(10))
    h.processing_time = 5
    h.element(a)
    h.processing_time = 27
    h.element(b)
    h.merge(ab, [a, b])
    assert h.state == {(ab, "fire-time"): 10}
    assert h.processing_timers_of(ab) == [10]
    h.clear(ab)
    assert not h.state and h.processing_timers_of(ab) == []


@pytest.mark.parametrize(("trigger", "expression"), [
    (EventTimeTrigger(), "EventTimeTrigger.create()"),
    (ProcessingTimeTrigger(), "ProcessingTimeTrigger.create()"),
    (CountTrigger(2), "CountTrigger.of(2)"),
    (ContinuousEventTimeTrigger(100), "ContinuousEventTimeTrigger.of(100)"),
    (ContinuousProcessingTimeTrigger(5), "ContinuousProcessingTimeTrigger.of(5)"),
    (PurgingTrigger(CountTrigger(2)), "PurgingTrigger.of(CountTrigger.of(2))"),
    (NeverTrigger(), "GlobalWindows.NeverTrigger()"),
])
def test_a_trigger_reads_as_the_expression_that_builds_it_in_flink(trigger, expression):
    assert repr(trigger) == expression

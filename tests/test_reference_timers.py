"""`reference.timers`: the timer service (`InternalTimerServiceImpl`, `HeapPriorityQueueSet`).

Seed document 004 quotes `advanceWatermark`: `currentWatermark = time`, then poll every timer with
`timestamp <= time` in timestamp order. Timers are deduplicated per key, window and timestamp.
"""

from reference.javalong import LONG_MAX, LONG_MIN
from reference.timers import InternalTimer, InternalTimerService, TimerQueue


def drain(queue, up_to):
    fired = []
    while (t := queue.poll_up_to(up_to)) is not None:
        fired.append((t.timestamp, t.key, t.window))
    return fired


def test_timers_poll_in_timestamp_order_up_to_the_time():
    q = TimerQueue()
    for ts, key in [(5, "a"), (1, "b"), (3, "a"), (9, "c")]:
        assert q.add(ts, key, "w")
    assert drain(q, 5) == [(1, "b", "w"), (3, "a", "w"), (5, "a", "w")]
    assert len(q) == 1
    assert drain(q, 8) == []
    assert drain(q, LONG_MAX) == [(9, "c", "w")]


def test_timers_are_deduplicated_per_key_window_and_timestamp():
    q = TimerQueue()
    assert q.add(5, "a", "w1")
    assert not q.add(5, "a", "w1")
    assert q.add(5, "a", "w2") and q.add(5, "b", "w1") and q.add(6, "a", "w1")
    assert len(q) == 4
    assert len(drain(q, 6)) == 4


def test_deleted_timer_does_not_fire_and_can_be_registered_again():
    q = TimerQueue()
    q.add(5, "a", "w")
    q.remove(5, "a", "w")
    q.remove(7, "x", "nothing")  # deleting what is not there is fine
    assert len(q) == 0 and drain(q, 10) == []
    q.add(5, "a", "w")
    q.remove(5, "a", "w")
    q.add(5, "a", "w")
    assert drain(q, 10) == [(5, "a", "w")]  # once, not twice


def test_equal_timestamps_all_fire():
    q = TimerQueue()
    for key in "cab":
        q.add(4, key, "w")
    assert sorted(drain(q, 4)) == [(4, "a", "w"), (4, "b", "w"), (4, "c", "w")]


def test_service_starts_at_long_min_watermark_and_processing_time_zero():
    s = InternalTimerService()
    assert s.current_watermark == LONG_MIN and s.current_processing_time == 0


def test_watermark_is_set_before_timers_fire():
    s = InternalTimerService()
    s.event_time_timers.add(3, "k", "w")
    seen = []
    s.advance_watermark(10, lambda t: seen.append((t.timestamp, s.current_watermark)))
    assert seen == [(3, 10)]


def test_timers_registered_while_firing_fire_in_the_same_advance():
    """A callback that registers a timer `<= watermark` sees it fire before the advance ends,
    in timestamp order with the rest."""
    s = InternalTimerService()
    s.event_time_timers.add(2, "k", "w")
    s.event_time_timers.add(8, "k", "w")
    fired = []

    def on_event_time(timer: InternalTimer):
        fired.append(timer.timestamp)
        if fired == [2]:
            s.event_time_timers.add(5, "k", "w")  # due: fires before 8
            s.event_time_timers.add(11, "k", "w")  # not due
            s.event_time_timers.add(2, "k", "w")  # the timer being fired is gone: it fires again

    s.advance_watermark(10, on_event_time)
    assert fired == [2, 2, 5, 8]
    assert drain(s.event_time_timers, LONG_MAX) == [(11, "k", "w")]


def test_processing_time_advances_the_same_way():
    s = InternalTimerService()
    s.processing_time_timers.add(100, "k", "w")
    s.processing_time_timers.add(300, "k", "w")
    s.event_time_timers.add(0, "k", "w")
    fired = []
    s.advance_processing_time(200, lambda t: fired.append((t.timestamp, s.current_processing_time)))
    assert fired == [(100, 200)]
    assert s.current_watermark == LONG_MIN  # event time does not move


def test_a_timer_deleted_by_an_earlier_timer_does_not_fire():
    s = InternalTimerService()
    s.event_time_timers.add(1, "k", "a")
    s.event_time_timers.add(2, "k", "b")
    fired = []

    def on_event_time(timer):
        fired.append(timer.window)
        s.event_time_timers.remove(2, "k", "b")

    s.advance_watermark(5, on_event_time)
    assert fired == ["a"]

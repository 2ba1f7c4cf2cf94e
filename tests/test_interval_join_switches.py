"""The interval join's dialect switches (`reference.dialects.joins`), each on the model alone: what it changes of
Flink's `IntervalJoinOperator` (`reference.interval_join`), and that Flink's dialect is the operator itself."""

from __future__ import annotations

from reference.dialects import Dialect
from reference.joins import simulate_join
from window_contract import record, watermark
from window_contract.join_case import IntervalJoin, JoinCase, JoinEvent, SqlIntervalJoin

LONG_MAX, LONG_MIN = 2**63 - 1, -(2**63)


def left(event):
    return JoinEvent("left", event)


def right(event):
    return JoinEvent("right", event)


def pairs(case: JoinCase, **switches) -> list[tuple[int, int]]:
    return [(p.left, p.right) for p in simulate_join(case, Dialect(**switches)).outputs]


def dropped(case: JoinCase, **switches) -> list[int]:
    return [r.value for r in simulate_join(case, Dialect(**switches)).dropped]


def test_own_input_time_makes_a_record_behind_its_inputs_largest_late_and_ignores_the_other_inputs_watermark():
    behind = JoinCase(IntervalJoin(0, 5), (left(record("a", 1, 10)), left(record("a", 2, 8)), right(record("a", 3, 9))))
    assert pairs(behind) == [(2, 3)] and dropped(behind) == []
    assert pairs(behind, interval_join_time="own_input_largest") == [] and dropped(
        behind, interval_join_time="own_input_largest") == [2]
    held = JoinCase(IntervalJoin(0, 20), (right(watermark(20)), left(record("a", 1, 10)), right(record("a", 2, 25)),
                                          left(watermark(30)), right(record("a", 3, 24))))
    assert pairs(held) == [(1, 2), (1, 3)] and dropped(held) == []  # the combined watermark is 20 at right a@24
    own = "own_input_largest"
    assert pairs(held, interval_join_time=own) == [(1, 2)] and dropped(held, interval_join_time=own) == [3]


def test_a_buffer_forgotten_behind_its_inputs_time_goes_at_that_inputs_next_event_and_without_timers():
    events = (left(record("a", 1, 10)), left(watermark(12)), right(watermark(12)))
    later = (right(record("a", 2, 14)),)
    forgotten = JoinCase(IntervalJoin(0, 10), (*events, left(watermark(13)), *later))
    kept = JoinCase(IntervalJoin(0, 10), (*events, *later))  # no left event after its time passed 10
    assert pairs(forgotten) == pairs(kept) == [(1, 2)]
    assert pairs(forgotten, interval_join_buffer_cleanup="behind_own_input") == []
    assert pairs(kept, interval_join_buffer_cleanup="behind_own_input") == [(1, 2)]
    lost = JoinCase(IntervalJoin(0, 2), (left(record("a", 1, 5)), left(watermark(7)), right(watermark(7)),
                                         right(record("a", 2, 7))))  # Flink's cleanup timer at 5 + 2 loses the pair
    assert pairs(lost) == [] and pairs(lost, interval_join_buffer_cleanup="behind_own_input") == [(1, 2)]


def test_without_late_side_outputs_a_late_record_is_dropped():
    case = JoinCase(IntervalJoin(0, 5, left_late_output=True),
                    (left(watermark(20)), right(watermark(20)), left(record("a", 1, 10))))
    flink, none = (simulate_join(case, Dialect(late_side_outputs=kept)) for kept in (True, False))
    assert [r.value for r in flink.late] == [1] and not flink.dropped
    assert [r.value for r in none.dropped] == [1] and not none.late


def test_long_min_is_a_time_where_no_timestamp_is_not_rejected():
    case = JoinCase(IntervalJoin(0, 0), (left(record("a", 1, LONG_MIN)), right(record("a", 2, LONG_MIN))))
    assert simulate_join(case).error.rules == ("record.no_timestamp",)
    assert pairs(case, interval_join_rejects_no_timestamp=False) == [(1, 2)]


def test_time_that_never_ends_puts_long_max_one_past_the_largest_record_so_far():
    case = JoinCase(IntervalJoin(0, 5), (left(record("a", 1, 3)), left(watermark(LONG_MAX)), right(watermark(LONG_MAX)),
                                         left(record("a", 2, 4)), right(record("a", 3, 5))))
    assert pairs(case) == [] and dropped(case) == [2, 3]
    assert pairs(case, event_time_ends="never") == [(1, 3), (2, 3)]  # both inputs at 3 + 1: 4 and 5 are on time


def test_sql_interval_join_run_as_the_interval_join_drops_late_rows_and_pads_outer_rows_as_they_arrive():
    late = JoinCase(SqlIntervalJoin(-5, 0, "left"), (
        left(watermark(20)), right(watermark(20)), left(record("a", 1, 10)), right(record("a", 2, 12)),
        right(record("a", 3, 25)), left(record("a", 4, 25))))
    flink = simulate_join(late)
    assert not flink.dropped and {(r.left, r.right) for r in flink.outputs} == {(1, None), (4, 3)}
    as_interval = simulate_join(late, Dialect(sql_interval_join_operator="interval_join"))
    assert [r.value for r in as_interval.dropped] == [1, 2]
    assert [(r.left, r.right, r.timestamp) for r in as_interval.outputs] == [(4, 3, None)]
    full = JoinCase(SqlIntervalJoin(0, 0, "full"), (left(record("a", 1, 10)), right(record("a", 2, 10))))
    assert [(r.left, r.right) for r in simulate_join(full).outputs] == [(1, 2)]
    assert [(r.left, r.right) for r in simulate_join(full, Dialect(sql_interval_join_operator="interval_join")).outputs
            ] == [(1, None), (1, 2)]

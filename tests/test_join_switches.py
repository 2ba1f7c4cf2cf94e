"""The join rules of `reference.dialects.joins` beyond idleness, each switch on the model alone: where an engine's
two-input operator starts its watermark, when a record is late, whether late records reach a side output, whether
inputs go idle, and how Flink SQL's interval join treats late rows and evicts (pads) what it caches."""

from __future__ import annotations

import dataclasses

from join_events import a, both, left, right

from reference.dialects import FLINK
from reference.joins import simulate_join
from window_contract.case import Watermark, WatermarkStatus
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.join_case import IntervalJoin, JoinCase, SqlIntervalJoin
from window_contract.join_observation import Pair, SideRecord, SqlRow


def switched(**switches):
    return dataclasses.replace(FLINK, **switches)


def test_a_watermark_that_starts_at_zero_makes_records_behind_it_late_and_is_what_early_outputs_carry():
    early = JoinCase(IntervalJoin(-1, 1), (left(a(1, 3)), right(a(2, 4))))
    assert [p.watermark for p in simulate_join(early).outputs] == [LONG_MIN]
    assert [p.watermark for p in simulate_join(early, switched(join_initial_watermark=0)).outputs] == [0]
    negative = JoinCase(IntervalJoin(0, 0), (left(a(1, -5)), right(a(2, -5)), *both(-3)))
    flink, zero = simulate_join(negative), simulate_join(negative, switched(join_initial_watermark=0))
    assert len(flink.outputs) == 1 and [w.watermark for w in flink.watermarks] == [-3, LONG_MAX]
    assert not zero.outputs and [r.at for r in zero.dropped] == [0, 1] and [w.watermark for w in zero.watermarks] == [
        LONG_MAX]


def test_a_record_at_the_watermark_is_late_only_where_lateness_includes_it():
    case = JoinCase(IntervalJoin(0, 0), (*both(5), left(a(1, 5)), right(a(2, 5)), left(a(3, 6))))
    assert simulate_join(case).outputs == (Pair(3, "a", 5, 5, 1, 2),) and not simulate_join(case).dropped
    at = simulate_join(case, switched(late_at_watermark=True))
    assert not at.outputs and [(r.at, r.input) for r in at.dropped] == [(2, "left"), (3, "right")]


def test_without_late_side_outputs_the_late_records_are_dropped():
    case = JoinCase(IntervalJoin(0, 0, left_late_output=True), (*both(10), left(a(1, 5)), right(a(2, 5))))
    flink, none = simulate_join(case), simulate_join(case, switched(late_side_outputs=False))
    assert flink.late == (SideRecord(2, "left", "a", 1, 5),) and flink.dropped == (SideRecord(3, "right", "a", 2, 5),)
    assert not none.late and none.dropped == (*flink.late, *flink.dropped)


def test_without_watermark_statuses_an_idle_input_holds_the_watermark_back_and_its_end_still_arrives():
    case = JoinCase(IntervalJoin(0, 0), (left(Watermark(10)), right(WatermarkStatus(0, True)), left(a(1, 5)),
                                         left(WatermarkStatus(0, True))))
    flink, never = simulate_join(case), simulate_join(case, switched(watermark_statuses=False))
    assert [w.watermark for w in flink.watermarks] == [10] and flink.dropped
    assert [(w.at, w.watermark) for w in never.watermarks] == [(4, LONG_MAX)] and not never.dropped


def test_sql_interval_join_drops_a_row_behind_the_watermark_only_where_late_rows_are_dropped():
    case = JoinCase(SqlIntervalJoin(-2, 3, "left"), (right(a(1, 10)), *both(12), left(a(2, 9)), left(a(3, 5))))
    flink = simulate_join(case)
    assert {(x.left, x.right) for x in flink.outputs} == {(2, 1), (3, None)} and not flink.dropped
    dropping = simulate_join(case, switched(sql_interval_join_drops_late_rows=True))
    assert not dropping.outputs and [r.value for r in dropping.dropped] == [2, 3]


def test_rows_evicted_by_the_watermark_are_padded_as_soon_as_it_passes_their_last_partner_without_a_timestamp():
    """A right row at 5 (upper 3: its last partner at 8) goes at watermark 10, where Flink keeps it until right 20's
    cleanup timer or a left row's scan (at 4); a left row at 11 whose last partner (11 - 2 = 9) lies behind the
    watermark is padded at once, one at 13 (its last partner 11) is cached until the watermark passes 11."""
    pads = JoinCase(SqlIntervalJoin(-2, 3, "full"), (right(a(1, 20)), right(a(2, 5)), *both(10), left(a(3, 13)),
                                                    *both(12), *both(13)))
    flink = simulate_join(pads)
    evicted = simulate_join(pads, switched(sql_rows_evicted="watermark"))
    assert (4, None, 2) in {(x.at, x.left, x.right) for x in flink.outputs}
    assert {(x.at, x.left, x.right, x.timestamp) for x in evicted.outputs} == {
        (3, None, 2, None), (9, 3, None, None), (9, None, 1, None)} and len(evicted.outputs) == 3
    cached = JoinCase(SqlIntervalJoin(2, 6, "left"), (*both(10), left(a(1, 11)), left(a(2, 13)), *both(11),
                                                      *both(12)))
    assert simulate_join(cached, switched(sql_rows_evicted="watermark")).outputs == (
        SqlRow(2, "a", 10, 1, None), SqlRow(7, "a", 12, 2, None))

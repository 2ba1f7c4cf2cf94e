"""The model's `watermark_clause` switch: a table's WATERMARK clause as Flink SQL's `WatermarkAssignerOperator`
(`reference/dialects/watermark_clause.py`), on its own; `tests/test_engine_flink_sql.py` checks it against Flink."""

from __future__ import annotations

from reference.dialects import Dialect
from reference.dialects.watermark_clause import WatermarkAssignerOperator, timer_interval
from reference.implementation import simulate
from window_contract import Case, record, tumbling
from window_contract.case import BoundedOutOfOrdernessWatermarks, MonotonousWatermarks, WatermarkStatus, processing_time
from window_contract.facts import LONG_MAX

CLAUSE = Dialect(watermark_clause=True)


def received(case: Case) -> list[tuple[int | None, int]]:
    return [(w.at, w.watermark) for w in simulate(case, dialect=CLAUSE).watermarks]


class Chain:
    """What the assigner emits, in order: a watermark, or "idle" / "active"."""

    def __init__(self) -> None:
        self.emitted: list[int | str] = []

    def assigner_watermark(self, watermark: int) -> None:
        self.emitted.append(watermark)

    def assigner_status(self, idle: bool) -> None:
        self.emitted.append("idle" if idle else "active")


def test_the_timer_period_is_the_interval_the_timeout_or_a_fifth_of_the_smaller():
    assert timer_interval(200, 0) == 200
    assert timer_interval(0, 100) == 100
    assert timer_interval(10, 100) == 10  # five times the smaller is below the larger
    assert timer_interval(50, 100) == 10
    assert timer_interval(3, 4) == 1


def test_a_rise_above_the_interval_is_emitted_at_its_record_and_a_smaller_one_on_the_timer():
    case = Case(window=tumbling(1000), watermark_generator=BoundedOutOfOrdernessWatermarks(10, interval=200),
                events=[record("a", 1, ts=50), record("a", 2, ts=5000), record("a", 3, ts=5100),
                        processing_time(201), processing_time(402)])
    assert received(case) == [(1, 4990), (3, 5090), (5, LONG_MAX)]


def test_an_interval_of_zero_emits_every_rise_at_its_record_and_nothing_at_or_below_zero():
    case = Case(window=tumbling(10), watermark_generator=MonotonousWatermarks(interval=0),
                events=[record("a", 1, ts=-5), record("a", 2, ts=0), record("a", 3, ts=3), record("a", 4, ts=2)])
    assert received(case) == [(2, 3), (4, LONG_MAX)]


def test_idle_at_the_first_check_a_timeout_after_the_check_that_saw_the_last_records():
    """Interval 50, timeout 100: a timer every 10 ms, due once the clock passes it, the next 10 ms after the clock
    it fired at. The check at 30 is the first to see the record: the countdown starts there, and the check at 130
    (not one at 129) marks the output idle; the next record marks it active before it is forwarded."""
    def checked(*clock: int) -> Chain:
        chain = Chain()
        assigner = WatermarkAssignerOperator(0, 50, 100, chain)
        assigner.open(0)
        assigner.advance_processing_time(11)
        assigner.process_element()
        assigner.after_element(7)
        for now in clock:
            assigner.advance_processing_time(now)
        assigner.process_element()
        return chain
    assert checked(30, 129).emitted == [7]
    assert checked(30, 130).emitted == [7, "idle", "active"]


def test_an_idle_status_from_upstream_silences_the_clause_when_idleness_is_off():
    case = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(0, interval=100),
                events=[record("a", 1, ts=5), WatermarkStatus(0, True), record("a", 2, ts=50), processing_time(101)])
    observed = simulate(case, dialect=CLAUSE)
    assert observed.watermarks == () and observed.firings == ()


def test_the_clause_takes_a_negative_bound_and_an_idleness_of_zero_and_rejects_a_negative_idleness():
    def generated(bound: int, idleness: int) -> Case:
        return Case(window=tumbling(1000), events=[record("a", 1, ts=999)],
                    watermark_generator=BoundedOutOfOrdernessWatermarks(bound, interval=0, idleness=idleness))
    assert received(generated(-5, 0)) == [(0, 1004), (1, LONG_MAX)]
    rejected = simulate(generated(0, -5), dialect=CLAUSE).error
    assert rejected.kind == "invalid_spec" and rejected.rules == ("watermark.idleness",)
    assert simulate(generated(-5, 0)).error.kind == "invalid_spec"  # DataStream's checks reject both

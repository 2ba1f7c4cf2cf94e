"""`reference.emit_strategy` and `reference.table_triggers`: Flink SQL's emit strategy of a legacy group window
(`table.exec.emit.early-fire.*`, `late-fire.*`), on the model alone.

The firings and the checks are the real runtime's answers too (`cases/emit/`, which `flink-sql-legacy` answers in
`tests/test_engine_flink_sql.py`; `delay.json` those of a delay above 0, on the window aggregate's processing-time
timers, which that runner drives on the case's clock).
"""

import pytest

from reference.emit_strategy import WindowEmitStrategy
from reference.implementation import simulate
from reference.table_triggers import AfterEndOfWindow, AfterEndOfWindowEarlyAndLate, AfterEndOfWindowNoLate
from window_contract import Case, processing_time, record, session, sliding, tumbling, watermark
from window_contract.case import AfterEndOfWindowTrigger
from window_contract.case_json import case_from_json
from window_contract.validation import CaseFormatError


def firings(case: Case) -> list[tuple[int, tuple[int, ...]]]:
    observation = simulate(case)
    assert observation.error is None, observation.error
    return [(f.at, f.values) for f in observation.firings]


def test_an_early_firing_of_delay_0_fires_on_every_element_and_the_unchanged_on_time_result_emits_nothing():
    case = Case(window=tumbling(10), trigger=AfterEndOfWindowTrigger(early_firing_delay=0),
                events=[record("a", 1, 1), record("a", 2, 5), watermark(9), record("a", 3, 3)])
    assert firings(case) == [(0, (1,)), (1, (1, 2))]  # nothing at the watermark; the late record dropped
    plain = Case(window=tumbling(10), events=case.events)
    assert firings(plain) == [(2, (1, 2))]


def test_late_firing_of_delay_0_is_event_time_triggers_firing_on_each_late_element():
    events = [record("a", 1, 1), watermark(9), record("a", 2, 3), record("a", 3, 4)]
    emit = Case(window=tumbling(10), trigger=AfterEndOfWindowTrigger(late_firing_delay=0), allowed_lateness=5,
                events=events)
    assert firings(emit) == [(1, (1,)), (2, (1, 2)), (3, (1, 2, 3))]
    assert firings(emit) == firings(Case(window=tumbling(10), allowed_lateness=5, events=events))
    assert isinstance(WindowEmitStrategy.of(emit).trigger(), AfterEndOfWindow)  # withLateFirings(every()) is itself


def test_without_late_firing_the_allowed_lateness_is_ignored():
    case = Case(window=tumbling(10), trigger=AfterEndOfWindowTrigger(), allowed_lateness=100,
                events=[record("a", 1, 1), watermark(9), record("a", 2, 3)])
    assert firings(case) == [(1, (1,))]
    assert [d.value for d in simulate(case).dropped] == [2]


def test_an_early_firing_every_delay_of_processing_time_starts_at_the_first_element_and_emits_only_changes():
    case = Case(window=tumbling(100), trigger=AfterEndOfWindowTrigger(early_firing_delay=10),
                events=[processing_time(3), record("a", 1, 1), processing_time(13), processing_time(23),
                        record("a", 2, 2), processing_time(33), watermark(99)])
    # the timer at 13 (3 + 10, not aligned) fires once the clock passes it, at 23, and sets 23, which fires at 33
    # with the second record; 33's firing (pt 43) never comes, and the on-time firing finds the result unchanged
    assert firings(case) == [(3, (1,)), (5, (1, 2))]


def test_a_late_firing_every_delay_fires_after_the_on_time_firing_and_a_window_made_late_fires_on_each_element():
    trigger = AfterEndOfWindowTrigger(late_firing_delay=10)
    case = Case(window=tumbling(10), trigger=trigger, allowed_lateness=50,
                events=[record("a", 1, 1), watermark(9), record("a", 2, 2), processing_time(5), processing_time(11),
                        watermark(20), record("b", 3, 5), record("b", 4, 6)])
    assert isinstance(WindowEmitStrategy.of(case).trigger(), AfterEndOfWindowEarlyAndLate)
    # a's late record waits for its timer (pt 0 + 10, passed at 11); b's window, first made after its end, fires on
    # each record
    assert firings(case) == [(1, (1,)), (4, (1, 2)), (6, (3,)), (7, (3, 4))]


def test_an_early_and_a_late_firing_share_their_pending_timer_only_when_their_delays_are_equal():
    """`ProcessingTimeTriggers.every(d)` names its state "processingTime-every-" + d: after the on-time firing the
    late record finds the early timer (20) pending when the delays are equal, and that timer fires the late phase;
    with a late delay of 5 the record sets a timer of its own, at 17 + 5."""
    def case(late: int) -> Case:
        return Case(window=tumbling(10), trigger=AfterEndOfWindowTrigger(early_firing_delay=10, late_firing_delay=late),
                    allowed_lateness=50, events=[record("a", 1, 1), processing_time(11), watermark(9),
                                                 processing_time(17), record("a", 2, 2), processing_time(21),
                                                 processing_time(23)])
    assert firings(case(10)) == [(1, (1,)), (5, (1, 2))]
    assert firings(case(5)) == [(1, (1,)), (6, (1, 2))]


def test_early_firing_alone_is_after_end_of_window_no_late():
    case = Case(window=sliding(10, 5), trigger=AfterEndOfWindowTrigger(early_firing_delay=0), events=[])
    assert isinstance(WindowEmitStrategy.of(case).trigger(), AfterEndOfWindowNoLate)


@pytest.mark.parametrize("window, trigger, lateness, message", [
    (session(10), AfterEndOfWindowTrigger(0, None), 0, "Session window doesn't support EMIT strategy currently."),
    (session(10), AfterEndOfWindowTrigger(None, -1), 0, "Session window doesn't support EMIT strategy currently."),
    (tumbling(10), AfterEndOfWindowTrigger(-1, 0), 0, "The 'AFTER WATERMARK' emit strategy requires set "
     "'allow-lateness' or 'minIdleStateRetentionTime' in table config."),
    (tumbling(10), AfterEndOfWindowTrigger(-1, 0), 5, "Early-fire delay should not be null or negative value "
                                                      "whenenable early-fire emit strategy."),
    (tumbling(10), AfterEndOfWindowTrigger(0, -1), 5, "Late-fire delay should not be null or negative value "
                                                      "whenenable late-fire emit strategy."),
    (tumbling(10), AfterEndOfWindowTrigger(0, 6), 5, "Allow-lateness [5ms] should not be smaller than Late-fire delay "
                                                     "[6ms] when enable late-fire emit strategy."),
])
def test_window_emit_strategys_checks_in_its_order(window, trigger, lateness, message):
    case = Case(window=window, trigger=trigger, allowed_lateness=lateness, events=[record("a", 1, 1)])
    assert simulate(case).error.message == message


def test_sessions_take_the_strategy_without_firings_and_ignore_their_lateness():
    case = Case(window=session(10), trigger=AfterEndOfWindowTrigger(), allowed_lateness=-5,
                events=[record("a", 1, 1), watermark(20), record("a", 2, 2)])
    assert firings(case) == [(1, (1,))]


@pytest.mark.parametrize("doc", [
    {"window": {"assigner": "global"}, "trigger": {"type": "after_end_of_window"}},
    {"window": {"assigner": "tumbling", "size": 10}, "trigger": {"type": "after_end_of_window"},
     "evictor": {"type": "count", "max_count": 1}},
    {"window": {"assigner": "tumbling", "size": 10},
     "trigger": {"type": "purging", "inner": {"type": "after_end_of_window"}}},
])
def test_the_format_takes_the_strategy_alone_on_a_legacy_group_windows_kind(doc):
    with pytest.raises(CaseFormatError, match="after_end_of_window"):
        case_from_json({"format": "window-case/1", "events": [], **doc})

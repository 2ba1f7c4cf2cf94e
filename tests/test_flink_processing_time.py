"""Real Flink on the case's processing-time clock: hand-derived observations for processing-time windows and triggers.

The window operator's processing-time service is the case's clock (`CaseProcessingTime.java`). Every
expected observation is worked out by hand from Flink 2.3's classes (the comment says how), with the rule
real tasks follow: `SystemProcessingTimeService.registerTimer(t)` waits
`ProcessingTimeServiceUtil.getProcessingTimeDelay(t, now)`, `t - now + 1` ms, or 0 for a time already
past, so a timer for t fires once the clock reads more than t (Flink's `TestProcessingTimeService` fires it
at t). `InternalTimerServiceImpl.onProcessingTime` fires its timers in timestamp order and re-registers its
next head, so every timer the clock has passed fires in one advance, those registered meanwhile included.
The processing-time assigners window by the clock (`TumblingProcessingTimeWindows`,
`SlidingProcessingTimeWindows`, `ProcessingTimeSessionWindows`), their default trigger is
`ProcessingTimeTrigger` (a timer at `maxTimestamp`), and a finishing task quiesces its processing-time
service, so pending processing-time timers never fire at the end of input. The cases run through `flink`
in one batch: the whole table costs one Flink job.
"""

from __future__ import annotations

import pytest

from window_contract import (
    LONG_MAX,
    LONG_MIN,
    Case,
    ContinuousProcessingTimeTrigger,
    Firing,
    GlobalWindow,
    Observation,
    ProcessingTimeTrigger,
    TimeWindow,
    difference,
    equivalent,
    global_window,
    processing_time,
    record,
    session,
    sliding,
    tumbling,
)

pytestmark = pytest.mark.flink


def fired(at: int, start: int, end: int, values: list[int]) -> Firing:
    """A firing of key "a"'s time window [start, end), before any watermark: timestamp maxTimestamp() = end - 1."""
    return Firing(at, "a", TimeWindow(start, end), end - 1, tuple(values), LONG_MIN)


def fired_global(at: int, values: list[int]) -> Firing:
    """A firing of key "a"'s global window, before any watermark (its maxTimestamp is Long.MAX_VALUE)."""
    return Firing(at, "a", GlobalWindow(), LONG_MAX, tuple(values), LONG_MIN)


CASES: dict[str, tuple[Case, Observation]] = {
    # TumblingProcessingTimeWindows.of(1000): both records arrive while the clock is in [0, 1000). The timer
    # for maxTimestamp 999 is not due while the clock reads 999 (999 - now + 1 ms ahead), so the second
    # record still joins the window; the clock reading 1000 fires it. The third record opens [1000, 2000),
    # whose timer is pending at the end of input and never fires.
    "a record at the clock's time t comes before the timer for t": (
        Case(window=tumbling(1000, time="processing"),
             events=[processing_time(500), record("a", 1, ts=0), processing_time(999), record("a", 2, ts=0),
                     processing_time(1000), record("a", 3, ts=0)]),
        Observation((fired(4, 0, 1000, [1, 2]),)),
    ),
    # SlidingProcessingTimeWindows.of(3000, 1000): at clock 1500 the record belongs to [-1000, 2000),
    # [0, 3000) and [1000, 4000). Clock 2500 has passed 1999 only; the jump to 5000 passes 2999 and 3999,
    # fired in timestamp order within the one event.
    "sliding windows fire as the clock passes each maxTimestamp": (
        Case(window=sliding(3000, 1000, time="processing"),
             events=[processing_time(1500), record("a", 1, ts=-7), processing_time(2500), processing_time(5000)]),
        Observation((fired(2, -1000, 2000, [1]), fired(3, 0, 3000, [1]), fired(3, 1000, 4000, [1]))),
    ),
    # ProcessingTimeSessionWindows.withGap(100): [10, 110) and [50, 150) merge into [10, 150), whose timer
    # is 149 (the merged window's, the old ones' deleted). The clock reading 149 has not passed it; 150 has.
    "processing-time sessions merge and fire once the clock passes the merged end": (
        Case(window=session(100, time="processing"),
             events=[processing_time(10), record("a", 1, ts=0), processing_time(50), record("a", 2, ts=0),
                     processing_time(149), processing_time(150)]),
        Observation((fired(5, 10, 150, [1, 2]),)),
    ),
    # ProcessingTimeTrigger on event-time windows [0, 10) and [50, 60): each record registers a timer at
    # its window's maxTimestamp, already behind the clock (100); delay 0, so each fires before the next input.
    "a timer registered already past fires during the record that registered it": (
        Case(window=tumbling(10), trigger=ProcessingTimeTrigger(),
             events=[processing_time(100), record("a", 1, ts=5), record("a", 2, ts=50)]),
        Observation((fired(1, 0, 10, [1]), fired(2, 50, 60, [2]))),
    ),
    # ContinuousProcessingTimeTrigger.of(10) on the global window: the first element at clock 5 registers
    # 5 - 5 % 10 + 10 = 10. Clock 30 passes 10, whose onProcessingTime registers 20, passed too (fired in
    # the same advance), which registers 30: not passed while the clock reads 30. Clock 31 fires it. The
    # contents stay (FIRE, not purge); the end of input fires no processing-time timer.
    "continuous processing-time firings re-registered during one advance": (
        Case(window=global_window(), trigger=ContinuousProcessingTimeTrigger(10),
             events=[processing_time(5), record("a", 1, ts=0), processing_time(30), processing_time(31)]),
        Observation((fired_global(2, [1]), fired_global(2, [1]), fired_global(3, [1]))),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_flink_matches_the_hand_derived_observation(name: str, flink_observed: dict[str, Observation]) -> None:
    expected = CASES[name][1]
    assert equivalent(expected, flink_observed[name]), difference(expected, flink_observed[name])

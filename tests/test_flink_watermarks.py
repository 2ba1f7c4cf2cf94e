"""Real Flink makes and merges the watermarks: hand-derived observations for generated watermarks.

Every expected observation is worked out by hand from Flink 2.3's classes (the comment says how):
`BoundedOutOfOrdernessWatermarks` emits `max - bound - 1`, the legacy `BoundedOutOfOrdernessTimestampExtractor`
`max - bound` and `AscendingTimestampExtractor` `ts - 1`; `TimestampsAndWatermarksOperator` emits on a
processing-time timer at `now + interval` that fires once the clock has passed it (a task waits
`t - now + 1` ms; one emit however far the clock jumps), forwards only increasing
watermarks, and at a channel's end forwards `Long.MAX_VALUE` before its last emit; `StatusWatermarkValve`
emits the minimum over active, aligned channels when it increases. The cases run through `flink` in one
batch, so the whole table costs one Flink job.
"""

from __future__ import annotations

import pytest

from window_contract import (
    LONG_MAX,
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    EndOfChannel,
    Error,
    Firing,
    InputWatermark,
    LateRecord,
    MonotonousWatermarks,
    Observation,
    TimeWindow,
    WatermarkStatus,
    difference,
    equivalent,
    processing_time,
    record,
    tumbling,
    watermark,
)
from window_contract.facts import (
    NEGATIVE_BOUND_MESSAGE,
    NEGATIVE_INTERVAL_MESSAGE,
    NON_POSITIVE_IDLENESS_MESSAGE,
    negative_legacy_bound_message,
)

pytestmark = pytest.mark.flink


def fired(at: int, key: str, start: int, end: int, values: list[int], wm: int) -> Firing:
    """A firing of the time window [start, end): its output timestamp is maxTimestamp() = end - 1."""
    return Firing(at, key, TimeWindow(start, end), end - 1, tuple(values), wm)


def received(*pairs: tuple[int, int]) -> tuple[InputWatermark, ...]:
    """The window operator's input watermarks, as (at, watermark)."""
    return tuple(InputWatermark(at, wm) for at, wm in pairs)


def rejected(message: str) -> Observation:
    """Flink's rejection of a case that observes watermarks: none received (an empty sequence, not absent)."""
    return Observation(error=Error("invalid_spec", message), watermarks=())


S = 1_000  # the sensor example's timestamps are seconds, as milliseconds
T0 = 1_610_506_275 * S  # a window start: 1610506275 is a multiple of 5

CASES: dict[str, tuple[Case, Observation]] = {
    # The seed document's sensor example (003): 5 s windows, BoundedOutOfOrdernessTimestampExtractor(2 s),
    # allowedLateness(2 s), a late-data side output, the default 200 ms interval. The extractor emits
    # max - 2000 on each timer, once the clock has passed it (201, 402, 603, 804: each 200 after the last
    # emit, plus one). 280000 passes [275000, 280000)'s maxTimestamp 279999;
    # 279500 then comes within lateness (cleanup at 281999 > 281000) and fires it again at once;
    # 284000 passes the cleanup time, so 278000 goes to the side output (278000 + 2000 <= 284000).
    "sensor example": (
        Case(window=tumbling(5 * S), allowed_lateness=2 * S, late_side_output=True,
             watermark_generator=BoundedOutOfOrdernessTimestampExtractor(2 * S),
             events=[record("sensor_1", 5, T0 + 4 * S), processing_time(201),
                     record("sensor_1", 30, T0 + 7 * S), processing_time(402),
                     record("sensor_1", 40, T0 + 8 * S), processing_time(603),
                     record("sensor_1", 7, T0 + 4_500), record("sensor_1", 50, T0 + 11 * S), processing_time(804),
                     record("sensor_1", 9, T0 + 3 * S)]),
        Observation(firings=(fired(3, "sensor_1", T0, T0 + 5 * S, [5], T0 + 5 * S),
                             fired(6, "sensor_1", T0, T0 + 5 * S, [5, 7], T0 + 6 * S),
                             fired(10, "sensor_1", T0 + 5 * S, T0 + 10 * S, [30, 40], LONG_MAX),
                             fired(10, "sensor_1", T0 + 10 * S, T0 + 15 * S, [50], LONG_MAX)),
                    late=(LateRecord(9, "sensor_1", 9, T0 + 3 * S),),
                    watermarks=received((1, T0 + 2 * S), (3, T0 + 5 * S), (5, T0 + 6 * S), (8, T0 + 9 * S),
                                        (10, LONG_MAX))),
    ),
    # Two channels, bound 1000 (max - 1001), interval 100. At 101 (past the timer at 100) channel 0 says 3999
    # and channel 1 says 499: the valve lets the minimum through. At 202 (past 201) channel 1 reaches 2099 and
    # fires [1000, 2000). At the end channel 0 ends first (its MAX waits for channel 1), then channel 1: MAX.
    "two channels with skew": (
        Case(window=tumbling(1000), channels=2, watermark_generator=BoundedOutOfOrdernessWatermarks(1000, interval=100),
             events=[record("a", 1, 5000, channel=0), record("a", 2, 1500, channel=1), processing_time(101),
                     record("a", 3, 3100, channel=1), processing_time(202)]),
        Observation(firings=(fired(4, "a", 1000, 2000, [2], 2099), fired(5, "a", 3000, 4000, [3], LONG_MAX),
                             fired(5, "a", 5000, 6000, [1], LONG_MAX)),
                    watermarks=received((2, 499), (4, 2099), (5, LONG_MAX))),
    ),
    # Monotonous (ts - 1) with withIdleness(250), interval 100. Channel 1 has no record after 700: its first
    # quiet check (at 202; each advance passes the timer due 100 after the last emit) starts the countdown,
    # at 303 101 ms have passed, at 504 302, more than 250: it goes idle and the
    # valve's minimum moves on to channel 0 (1499), firing [0, 1000). Ending, channel 1 becomes active with
    # Long.MAX_VALUE, after channel 0's MAX already went through.
    "an idle channel": (
        Case(window=tumbling(1000), channels=2, watermark_generator=MonotonousWatermarks(interval=100, idleness=250),
             events=[record("a", 1, 500, channel=0), record("a", 2, 700, channel=1), processing_time(101),
                     record("a", 3, 1200, channel=0), processing_time(202), record("a", 4, 1500, channel=0),
                     processing_time(303), processing_time(504)]),
        Observation(firings=(fired(7, "a", 0, 1000, [1, 2], 1499), fired(8, "a", 1000, 2000, [3, 4], LONG_MAX)),
                    watermarks=received((2, 499), (4, 699), (7, 1499), (8, LONG_MAX))),
    ),
    # Explicit watermarks on two channels: channel 1 ends early, its Long.MAX_VALUE releases channel 0's 500.
    "a channel that ends early": (
        Case(window=tumbling(1000), channels=2,
             events=[record("a", 1, 100, channel=0), watermark(500, channel=0), record("a", 2, 1100, channel=1),
                     watermark(300, channel=1), EndOfChannel(1), watermark(2500, channel=0)]),
        Observation(firings=(fired(5, "a", 0, 1000, [1], 2500), fired(5, "a", 1000, 2000, [2], 2500)),
                    watermarks=received((3, 300), (4, 500), (5, 2500), (6, LONG_MAX))),
    ),
    # Bound 100 (max - 101), interval 200. The clock jumps from 0 to 1050: the timer at 200 fires once, and
    # the next is at 1050 + 200 = 1250 (not 1200 on a fixed grid), and fires once the clock has passed it:
    # 1250 emits nothing and 1251 does.
    "a clock jump over several intervals": (
        Case(window=tumbling(1000), watermark_generator=BoundedOutOfOrdernessWatermarks(100),
             events=[record("a", 1, 500), record("a", 2, 1500), processing_time(1050), record("a", 3, 2300),
                     processing_time(1250), processing_time(1251)]),
        Observation(firings=(fired(2, "a", 0, 1000, [1], 1399), fired(5, "a", 1000, 2000, [2], 2199),
                             fired(6, "a", 2000, 3000, [3], LONG_MAX)),
                    watermarks=received((2, 1399), (5, 2199), (6, LONG_MAX))),
    ),
    # The legacy AscendingTimestampExtractor, punctuated, no periodic emission: after each record, ts - 1 of
    # the highest timestamp so far. The record at 1000 reaches the window before its watermark 999 fires
    # [0, 1000); 500 breaks monotony (logged, the extractor keeps 1000) and is late: dropped.
    "punctuated emission": (
        Case(window=tumbling(1000), watermark_generator=AscendingTimestampExtractor(interval=0, punctuated=True),
             events=[record("a", 1, 100), record("a", 2, 999), record("a", 3, 1000), record("a", 4, 500),
                     processing_time(5000)]),
        Observation(firings=(fired(2, "a", 0, 1000, [1, 2], 999), fired(5, "a", 1000, 2000, [3], LONG_MAX)),
                    dropped=(LateRecord(3, "a", 4, 500),),
                    watermarks=received((0, 99), (1, 998), (2, 999), (5, LONG_MAX))),
    ),
    # With a generator, TimestampsAndWatermarksOperator ignores the statuses from upstream: marking channel 0
    # idle changes nothing, its generator still holds the valve at 99 (idle, the valve would pass 1999 at 3);
    # 101 passes the timer at 100.
    # At the end channel 0's MAX releases channel 1's 1999, then channel 1's MAX follows.
    "a status beside a generator": (
        Case(window=tumbling(1000), channels=2, watermark_generator=MonotonousWatermarks(interval=100),
             events=[record("a", 1, 100, channel=0), record("a", 2, 2000, channel=1),
                     WatermarkStatus(0, idle=True), processing_time(101)]),
        Observation(firings=(fired(4, "a", 0, 1000, [1], 1999), fired(4, "a", 2000, 3000, [2], LONG_MAX)),
                    watermarks=received((3, 99), (4, 1999), (4, LONG_MAX))),
    ),
    "a negative bound": (
        Case(window=tumbling(1000), watermark_generator=BoundedOutOfOrdernessWatermarks(-1)),
        rejected(NEGATIVE_BOUND_MESSAGE),
    ),
    "a negative legacy bound": (
        Case(window=tumbling(1000), watermark_generator=BoundedOutOfOrdernessTimestampExtractor(-1500)),
        rejected(negative_legacy_bound_message(-1500)),
    ),
    "a zero idleness": (
        Case(window=tumbling(1000), watermark_generator=MonotonousWatermarks(idleness=0)),
        rejected(NON_POSITIVE_IDLENESS_MESSAGE),
    ),
    "a negative interval": (
        Case(window=tumbling(1000), watermark_generator=MonotonousWatermarks(interval=-1)),
        rejected(NEGATIVE_INTERVAL_MESSAGE),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_flink_matches_the_hand_derived_observation(name: str, flink_observed: dict[str, Observation]) -> None:
    expected = CASES[name][1]
    assert equivalent(expected, flink_observed[name]), difference(expected, flink_observed[name])

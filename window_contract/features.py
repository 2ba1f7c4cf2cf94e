"""Feature names, and which of them a case needs.

An implementation declares the features it supports; the suite sends it only the cases whose
needed features it declares, and reports the rest as unsupported. Every case needs at least its
assigner's feature. The names of the kinds' own features stand next to their classes in
`window_contract/case.py` (the one vocabulary table); the features of the case's other fields are here.
"""

from __future__ import annotations

import functools

from window_contract.case import (
    ASSIGNERS,
    EVENTS,
    EVICT_AFTER,
    EVICTORS,
    FIRE_DELAY,
    GENERATORS,
    IDLENESS,
    OFFSET,
    PERIODIC,
    PROCESSING_TIME,
    PUNCTUATED,
    TRIGGERS,
    Case,
    Feature,
    ProcessingTime,
    Record,
    Watermark,
    WatermarkStatus,
)
from window_contract.facts import EXTREME, LONG_MAX
from window_contract.join_case import IntervalJoin, JoinCase, SqlIntervalJoin, SqlWindowJoin
from window_contract.long_sums import overflows

ALLOWED_LATENESS = Feature("allowed_lateness", "allowed lateness other than 0")
LATE_SIDE_OUTPUT = Feature("late_side_output", "the late-data side output")
NEGATIVE_TIMESTAMPS = Feature("negative_timestamps", "negative timestamps or watermarks")
UNBOUNDED_INPUT = Feature("unbounded_input", "a case without end of input, or whose every channel is idle when it ends")
CHANNELS = Feature("channels", "several input channels whose watermarks the operator merges (StatusWatermarkValve)")
EXTREME_VALUES = Feature(
    "extreme_values", "Java long overflow: times or window parameters of magnitude >= 2^62, or a sum Flink computes "
    "that may leave the long range and wrap (ts + allowed lateness, a cleanup time, a window's bounds, a next fire "
    "time: window_contract/long_sums.py)")

FEATURES: dict[str, str] = dict(
    [k.feature for k in ASSIGNERS] + [PROCESSING_TIME, OFFSET] + [k.feature for k in TRIGGERS] + [FIRE_DELAY]
    + [k.feature for k in EVICTORS] + [EVICT_AFTER, ALLOWED_LATENESS, LATE_SIDE_OUTPUT, NEGATIVE_TIMESTAMPS,
                                       UNBOUNDED_INPUT]
    + [k.feature for k in GENERATORS] + [PERIODIC, PUNCTUATED, IDLENESS, CHANNELS]
    + [k.feature for k in EVENTS if k.feature] + [EXTREME_VALUES])

ALL_FEATURES = frozenset(FEATURES)

#: The DataStream joins of two inputs (`join-case/1`, `window_contract.join_case`): an implementation that declares
#: one is sent join cases of that kind through its `run_joins(cases) -> [JoinObservation]` (docs/protocol.md). They
#: are not window features: a window case never needs one, and the window strategies ignore them.
JOIN_WINDOW = Feature("join.window", "a window join of two inputs (JoinedStreams.window, JoinFunction)")
JOIN_COGROUP = Feature("join.cogroup", "a window coGroup of two inputs (CoGroupedStreams.window, CoGroupFunction)")
JOIN_INTERVAL = Feature("join.interval", "an interval join of two keyed inputs (KeyedStream.intervalJoin)")
JOIN_FEATURES: dict[str, str] = dict([JOIN_WINDOW, JOIN_COGROUP, JOIN_INTERVAL])
JOIN_NAMES = frozenset(JOIN_FEATURES)
#: Flink SQL's joins of two tables (`join-case/1` too, through `run_joins`): apart from the DataStream joins, which an
#: implementation of those need not run.
JOIN_SQL_WINDOW = Feature("join.sql_window", "Flink SQL's window join of two window table functions "
                                             "(WindowJoinOperator: inner, left, right, full outer, semi, anti)")
JOIN_SQL_INTERVAL = Feature("join.sql_interval", "Flink SQL's interval join of two tables (RowTimeIntervalJoin: inner, "
                                                 "left, right, full outer)")
SQL_JOIN_FEATURES: dict[str, str] = dict([JOIN_SQL_WINDOW, JOIN_SQL_INTERVAL])
#: Every join an implementation may declare.
ALL_JOIN_NAMES = JOIN_NAMES | frozenset(SQL_JOIN_FEATURES)
#: Every name an implementation may declare.
DECLARABLE_FEATURES = ALL_FEATURES | ALL_JOIN_NAMES


@functools.lru_cache(maxsize=4096)
def required_features(case: Case) -> frozenset[str]:
    """The features an implementation must support to be held to this case (a case is immutable: asked again, as
    the strategies, the suite and its tally each ask, the answer is remembered)."""
    parts = [p for p in (case.window, case.trigger, case.evictor, case.watermark_generator) if p is not None]
    needed = {name for part in parts for name in part.needs()}
    needed |= {e.feature.name for e in case.events if e.feature}
    if case.channels > 1:
        needed.add(CHANNELS.name)
    if case.allowed_lateness != 0:
        needed.add(ALLOWED_LATENESS.name)
    if case.late_side_output:
        needed.add(LATE_SIDE_OUTPUT.name)
    if not case.end_of_input or not end_reaches_the_operator(case):
        needed.add(UNBOUNDED_INPUT.name)
    times = [e.ts for e in case.events if isinstance(e, Record)]
    times += [e.timestamp for e in case.events if isinstance(e, Watermark) and e.timestamp != LONG_MAX]
    if any(t < 0 for t in times):
        needed.add(NEGATIVE_TIMESTAMPS.name)
    times += [e.time for e in case.events if isinstance(e, ProcessingTime)]
    if any(abs(v) >= EXTREME for v in times + [v for part in parts for v in part.parameters()]) or overflows(case):
        needed.add(EXTREME_VALUES.name)
    return frozenset(needed)


def join_required_features(case: JoinCase) -> frozenset[str]:
    """The features an implementation must support to be held to a join case: its join's, and those of the
    window its window join runs (assigner, trigger, evictor, lateness) and of its inputs (several channels,
    negative times)."""
    join = case.join
    if isinstance(join, IntervalJoin):
        needed = {JOIN_INTERVAL.name}
    elif isinstance(join, SqlWindowJoin):
        needed = {JOIN_SQL_WINDOW.name} | join.window.needs()
    elif isinstance(join, SqlIntervalJoin):
        needed = {JOIN_SQL_INTERVAL.name}
    else:
        needed = {(JOIN_COGROUP if join.cogroup else JOIN_WINDOW).name}
        needed |= {name for part in (join.window, join.trigger, join.evictor) if part is not None
                   for name in part.needs()}
        if join.allowed_lateness != 0:
            needed.add(ALLOWED_LATENESS.name)
    if case.left_channels > 1 or case.right_channels > 1:
        needed.add(CHANNELS.name)
    if any(isinstance(e.event, Record) and e.event.ts < 0 or isinstance(e.event, Watermark) and e.event.timestamp < 0
           for e in case.events):
        needed.add(NEGATIVE_TIMESTAMPS.name)
    return frozenset(needed)


def needed_features(case: Case | JoinCase) -> frozenset[str]:
    """`required_features` of a window case, `join_required_features` of a join case."""
    return join_required_features(case) if isinstance(case, JoinCase) else required_features(case)


def end_reaches_the_operator(case: Case) -> bool:
    """Whether the window operator sees the case's input end (`Long.MAX_VALUE`). A channel that is idle when it
    ends stays idle: Flink's `RecordWriterOutput` drops watermarks while its status is idle (docs/semantics.md,
    "A channel that ends"), so when every channel ends idle the operator never sees the end, and to it the input
    has none: an implementation that tells a dropped record from a waiting one only at the end of input (Flink
    SQL's, `flink_impl/sql.py`) cannot observe such a case. A watermark generator ignores the statuses from
    upstream, so its channels always deliver the end."""
    if case.watermark_generator is not None:
        return True
    idle = [False] * case.channels  # no event follows a channel's end (`case_json`): its last status is its end's
    for e in case.events:
        if isinstance(e, WatermarkStatus):
            idle[e.channel] = e.idle
    return not all(idle)

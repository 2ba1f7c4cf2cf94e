"""The reference's DataStream joins: the observation Flink gives for a `JoinCase` (`join-case/1`).

- A window join or coGroup is the window operator over the union of both inputs (`window_contract.join_union`
  states the job `CoGroupedStreams.WithWindow.apply` builds): the model's own `simulate` runs the union's case,
  and `CoGroupWindowFunction` / `JoinCoGroupFunction` turn its firings into the join's outputs.
- An interval join is `IntervalJoinOperator` (`reference.interval_join`), and Flink SQL's window join
  `WindowJoinOperator` (`reference.window_join_operator`), each a two-input operator: each input's channels meet in
  that input's own `StatusWatermarkValve` (`OperatorInputs`, as for a window operator), and the two valves' outputs
  in the operator's `IndexedCombinedWatermarkStatus`. At the end of input the left input's channels end first, then
  the right's.
"""

from __future__ import annotations

from reference.dialects import FLINK, Dialect
from reference.errors import InvalidSpec, JobFailure
from reference.interval_join import IntervalJoinOperator
from reference.javalong import wrap
from reference.simulation import simulate
from reference.stream_time_join import simulate_stream_time_join
from reference.time_interval_join import KeyedCoProcessOperator, TimeIntervalJoin
from reference.watermarks.inputs import OperatorInputs
from reference.window_join_operator import WindowJoinOperator
from window_contract.case import Case, EndOfChannel, Global, Record, Watermark, WatermarkStatus
from window_contract.facts import LONG_MIN
from window_contract.join_case import IntervalJoin, JoinCase, SqlIntervalJoin, SqlWindowJoin
from window_contract.join_observation import SIDES, JoinObservation, Pair, Side, SideRecord, SqlRow
from window_contract.join_union import join_observation, union_case
from window_contract.observation import Error, InputWatermark

#: The two-input operators of the joins, each fed by `replay`.
TwoInputOperator = IntervalJoinOperator | WindowJoinOperator | KeyedCoProcessOperator


def simulate_join(case: JoinCase, dialect: Dialect = FLINK) -> JoinObservation:
    """The observation Flink gives for `case`. With another `dialect` (`reference.dialects`), what an engine that
    changes some of Flink's rules gives: a window join's union runs in its window rules, a two-input operator in
    its join rules (`reference.dialects.joins`)."""
    if isinstance(case.join, IntervalJoin | SqlIntervalJoin) and dialect.on_stream_time():
        return simulate_stream_time_join(case, IntervalJoinCollector(), dialect.join_range_from_zero)
    if isinstance(case.join, IntervalJoin):
        return simulate_interval_join(case, dialect)
    if isinstance(case.join, SqlWindowJoin):
        return simulate_sql_window_join(case, dialect)
    if isinstance(case.join, SqlIntervalJoin):
        return simulate_sql_interval_join(case, dialect)
    return join_observation(case, simulate(union_case(case), dialect=dialect))


class IntervalJoinCollector:
    """The interval join's outputs, stamped with the position of the event being processed."""

    def __init__(self, dialect: Dialect = FLINK) -> None:
        self.at = 0
        #: The operator's watermark before any input's (the dialect's `join_initial_watermark`).
        self.initial_watermark = LONG_MIN if dialect.join_initial_watermark is None else dialect.join_initial_watermark
        self.outputs: list[Pair | SqlRow] = []
        self.late: list[SideRecord] = []
        self.dropped: list[SideRecord] = []
        self.watermarks: list[InputWatermark] = []

    def pair(self, key: str, left: int, right: int, timestamp: int, watermark: int) -> None:
        self.outputs.append(Pair(self.at, key, timestamp, watermark, left, right))

    def sql_row(self, key: str, left: int | None, right: int | None, window: tuple[int, int] | None = None,
                timestamp: int | None = None) -> None:
        watermark = self.watermarks[-1].watermark if self.watermarks else self.initial_watermark
        self.outputs.append(SqlRow(self.at, key, watermark, left, right, window, timestamp))

    def interval_row(self, key: str, left: int | None, right: int | None, timestamp: int | None) -> None:
        self.sql_row(key, left, right, None, timestamp)

    def side_output(self, side: Side, key: str, value: int, timestamp: int) -> None:
        self.late.append(SideRecord(self.at, side, key, value, timestamp))

    def drop(self, side: Side, key: str, value: int, timestamp: int) -> None:
        self.dropped.append(SideRecord(self.at, side, key, value, timestamp))

    def input_watermark(self, watermark: int) -> None:
        self.watermarks.append(InputWatermark(self.at, watermark))

    def unjoined(self, side: Side, key: str, value: int, timestamp: int) -> None:
        """The DataStream interval join emits nothing for an element that joined nothing."""

    def observation(self, error: Error | None = None) -> JoinObservation:
        return JoinObservation(tuple(self.outputs), tuple(self.late), tuple(self.dropped), tuple(self.watermarks),
                               error)


class SqlRowsOfPairs(IntervalJoinCollector):
    """Flink SQL's interval join as `IntervalJoinOperator` runs it (`sql_interval_join_operator="interval_join"`): a
    pair is a row of both values, and an outer side's element that joined nothing when it arrived a row padded with
    nulls then; neither carries a timestamp (the table's rows reach the join without one)."""

    def __init__(self, padded: tuple[Side, ...], dialect: Dialect) -> None:
        super().__init__(dialect)
        self.padded = padded

    def pair(self, key: str, left: int, right: int, timestamp: int, watermark: int) -> None:
        self.outputs.append(SqlRow(self.at, key, watermark, left, right))

    def unjoined(self, side: Side, key: str, value: int, timestamp: int) -> None:
        if side in self.padded:
            self.sql_row(key, value if side == "left" else None, value if side == "right" else None)


class JoinInput(OperatorInputs):
    """One input of the two-input operator: its channels and their valve, whose watermarks and statuses go to the
    operator as that input's (`processWatermark1/2`, `processWatermarkStatus1/2`)."""

    def __init__(self, channels: int, operator: TwoInputOperator, index: int) -> None:
        super().__init__(Case(window=Global(), channels=channels),
                         lambda watermark: operator.process_watermark(index, watermark))
        self.operator, self.index = operator, index

    def emit_watermark_status(self, idle: bool) -> None:
        self.operator.process_watermark_status(self.index, idle)


def simulate_interval_join(case: JoinCase, dialect: Dialect = FLINK) -> JoinObservation:
    join = case.join
    collector = IntervalJoinCollector(dialect)
    try:
        operator = IntervalJoinOperator(join.lower, join.upper, not join.lower_exclusive, not join.upper_exclusive,
                                        join.left_late_output, join.right_late_output, collector, dialect)
    except InvalidSpec as e:
        return JoinObservation(error=Error("invalid_spec", str(e), e.rules))
    return replay(case, operator, collector, records_into(operator))


def records_into(operator: IntervalJoinOperator):
    """How `replay` gives an interval join operator a record of either input (`processElement1/2`)."""
    return lambda side, r: (operator.process_element1 if side == "left" else operator.process_element2)(
        r.key, r.value, r.ts)


def simulate_sql_window_join(case: JoinCase, dialect: Dialect = FLINK) -> JoinObservation:
    collector = IntervalJoinCollector(dialect)
    try:
        operator = WindowJoinOperator(case.join.window, case.join.type, collector.sql_row, collector.drop,
                                      collector.input_watermark, dialect)
    except InvalidSpec as e:
        return JoinObservation(error=Error("invalid_spec", str(e), e.rules))
    return replay(case, operator, collector, lambda side, r: operator.process_element(side, r.key, r.value, r.ts))


#: The sides Flink SQL's interval join pads with nulls, by its join type.
PADDED: dict[str, tuple[Side, ...]] = {"inner": (), "left": ("left",), "right": ("right",), "full": SIDES}


def simulate_sql_interval_join(case: JoinCase, dialect: Dialect = FLINK) -> JoinObservation:
    join = case.join
    if dialect.sql_interval_join_operator == "interval_join":  # `lower <= l - r <= upper`: r - l in [-upper, -lower]
        rows = SqlRowsOfPairs(PADDED[join.type], dialect)
        operator = IntervalJoinOperator(wrap(-join.upper), wrap(-join.lower), True, True, False, False, rows, dialect)
        return replay(case, operator, rows, records_into(operator))
    collector = IntervalJoinCollector(dialect)
    function = TimeIntervalJoin(join.lower, join.upper, join.type, collector.interval_row, collector.drop, dialect)
    operator = KeyedCoProcessOperator(function, collector.input_watermark, dialect)
    return replay(case, operator, collector, lambda side, r: operator.process_element(side, r.key, r.value, r.ts))


def replay(case: JoinCase, operator: TwoInputOperator, collector: IntervalJoinCollector,
           process_record) -> JoinObservation:
    """The case's events into a two-input operator, each input's behind its valve, in the case's order."""
    inputs = {side: JoinInput(case.channels(side), operator, index) for index, side in enumerate(SIDES)}
    try:
        for at, e in enumerate(case.events):
            collector.at = at
            inputs_of_side, event = inputs[e.input], e.event
            if isinstance(event, Record):
                process_record(e.input, event)
            elif isinstance(event, Watermark):
                inputs_of_side.process_watermark(event)
            elif isinstance(event, WatermarkStatus):
                if operator.dialect.watermark_statuses:
                    inputs_of_side.process_watermark_status(event)
            elif isinstance(event, EndOfChannel):
                inputs_of_side.end_channel(event.channel)
        collector.at = len(case.events)
        if case.end_of_input:  # an input whose channels all ended, or whose valve is at the end already, adds nothing
            for side in SIDES:
                inputs[side].end_of_input()
    except JobFailure as e:
        return collector.observation(Error("runtime", str(e), e.rules))
    return collector.observation()


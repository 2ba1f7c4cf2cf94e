"""The `JoinCase`: two keyed inputs and one of Flink's DataStream joins over them (`join-case/1`, docs/format.md).

A join case is to a two-input job what a `Case` is to a window operator: the join as the user writes it and
the events in the order the join's operator receives them, across both inputs. Each input has its own channels
(parallel upstream instances), its records, watermarks, statuses and channel ends, exactly as a `Case`'s one input;
an event names its input.

The joins, in Flink's API::

    left.join(right).where(k).equalTo(k).window(assigner)[.trigger(..)][.evictor(..)][.allowedLateness(..)]
    left.coGroup(right)...                                                  # the same, both lists per firing
    left.keyBy(k).intervalJoin(right.keyBy(k)).between(lower, upper)[.lowerBoundExclusive()]
        [.upperBoundExclusive()][.sideOutputLeftLateData(tag)][.sideOutputRightLateData(tag)]

The window and its trigger and evictor are the window case's own kinds (`window_contract.case`). Keys are
strings, values integers, as there; the join key of both sides is the record's `key`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from window_contract.case import (
    ASSIGNERS,
    EVICTORS,
    TRIGGERS,
    EndOfChannel,
    EvictorSpec,
    Record,
    TriggerSpec,
    Watermark,
    WatermarkStatus,
    WindowSpec,
    event_to_json,
    kind_to_json,
)
from window_contract.join_observation import Side, join_observation_to_json

#: The `format` of a join case document.
JOIN_CASE_FORMAT = "join-case/1"

#: The events of one input (no processing time: the DataStream joins of this format are event-time joins).
InputEvent = Record | Watermark | WatermarkStatus | EndOfChannel


@dataclass(frozen=True)
class WindowJoin:
    """`JoinedStreams` / `CoGroupedStreams` `.window(assigner)` with its optional trigger, evictor and
    `allowedLateness`: `cogroup` false is `apply(JoinFunction)` (one output per pair), true is
    `apply(CoGroupFunction)` (one output per firing, both lists). Flink 2.3 has no `sideOutputLateData` here:
    late records of either side are dropped."""

    window: WindowSpec
    cogroup: bool = False
    trigger: TriggerSpec | None = None
    evictor: EvictorSpec | None = None
    allowed_lateness: int = 0

    @property
    def operation(self) -> str:
        return "window_cogroup" if self.cogroup else "window_join"


@dataclass(frozen=True)
class IntervalJoin:
    """`KeyedStream.intervalJoin(other).between(lower, upper)`: a right element joins a left one when
    `right.ts` lies in `[left.ts + lower, left.ts + upper]`, each bound exclusive when asked; a late element goes
    to its side's late output when that side has one (`sideOutputLeftLateData` / `sideOutputRightLateData`)."""

    lower: int
    upper: int
    lower_exclusive: bool = False
    upper_exclusive: bool = False
    left_late_output: bool = False
    right_late_output: bool = False

    operation = "interval_join"


#: Flink SQL's join types (`FlinkJoinType`) a window join takes: `IN` / `EXISTS` plan to a semi join, `NOT IN` /
#: `NOT EXISTS` to an anti join.
SQL_JOIN_TYPES = ("inner", "left", "right", "full", "semi", "anti")
#: How a semi or anti join's subquery is written: `[NOT] EXISTS (SELECT * ...)` or `L.k [NOT] IN (SELECT R.k ...)`.
SQL_SUBQUERY_FLAVOURS = ("exists", "in")


@dataclass(frozen=True)
class SqlWindowJoin:
    """Flink SQL's window join of two window table functions of the same window (`TUMBLE`, `HOP`, `CUMULATE`) on the
    key and both windows' bounds, `type` one of `SQL_JOIN_TYPES`::

        SELECT ... FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(rowtime), size))) L
        [LEFT | RIGHT | FULL] JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, ...))) R
        ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end

    A semi join is `WHERE EXISTS (SELECT * FROM ... R WHERE <the same condition>)` (`flavour` "exists", the default)
    or `WHERE L.k IN (SELECT R.k FROM ... R WHERE <the windows' condition>)` ("in"), an anti join `NOT EXISTS` or
    `NOT IN`. Each window of a key is joined once, when the watermark passes it; late rows are dropped."""

    window: WindowSpec
    type: str = "inner"
    #: How a semi or anti join is written: "exists" or "in" (`SQL_SUBQUERY_FLAVOURS`).
    flavour: str = "exists"

    operation = "sql_window_join"


#: The join types Flink 2.3's SQL interval join takes (its planner refuses semi and anti interval joins).
SQL_INTERVAL_JOIN_TYPES = ("inner", "left", "right", "full")


@dataclass(frozen=True)
class SqlIntervalJoin:
    """Flink SQL's interval join of two tables on the key and a bound on their rowtimes, `lower <= l.rt - r.rt <=
    upper` (inclusive, as `BETWEEN`; a strict bound is one of these moved by 1 ms), `type` one of
    `SQL_INTERVAL_JOIN_TYPES`::

        SELECT ... FROM l [LEFT | RIGHT | FULL] JOIN r
        ON l.k = r.k AND l.rowtime BETWEEN r.rowtime + lower AND r.rowtime + upper

    Rows are joined as they arrive; an outer join's row without a partner is padded with nulls once the watermark
    has passed the last time a partner could come."""

    lower: int
    upper: int
    type: str = "inner"

    operation = "sql_interval_join"


JoinSpec = WindowJoin | IntervalJoin | SqlWindowJoin | SqlIntervalJoin


@dataclass(frozen=True)
class JoinEvent:
    """One event of the case: an input's record, watermark, status or channel end, on that input."""

    input: Side
    event: InputEvent


@dataclass(frozen=True)
class JoinCase:
    """A join, both inputs' channels, and the events in the order the join's operator receives them.
    `end_of_input` ends every channel still open after the last event (a bounded source)."""

    join: JoinSpec
    events: tuple[JoinEvent, ...]
    left_channels: int = 1
    right_channels: int = 1
    end_of_input: bool = True
    name: str | None = None
    #: The observation Flink gives (`join_observation.JoinObservation`), for a case kept in `cases/`.
    expected: Any = None

    def channels(self, side: Side) -> int:
        return self.left_channels if side == "left" else self.right_channels

    def to_json(self) -> dict[str, Any]:
        return join_case_to_json(self)


def join_spec_to_json(join: JoinSpec) -> dict[str, Any]:
    if isinstance(join, SqlIntervalJoin):
        return {"operation": join.operation, "type": join.type, "lower": join.lower, "upper": join.upper}
    if isinstance(join, SqlWindowJoin):
        flavour = {"flavour": join.flavour} if join.type in ("semi", "anti") else {}
        return {"operation": join.operation, "type": join.type} | flavour | {
            "window": kind_to_json(ASSIGNERS, join.window)}
    if isinstance(join, WindowJoin):
        return {"operation": join.operation, "window": kind_to_json(ASSIGNERS, join.window),
                "trigger": kind_to_json(TRIGGERS, join.trigger), "evictor": kind_to_json(EVICTORS, join.evictor),
                "allowed_lateness": join.allowed_lateness}
    return {"operation": join.operation, "lower": join.lower, "upper": join.upper,
            "lower_exclusive": join.lower_exclusive, "upper_exclusive": join.upper_exclusive,
            "late_side_output": {"left": join.left_late_output, "right": join.right_late_output}}


def join_case_to_json(case: JoinCase) -> dict[str, Any]:
    """The canonical `join-case/1` document of `case`."""
    doc: dict[str, Any] = {"format": JOIN_CASE_FORMAT}
    if case.name is not None:
        doc["name"] = case.name
    doc |= {"join": join_spec_to_json(case.join),
            "inputs": {"left": {"channels": case.left_channels}, "right": {"channels": case.right_channels}},
            "events": [{"input": e.input} | event_to_json(e.event) for e in case.events],
            "end_of_input": case.end_of_input}
    if case.expected is not None:
        doc["expected"] = join_observation_to_json(case.expected)
    return doc

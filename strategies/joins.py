"""Two out-of-order keyed streams and a DataStream join over them (`join-case/1`), aimed at the joins' edges.

A case is drawn structure first: the join (`join_specs`), each input's channels, then a list of *steps*, each a small
frozen dataclass saying what happens relative to the running state (an event-time clock, each input's last record),
which `play` turns into events. Deleting a step while shrinking keeps the rest meaningful, so a failing case shrinks
towards a few records of one key and the watermarks that matter.

- `Arrive`: the clock advances a little and a record of one input arrives at most a little behind it;
- `AtBound`: a record of one input at the other input's last record's timestamp plus a bound of the interval
  (its lower or upper end, from that input's side) or plus a window's size, or one either side: the pair just in
  or just out of the interval, the element in the same window or the next;
- `Mark`: a watermark on one input's channel (or on each of its channels), a little behind the clock (one
  input's watermark holding the other's back, and records behind it late on one side only);
- `AtWatermark`: a record of one input at the highest watermark either input has had, or one either side: late
  on its side or just not (an interval join's `ts < watermark`, a window's cleanup);
- `Status`: an input's channel goes idle or active again; `Idle`: every channel of an input goes idle (an idle
  side: with both idle, the operator's watermark is the higher of the two);
- `MarkAtCleanup`: both inputs' watermark, on every channel, at the cleanup time of one input's last record (an
  interval join's `ts + relativeUpper`, or `ts` when that bound is not positive; a window's end), or one either side,
  and perhaps a partner of the other input at exactly that time: the watermark whose timer removes the record, and
  a partner still on time but too late to find it.

Values are the step's index: each record tells which step made it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import strategies as st

from window_contract.case import (
    ContinuousEventTimeTrigger,
    CountEvictor,
    CountTrigger,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TimeEvictor,
    Watermark,
    WatermarkStatus,
    cumulative,
    session,
    sliding,
    tumbling,
)
from window_contract.join_case import (
    SQL_INTERVAL_JOIN_TYPES,
    SQL_JOIN_TYPES,
    SQL_SUBQUERY_FLAVOURS,
    IntervalJoin,
    JoinCase,
    JoinEvent,
    JoinSpec,
    SqlIntervalJoin,
    SqlWindowJoin,
    WindowJoin,
)
from window_contract.join_observation import SIDES, Side

KEYS = ("a", "b")


def interval_joins() -> st.SearchStrategy[IntervalJoin]:
    """Small bounds either side of 0 (rarely `lower > upper`, which Flink rejects), exclusive or not, with or
    without each side's late output; shrinks towards `between(0, 0)`."""
    return st.builds(
        lambda lower, width, lower_exclusive, upper_exclusive, left_late, right_late: IntervalJoin(
            lower, lower + width, lower_exclusive, upper_exclusive, left_late, right_late),
        st.integers(-3, 2), st.integers(-1, 5), st.booleans(), st.booleans(), st.booleans(),
        st.booleans())


def window_joins() -> st.SearchStrategy[WindowJoin]:
    """Join or coGroup over small tumbling, sliding or session windows, with a little allowed lateness (late
    firings re-emit the whole window), sometimes a count trigger (counting both inputs' elements together),
    purging or not, or an evictor; shrinks towards a join over tumbling windows of 2 with the default trigger."""
    windows = st.one_of(st.builds(tumbling, st.integers(2, 6)),
                        st.builds(lambda size, slide: sliding(size, slide), st.integers(2, 6), st.integers(1, 3)),
                        st.builds(session, st.integers(1, 4)))
    counts = st.builds(CountTrigger, st.integers(1, 3))
    triggers = st.none() | counts | st.builds(PurgingTrigger, counts) | st.just(ContinuousEventTimeTrigger(2))
    evictors = st.none() | st.builds(CountEvictor, st.integers(1, 3), st.booleans()) | st.builds(
        TimeEvictor, st.integers(1, 4), st.booleans())

    def join(window, cogroup, lateness, trigger, evictor) -> WindowJoin:
        if isinstance(window, Session) and isinstance(evictor, CountEvictor):
            evictor = None  # the format refuses it: the order of merged contents is the state backend's
        return WindowJoin(window, cogroup, trigger, evictor, lateness)

    return st.builds(join, windows, st.booleans(), st.integers(0, 3) | st.just(0), triggers, evictors)


def cogroup_tumbling_joins() -> st.SearchStrategy[WindowJoin]:
    """A coGroup over small tumbling windows with the default trigger, no lateness and no evictor: each window of
    a key fires once, when the watermark passes it, also with one side empty."""
    return st.builds(lambda size: WindowJoin(tumbling(size), cogroup=True), st.integers(2, 6))


def sql_window_joins() -> st.SearchStrategy[SqlWindowJoin]:
    """Flink SQL's window join of each type over small `TUMBLE`, `HOP` (a window join takes a size that is no multiple
    of the slide) or `CUMULATE` windows, sometimes with an offset (a `HOP`'s may exceed its slide), a semi or anti
    join written with `EXISTS` or `IN`; shrinks towards an inner join over tumbling windows of 2."""
    windows = st.one_of(
        st.builds(tumbling, st.integers(2, 6)),
        st.builds(lambda slide, size: sliding(size, slide), st.integers(1, 3), st.integers(2, 7)),
        st.builds(lambda step, times: cumulative(step, step * times), st.integers(1, 3), st.integers(2, 3)))

    def offset(window, offset: int):
        return replace(window, offset=offset if isinstance(window, Sliding) else offset % _unit(window))

    def join(window, join_type: str, flavour: str) -> SqlWindowJoin:
        return SqlWindowJoin(window, join_type, flavour if join_type in ("semi", "anti") else "exists")

    return st.builds(join, windows | st.builds(offset, windows, st.integers(1, 5)), st.sampled_from(SQL_JOIN_TYPES),
                     st.sampled_from(SQL_SUBQUERY_FLAVOURS))


def sql_interval_joins() -> st.SearchStrategy[SqlIntervalJoin]:
    """Flink SQL's interval join of each type with small bounds either side of 0 on `l.rt - r.rt`, `lower <= upper`;
    shrinks towards an inner join of `BETWEEN r.rt AND r.rt`."""
    return st.builds(lambda lower, width, join_type: SqlIntervalJoin(lower, lower + width, join_type),
                     st.integers(-3, 2), st.integers(0, 5), st.sampled_from(SQL_INTERVAL_JOIN_TYPES))


def _unit(window) -> int:
    """The spacing of a SQL window's ends: its size (`TUMBLE`), slide (`HOP`) or step (`CUMULATE`)."""
    return getattr(window, "slide", None) or getattr(window, "step", None) or window.size


def sql_window_end(join: SqlWindowJoin, ts: int) -> int:
    """The end of the earliest-ending window of `join` that holds a record at `ts`."""
    unit, offset = _unit(join.window), join.window.offset
    return (ts - offset) // unit * unit + offset + unit


def join_specs() -> st.SearchStrategy[JoinSpec]:
    return st.one_of(interval_joins(), window_joins())


@dataclass(frozen=True)
class Arrive:
    input: Side
    key: str
    advance: int
    behind: int
    channel: int


@dataclass(frozen=True)
class AtBound:
    input: Side
    upper: bool
    off: int
    channel: int


@dataclass(frozen=True)
class Mark:
    input: Side
    lag: int
    channel: int
    #: On every channel of the input, not only on `channel`.
    every: bool


@dataclass(frozen=True)
class AtWatermark:
    input: Side
    off: int
    channel: int


@dataclass(frozen=True)
class Status:
    input: Side
    idle: bool
    channel: int


@dataclass(frozen=True)
class Idle:
    input: Side


@dataclass(frozen=True)
class MarkAtCleanup:
    input: Side
    off: int
    partner: bool


Step = Arrive | AtBound | AtWatermark | Mark | Status | Idle | MarkAtCleanup

_sides = st.sampled_from(SIDES)
_channels = st.integers(0, 1)
steps = st.one_of(
    st.builds(Arrive, _sides, st.sampled_from(KEYS), st.integers(0, 3), st.integers(0, 3), _channels),
    st.builds(AtBound, _sides, st.booleans(), st.integers(-1, 1), _channels),
    st.builds(AtWatermark, _sides, st.integers(-1, 1), _channels),
    st.builds(Mark, _sides, st.integers(0, 3), _channels, st.booleans()),
    st.builds(Status, _sides, st.booleans(), _channels),
    st.builds(Idle, _sides),
    st.builds(MarkAtCleanup, _sides, st.integers(-1, 1), st.booleans()))


def _offset(join: JoinSpec, side: Side, upper: bool, other_ts: int) -> int:
    """Where a partner of the other input's last record lies, seen from `side`: `other.ts + offset` (for a SQL
    window join, the last millisecond of the other record's earliest window, or that window's first one)."""
    if isinstance(join, SqlIntervalJoin):  # a left row at l joins a right one at r when l - r is in [lower, upper]
        return (join.lower if not upper else join.upper) if side == "left" else (-join.upper if not upper
                                                                                 else -join.lower)
    if isinstance(join, SqlWindowJoin):
        end = sql_window_end(join, other_ts)
        return end - 1 - other_ts if upper else end - _unit(join.window) - other_ts
    if isinstance(join, WindowJoin):
        return getattr(join.window, "size", getattr(join.window, "gap", 1)) if upper else 0
    if side == "right":  # a right element joins a left one at l.ts + [lower, upper]
        return join.upper if upper else join.lower
    return -join.lower if upper else -join.upper


def _cleanup(join: JoinSpec, side: Side, ts: int) -> int:
    """When a record of `side` at `ts` is removed: `IntervalJoinOperator`'s cleanup timer (its bounds made
    inclusive), the end of a window join's window, or the last millisecond of a SQL window join's earliest window
    (its timer)."""
    if isinstance(join, WindowJoin | SqlWindowJoin):
        return ts + _offset(join, side, True, ts)
    if isinstance(join, SqlIntervalJoin):  # `registerCleanUpTimer`: ts + the row's relative size + 1
        return ts + (-join.lower if side == "left" else join.upper) + 1
    lower, upper = join.lower + join.lower_exclusive, join.upper - join.upper_exclusive
    relative_upper = upper if side == "left" else -lower
    return ts + relative_upper if relative_upper > 0 else ts


def play(join: JoinSpec, channels: dict[Side, int], drawn: list[Step]) -> tuple[JoinEvent, ...]:
    """The events `drawn` stands for; a channel beyond an input's is its last one."""
    clock, highest_mark = 0, None
    last: dict[Side, tuple[str, int] | None] = {"left": None, "right": None}
    events = []
    for index, step in enumerate(drawn):
        channel = min(getattr(step, "channel", 0), channels[step.input] - 1)
        match step:
            case Arrive(side, key, advance, behind, _):
                clock += advance
                last[side] = (key, clock - behind)
                events.append(JoinEvent(side, Record(key, index, clock - behind, channel)))
            case AtBound(side, upper, off, _):
                other = last["right" if side == "left" else "left"]
                if other is not None:
                    key, ts = other
                    partner = ts + _offset(join, side, upper, ts) + off
                    last[side] = (key, partner)
                    events.append(JoinEvent(side, Record(key, index, partner, channel)))
            case AtWatermark(side, off, _):
                if highest_mark is not None:
                    key = (last["right" if side == "left" else "left"] or ("a", 0))[0]
                    last[side] = (key, highest_mark + off)
                    events.append(JoinEvent(side, Record(key, index, highest_mark + off, channel)))
            case Mark(side, lag, _, every):
                highest_mark = max(clock - lag, highest_mark if highest_mark is not None else clock - lag)
                marked = range(channels[side]) if every else (channel,)
                events += [JoinEvent(side, Watermark(clock - lag, c)) for c in marked]
            case Status(side, idle, _):
                events.append(JoinEvent(side, WatermarkStatus(channel, idle)))
            case Idle(side):
                events += [JoinEvent(side, WatermarkStatus(c, True)) for c in range(channels[side])]
            case MarkAtCleanup(side, off, partner) if last[side] is not None:
                key, ts = last[side]
                cleanup = _cleanup(join, side, ts)
                highest_mark = cleanup + off if highest_mark is None else max(highest_mark, cleanup + off)
                events += [JoinEvent(s, Watermark(cleanup + off, c)) for s in SIDES for c in range(channels[s])]
                if partner:
                    other: Side = "right" if side == "left" else "left"
                    last[other] = (key, cleanup)
                    events.append(JoinEvent(other, Record(key, index, cleanup, 0)))
    return tuple(events)


@st.composite
def join_cases(draw, *, specs: st.SearchStrategy[JoinSpec] | None = None) -> JoinCase:
    """A join case: a join, one or two channels per input, and 4 to 20 steps; shrinks towards 4 steps, one
    channel each and the simplest join."""
    join = draw(join_specs() if specs is None else specs)
    channels = {side: draw(st.integers(1, 2)) for side in SIDES}
    events = play(join, channels, draw(st.lists(steps, min_size=4, max_size=20)))
    return JoinCase(join, events, channels["left"], channels["right"])


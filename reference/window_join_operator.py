"""Flink SQL's window join: `WindowJoinOperator` (`org.apache.flink.table.runtime.operators.join.window`), behind the
window table function of each input (`AlignedWindowTableFunctionOperator`), as Flink 2.3 runs

    SELECT ... FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(rowtime), size))) L
    [LEFT | RIGHT | FULL] JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, ...))) R
    ON L.k = R.k AND L.window_start = R.window_start AND L.window_end = R.window_end

(`HOP`, `CUMULATE` likewise; `IN` / `EXISTS` a semi join, `NOT IN` / `NOT EXISTS` an anti join), for one parallel
instance. How the rules follow from the operator's code:

- Each input's window table function puts a row in every window of its rowtime (`window_start`, `window_end`), as
  the window assigners of the aggregation do (`reference.assigners`: tumbling, sliding, cumulative).
- `processElement1/2`: a row whose window has fired (`TimeWindowUtil.isWindowFired(windowEnd, currentWatermark)`:
  `windowEnd - 1 <= currentWatermark`) is dropped (the input's `numLateRecordsDropped`); any other is added to its
  input's list state of that window (namespace `windowEnd`) and registers the timer `windowEnd - 1`
  (`SlicingWindowTimerServiceImpl`). A row late for one window of a `HOP` may still join in the next.
- `onEventTime`: the window's two lists (each `null` when empty) go to the join type's `join`, then both are cleared:
  each window of a key is joined once, when the operator's watermark (its two inputs' combined,
  `reference.watermarks.combined`) reaches its last millisecond; a dropped row is neither joined nor padded.
- The join types (`WindowJoinOperator`'s subclasses, made by `WindowJoinHelper`): inner, every pair; left outer,
  every pair and each left row without one padded with nulls (all of them when the right list is empty); right
  outer symmetric; full outer both; semi, each left row with a partner; anti, each without (all when the right
  list is empty). The key is the only join condition here, so every left row of a window matches every right one.
- `open()` erases the output's timestamp: the rows carry their windows' bounds, no record time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reference.assigners import get_window_start_with_offset
from reference.dialects import FLINK, Dialect
from reference.errors import InvalidSpec
from reference.javalong import labs, lsub
from reference.kinds import build
from reference.timers import InternalTimer
from reference.two_input import TwoInputStreamOperator
from window_contract.case import Sliding, Tumbling, WindowSpec
from window_contract.facts import LONG_MAX
from window_contract.join_observation import Side

#: One input's state: (key, window end) -> the values of its rows in that window, in arrival order.
WindowLists = dict[tuple[str, int], list[int]]
#: Where a joined row goes: key, left value or None, right value or None, the window.
Collect = Callable[[str, int | None, int | None, tuple[int, int]], None]


class AlignedWindowTableFunctionOperator:
    """`TUMBLE` / `HOP` / `CUMULATE` as a table function: a row in each window of the row's time. The planner checks
    the windows as Flink 2.3 answers a window join: a `TUMBLE` offset of `size` or more is refused (`TUMBLE_MESSAGE`),
    a `HOP` takes any offset, its windows aligned on it modulo the slide, and any size (no multiple of the slide
    needed, as a `HOP` aggregate needs it); a `CUMULATE` needs its size a multiple of its step
    (`reference.assigners.CumulativeWindows`, whose message the join's planner gives too)."""

    def __init__(self, window: WindowSpec) -> None:
        if isinstance(window, Tumbling) and labs(window.offset) >= window.size:
            raise InvalidSpec(TUMBLE_MESSAGE.format(size=window.size, offset=window.offset), "sql.tumble_offset")
        if isinstance(window, Sliding):
            window = replace(window, offset=window.offset % window.slide)
        self.assigner = build(window, window_start=get_window_start_with_offset)

    def windows(self, timestamp: int) -> list[tuple[int, int]]:
        return [(w.start, w.end) for w in self.assigner.assign_windows(timestamp, 0)]


TUMBLE_MESSAGE = ("TUMBLE table function parameters must satisfy abs(offset) < size, but got size {size} ms and offset "
                  "{offset} ms.")


def is_window_fired(window_end: int, watermark: int) -> bool:
    """`TimeWindowUtil.isWindowFired` (UTC): `windowEnd != Long.MAX_VALUE && watermark >= windowEnd - 1`."""
    return window_end != LONG_MAX and watermark >= lsub(window_end, 1)


def inner_join(lefts: list[int] | None, rights: list[int] | None, emit: Callable[[int | None, int | None], None]):
    """`InnerJoinOperator.join`: left-major, every pair."""
    for left in lefts or ():
        for right in rights or ():
            emit(left, right)


def semi_anti_join(anti: bool):
    """`SemiAntiJoinOperator.join`: the left rows with a partner (semi) or without one (anti)."""
    def join(lefts, rights, emit) -> None:
        for left in lefts or ():
            if bool(rights) != anti:
                emit(left, None)
    return join


def outer_join(pad_left: bool, pad_right: bool):
    """`LeftOuterJoinOperator` / `RightOuterJoinOperator` / `FullOuterJoinOperator.join`: every pair, and each row
    of an outer side without a partner padded with nulls (a side whose list is empty pads every row of the other)."""
    def join(lefts, rights, emit) -> None:
        inner_join(lefts, rights, emit)
        if pad_left and not rights:
            for left in lefts or ():
                emit(left, None)
        if pad_right and not lefts:
            for right in rights or ():
                emit(None, right)
    return join


JOINS = {"inner": inner_join, "left": outer_join(True, False), "right": outer_join(False, True),
         "full": outer_join(True, True), "semi": semi_anti_join(False), "anti": semi_anti_join(True)}


class WindowJoinOperator(TwoInputStreamOperator):
    """`WindowJoinOperator` of one join type, both inputs' window table functions in front of it."""

    def __init__(self, window: WindowSpec, join_type: str, collect: Collect,
                 drop: Callable[[Side, str, int, int], None], input_watermark: Callable[[int], None],
                 dialect: Dialect = FLINK) -> None:
        super().__init__(input_watermark, dialect)
        self.table_function = dialect.table_function_class(AlignedWindowTableFunctionOperator)(window)
        self.join = JOINS[join_type]
        self.collect, self.drop = collect, drop
        self.states: dict[Side, WindowLists] = {"left": {}, "right": {}}
        self.starts: dict[int, int] = {}

    def process_element(self, side: Side, key: str, value: int, timestamp: int) -> None:
        """`processElement1/2`, for each row the input's window table function makes of the record."""
        for start, end in self.table_function.windows(timestamp):
            if is_window_fired(end, self.timers.current_watermark):
                self.drop(side, key, value, timestamp)
                continue
            self.starts[end] = start
            self.states[side].setdefault((key, end), []).append(value)
            self.timers.event_time_timers.add(lsub(end, 1), key, end)

    def on_event_time(self, timer: InternalTimer) -> None:
        """`onEventTime`: join the window's two lists, then clear them."""
        _, key, end = timer
        lefts, rights = (self.states[side].pop((key, end), None) for side in ("left", "right"))
        window = (self.starts[end], end)
        self.join(lefts, rights, lambda left, right: self.collect(key, left, right, window))

"""The joins of two streams: how a two-input operator combines its inputs, and what its join does.

A join's model (`reference.joins`) takes the dialect: a window join or coGroup runs the window operator over the
union of its inputs, in the dialect's window rules (every other area's switches); the two-input operators (the
interval join's `IntervalJoinOperator`, Flink SQL's `WindowJoinOperator` and `TimeIntervalJoin`) take the switches
here, each the hook of one rule:

- `combined_watermark_status`: the class that combines the two inputs' watermarks and statuses
  (`IndexedCombinedWatermarkStatus`, `reference.watermarks.combined`), and the watermark it starts from;
- `interval_join_time`, `interval_join_buffer_cleanup`, `interval_join_rejects_no_timestamp`: what
  `IntervalJoinOperator` (`reference.interval_join`) judges an element's lateness by, when it removes a buffered
  element, and whether `Long.MIN_VALUE` fails the job;
- `sql_interval_join_operator`: which operator runs Flink SQL's interval join (`reference.joins`);
- `is_late`: whether an element is behind the operator's watermark (`IntervalJoinOperator.isLate`);
- `table_function_class`: the class of a SQL window join's table function
  (`reference.window_join_operator.AlignedWindowTableFunctionOperator`), with the mixins of the switches that change
  it;
- `on_stream_time`: whether an interval join (DataStream's or Flink SQL's) runs on stream time instead
  (`reference.stream_time_join`), and with which of its rules;
- the other switches are read where their rule is (`reference.interval_join`, `reference.time_interval_join`,
  `reference.joins.replay`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from reference.javalong import labs
from reference.watermarks.combined import IndexedCombinedWatermarkStatus
from window_contract.case import Tumbling, WindowSpec


@dataclass(frozen=True)
class JoinSwitches:
    """The switches of the two-input operators of the joins; every default is Flink's."""

    #: When every input of a two-input operator is idle, `CombinedWatermarkStatus.updateCombinedWatermark` takes the
    #: highest of the inputs' watermarks ("highest", Flink 2.x), so the operator's watermark rises to it; "kept":
    #: it takes nothing while every input is idle, and the watermark stays where the active inputs left it (the
    #: condition `!allIdle && minimum > combinedWatermark`, as Flink 1.x writes it).
    watermark_when_all_inputs_idle: Literal["highest", "kept"] = "highest"
    #: What an interval join judges an element's lateness by (`IntervalJoinOperator.isLate`, `ts < time`):
    #: "combined_watermark" (Flink: the operator's watermark, both inputs' combined, so one input's watermark holds
    #: the other's back) or "own_input_largest" (the time of the element's own input alone: the largest timestamp of
    #: its elements and watermarks before this one, so a record moves its input's time, and the other input's
    #: watermark holds nothing back).
    interval_join_time: Literal["combined_watermark", "own_input_largest"] = "combined_watermark"
    #: When an interval join stops joining a buffered element: "cleanup_timer" (Flink: its bucket's cleanup timer,
    #: when the watermark reaches the last time a partner can come) or "behind_own_input" (once it is behind the time
    #: `interval_join_time` judges its input by, at that input's next element or watermark; no timer).
    interval_join_buffer_cleanup: Literal["cleanup_timer", "behind_own_input"] = "cleanup_timer"
    #: Whether an element at `Long.MIN_VALUE` (Flink's "no timestamp") fails an interval join's job; False: it is a
    #: time like any other.
    interval_join_rejects_no_timestamp: bool = True
    #: Which operator runs Flink SQL's interval join: "time_interval_join" (Flink: `RowTimeIntervalJoin`, which drops
    #: nothing and pads an outer side's row once the operator's time has passed the last time a partner can come) or
    #: "interval_join" (the DataStream's `IntervalJoinOperator`, in this dialect's interval join switches: a late row
    #: is dropped, and an outer side's row that joins nothing buffered when it arrives is padded with nulls then, a
    #: row that stays emitted when a partner comes later).
    sql_interval_join_operator: Literal["time_interval_join", "interval_join"] = "time_interval_join"
    #: The two-input operator's watermark before its inputs raise it: `None` is Flink's `Long.MIN_VALUE`; 0 an
    #: engine whose watermark starts at 0 (an element behind 0 is late from the start, an output before any
    #: watermark carries 0, and a watermark at or below 0 is no rise).
    join_initial_watermark: int | None = None
    #: Whether an element at the operator's watermark is late: Flink's `isLate` is `timestamp < currentWatermark`
    #: (False); True: `timestamp <= currentWatermark`, an element at the watermark is late too.
    late_at_watermark: bool = False
    #: Whether an interval join sends the late records of an input to its side output (`sideOutputLeftLateData`,
    #: `sideOutputRightLateData`): False, an engine without one drops them all.
    late_side_outputs: bool = True
    #: Whether a join's inputs go idle (`WatermarkStatus`): False, an engine whose sources have no idleness ignores
    #: the statuses, and an idle input holds the combined watermark back as any other.
    watermark_statuses: bool = True
    #: Whether Flink SQL's interval join drops a row behind the watermark (`is_late`): Flink's joins it with what is
    #: cached and drops nothing (False); True, it is dropped, as late.
    sql_interval_join_drops_late_rows: bool = False
    #: When Flink SQL's interval join evicts a cached row, padding it with nulls in an outer join if it never
    #: joined: "cleanup_timers", as `RowTimeIntervalJoin` does (one cleanup timer per cache, which stamps the rows
    #: it pads with its time, and a row's scan of the other cache); "watermark": at every rise of the watermark,
    #: each row whose last partner's time (a left row's `tl - lower`, a right one's `tr + upper`) lies behind it,
    #: with no timer and so no timestamp; a row whose last partner's time lies behind the watermark when it arrives
    #: is not cached (and padded at once if it joined nothing).
    sql_rows_evicted: Literal["cleanup_timers", "watermark"] = "cleanup_timers"

    #: A SQL window join's `TUMBLE` table function refuses an offset of its size or more in magnitude (Flink 2.x's
    #: planner: "TUMBLE table function parameters must satisfy abs(offset) < size"); False: it takes any offset, its
    #: windows aligned on it modulo the size (`TimeWindow.getWindowStartWithOffset` of the table runtime's
    #: `TumblingWindowAssigner`, which checks no offset).
    tumble_offset_checked: bool = True
    #: What an interval join's time is. "watermarks" (Flink's): the operator's watermark, the least of its inputs',
    #: makes a record late and fires the cleanup (and Flink SQL's padding) timers. "stream_time": the largest
    #: timestamp the join has processed on either input, which every record moves (a listed watermark is a heartbeat
    #: record one millisecond later), and with it the rules of a join that has no watermark, as
    #: `reference.stream_time_join` derives them from `KStreamKStreamJoin`: no record is late, each input's records
    #: are kept while they lie within `before + after` of the largest timestamp that input has shown (a window of 0
    #: keeps nothing), the bounds are checked after an exclusive one has moved, a SQL row carries the timestamp of its
    #: record (`max` of a pair's), and an outer side's row without a partner is padded, with its own timestamp, at
    #: the first record at stream time that finds its window closed (at once when it arrives behind it). The
    #: observation's watermark is stream time less one.
    join_time: Literal["watermarks", "stream_time"] = "watermarks"
    #: With `join_time = "stream_time"`: the range a record looks up in the other input, `[t - before, t + after]`,
    #: has both ends clamped at 0 (`Math.max(0L, ...)`), so a record whose range lies wholly before 0 joins the other
    #: input's records at 0.
    join_range_from_zero: bool = False

    def combined_watermark_status(self, inputs: int) -> IndexedCombinedWatermarkStatus:
        """The combination of `inputs` inputs' watermarks that a two-input operator of this dialect keeps."""
        combined = KeptWhenAllIdle(inputs) if self.watermark_when_all_inputs_idle == "kept" else (
            IndexedCombinedWatermarkStatus(inputs))
        if self.join_initial_watermark is not None:
            combined.combined_watermark = self.join_initial_watermark
        return combined

    def is_late(self, timestamp: int, watermark: int) -> bool:
        """Whether an element at `timestamp` is late at the operator's `watermark` (`late_at_watermark`)."""
        return timestamp <= watermark if self.late_at_watermark else timestamp < watermark

    def on_stream_time(self) -> bool:
        """Whether an interval join runs on stream time (`join_time`), `reference.stream_time_join`."""
        return self.join_time == "stream_time"

    def table_function_class(self, base: type) -> type:
        """`base` (`AlignedWindowTableFunctionOperator`), with the mixin of `tumble_offset_checked` when it is off."""
        return base if self.tumble_offset_checked else type(base.__name__, (AnyTumbleOffset, base), {})


class AnyTumbleOffset:
    """`tumble_offset_checked=False`: a `TUMBLE` whose offset is its size or more in magnitude is the `TUMBLE` of that
    offset modulo the size (`getWindowStartWithOffset` aligns on it so), which the model's check lets through."""

    def __init__(self, window: WindowSpec) -> None:
        if isinstance(window, Tumbling) and labs(window.offset) >= window.size:
            window = replace(window, offset=window.offset % window.size)
        super().__init__(window)


class KeptWhenAllIdle(IndexedCombinedWatermarkStatus):
    """`watermark_when_all_inputs_idle="kept"`: the minimum over the active inputs, and nothing when none is."""

    def update_combined_watermark(self) -> bool:
        active = [partial.watermark for partial in self.partial_watermarks if not partial.idle]
        self.idle = not active
        if active and min(active) > self.combined_watermark:
            self.combined_watermark = min(active)
            return True
        return False

"""Pre-aggregation: Flink SQL's two-phase window aggregate, which holds records until a watermark lets them on.

In the DataStream API a record reaches the window operator as it arrives. Flink SQL's window aggregate of tumbling,
sliding and cumulative windows runs in two phases, local and global, each a buffer of slices that sends its records
on only before a watermark it acts on (`PreAggregationHoldsRecords`, `SliceBuffer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from reference.assigners import CumulativeWindows, SlidingWindows, TumblingWindows
from reference.javalong import ladd, lsub
from reference.windows import get_window_start_with_offset
from window_contract.facts import LONG_MAX, LONG_MIN


@dataclass(frozen=True)
class PreAggregationSwitches:
    """The switches of pre-aggregation (Flink SQL's); every default is Flink's."""

    #: None: records reach the window operator as they arrive. An int X: tumbling and sliding windows aggregate
    #: in two phases, and the first (Flink SQL's `LocalSlicingWindowAggOperator`, whose `currentWatermark` `open`
    #: never sets) starts its watermark at X: it holds every record until it acts on a watermark above X
    #: (`PreAggregationHoldsRecords`), so a window that a watermark at or below X fired has fired without them.
    pre_aggregation_watermark_starts_at: int | None = None
    #: With `pre_aggregation_watermark_starts_at`: each phase waits for the next window end aligned on the window's
    #: offset before it acts on a watermark; False: aligned on 0 (Flink 1.20's `getNextTriggerWatermark`, which takes
    #: no offset, in the local pre-aggregation and in the global window aggregate), so a window with an offset can
    #: fire before its records are sent on, or before the global phase lets them in.
    pre_aggregation_aligns_on_offset: bool = True


class SliceBuffer:
    """A table runtime window operator's `RecordsWindowBuffer` and the gate before it: records held until a watermark
    the operator acts on, one above its progress (`start` at first, then the highest it received) and at or above its
    next trigger (`start` at first, then `getNextTriggerWatermark`: the next slice end after it, less 1, aligned on
    the window's `offset`, or on 0 when not `aligns_on_offset`), when the buffer holds a slice that watermark fires
    (`isWindowFired(minSliceEnd)`): `advance` gives them back, in the order they came, to be sent on before the
    watermark."""

    def __init__(self, start: int, size: int, offset: int, aligns_on_offset: bool) -> None:
        self.progress = self.next_trigger = start
        self.size, self.offset, self.trigger_offset = size, offset, offset if aligns_on_offset else 0
        self.held: list[tuple] = []
        self.min_slice_end = LONG_MAX

    def slice_end(self, timestamp: int, offset: int | None = None) -> int:
        """`SliceAssigner.assignSliceEnd` (aligned on `offset`, the window's unless given)."""
        offset = self.offset if offset is None else offset
        return ladd(get_window_start_with_offset(timestamp, offset, self.size), self.size)

    def fired(self, slice_end: int) -> bool:
        """`TimeWindowUtil.isWindowFired`: the watermark it acted on has reached the slice's last millisecond."""
        return slice_end - 1 <= self.progress

    def hold(self, held: tuple, timestamp: int) -> None:
        self.held.append(held)
        self.min_slice_end = min(self.min_slice_end, self.slice_end(timestamp))

    def advance(self, watermark: int) -> list[tuple]:
        if watermark <= self.progress:
            return []
        self.progress = watermark
        if watermark < self.next_trigger:
            return []
        released = []
        if self.min_slice_end != LONG_MAX and self.fired(self.min_slice_end):
            released, self.held, self.min_slice_end = self.held, [], LONG_MAX
        self.next_trigger = self.next_trigger_watermark(watermark)
        return released

    def next_trigger_watermark(self, watermark: int) -> int:
        """`TimeWindowUtil.getNextTriggerWatermark(WithOffset)`: the next slice end after `watermark`, less 1."""
        if watermark == LONG_MAX:
            return watermark
        trigger = lsub(self.slice_end(watermark, self.trigger_offset), 1)
        return trigger if trigger > watermark else ladd(trigger, self.size)


class PreAggregationHoldsRecords:
    """`pre_aggregation_watermark_starts_at=X`: a tumbling, sliding or cumulative window's records pass through the two
    phases of Flink SQL's window aggregate, each a `SliceBuffer` of slices (the size, a hop's gcd(size, slide), a
    cumulation's step) that sends
    its records on only before a watermark it acts on, its next trigger aligned on the window's offset unless
    `pre_aggregation_aligns_on_offset=False` (Flink 1.20's `getNextTriggerWatermark`, which takes no offset, in both):

    1. `LocalSlicingWindowAggOperator`, before the exchange, whose progress starts at X (a field `open` never sets):
       it holds every record, and sends them on before a watermark it acts on. A record it holds past the watermark
       that fires its window is late when it arrives.
    2. The global `WindowAggOperator`, whose progress starts at `Long.MIN_VALUE`: a record whose slice the watermark it
       acted on has fired goes on to the windows at once (`processElement`'s late path: dropped, as the DataStream
       API drops what is late for every window; a cumulation's joins the windows of its period not fired yet, as
       the operator decides window by window); any other waits in its buffer, and goes into the windows at a
       watermark it acts on, before that watermark fires them, under the watermark before (`GlobalAggCombiner`
       registers a window's timer only if that one has not fired it: a window fired already never fires again, and
       its records are dropped). Aligned on the offset, the buffer always lets a window's records in before the
       watermark that fires it; aligned on 0, a window with an offset may fire empty, and its records come too late.

    A record dropped so is dropped at its own event, as the engine reports it. After `Long.MAX_VALUE` no watermark
    releases a record: it goes straight on, to be dropped as late as the engine drops it (no firing holds it)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assigner, start = self.assigner, self.dialect.pre_aggregation_watermark_starts_at
        # the slicing windows only: `broken_rules` also builds the operator over the global window
        self.pre_aggregating = isinstance(assigner, TumblingWindows | SlidingWindows | CumulativeWindows)
        if self.pre_aggregating:  # `SliceAssigner.getSliceEndInterval`: the size, a hop's slice, a cumulation's step
            size = (assigner.size if isinstance(assigner, TumblingWindows) else assigner.step
                    if isinstance(assigner, CumulativeWindows) else gcd(assigner.size, assigner.slide))
            aligned = self.dialect.pre_aggregation_aligns_on_offset
            self.local = SliceBuffer(start, size, assigner.offset, aligned)
            self.global_ = SliceBuffer(LONG_MIN, size, assigner.offset, aligned)

    def process_element(self, key, value, timestamp):
        if not self.pre_aggregating:
            super().process_element(key, value, timestamp)
        elif self.local.progress == LONG_MAX:
            self.reach_global((self.output.at, key, value, timestamp))
        else:
            self.local.hold((self.output.at, key, value, timestamp), timestamp)

    def process_watermark(self, time):
        if self.pre_aggregating:
            for held in self.local.advance(time):
                self.reach_global(held)
            for held in self.global_.advance(time):
                self.into_windows(held)
        super().process_watermark(time)

    def reach_global(self, held):
        timestamp = held[3]
        if self.global_.fired(self.global_.slice_end(timestamp)):
            self.into_windows(held)
        else:
            self.global_.hold(held, timestamp)

    def into_windows(self, held):
        at, self.output.at = self.output.at, held[0]
        super().process_element(*held[1:])
        self.output.at = at

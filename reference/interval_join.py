"""`IntervalJoinOperator` (`org.apache.flink.streaming.api.operators.co`), as Flink 2.3 runs
`left.keyBy(k).intervalJoin(right.keyBy(k)).between(lower, upper)...process(fn)`, for one parallel instance.

How the rules follow from the operator's code (2.3 bytecode):

- The constructor checks the raw bounds, `lowerBound <= upperBound`, then makes them inclusive: an exclusive lower
  bound is `lower + 1`, an exclusive upper one `upper - 1` (Java `long` sums: they wrap at the extremes).
- Each input keeps a buffer per key, `MapState<Long, List<BufferEntry>>` by element timestamp. An element at `ts`
  of the left input joins every buffered right element whose timestamp lies in `[ts + lower, ts + upper]`; a right
  element the left ones in `[ts - upper, ts - lower]` (`processElement2` passes `-upperBound, -lowerBound`).
  Whichever of two partners arrives second emits the pair, with timestamp `max(left.ts, right.ts)`.
- An element is late when `ts < currentWatermark` (the operator's: both inputs' watermarks combined,
  `reference.watermarks.combined`). A late element is neither buffered nor joined: it goes to its input's late side
  output when that input has one, else it vanishes (the model reports it as dropped; Flink counts nothing).
- Each buffered element registers a cleanup timer, in the namespace of its input, at the last time a partner can
  come: `ts + relativeUpper` when that is positive, else `ts`. The timer removes the whole bucket of that
  timestamp. A partner at exactly that time still arrives on time (it equals the watermark) and finds the bucket
  gone: Flink loses that pair.
- A record at `Long.MIN_VALUE` (Flink's "no timestamp") fails the job.

The dialect's switches (`reference.dialects.joins`) change what lateness is judged by (`interval_join_time`), when a
buffered element goes (`interval_join_buffer_cleanup`), whether the late side outputs exist and whether
`Long.MIN_VALUE` fails; with `event_time_ends="never"` an input's `Long.MAX_VALUE` is a time one past the largest
record timestamp so far (at least 0), where an engine without an end of time puts its last heartbeat.
"""

from __future__ import annotations

from typing import Protocol

from reference.dialects import FLINK, Dialect
from reference.errors import InvalidSpec, JobFailure
from reference.javalong import LONG_MAX, LONG_MIN, ladd, lsub, wrap
from reference.timers import InternalTimer
from reference.two_input import TwoInputStreamOperator
from window_contract.join_observation import Side

BOUNDS_MESSAGE = "lowerBound <= upperBound must be fulfilled"
NO_TIMESTAMP_MESSAGE = ("Long.MIN_VALUE timestamp: Elements used in interval stream joins need to have timestamps "
                        "meaningful timestamps.")
CLEANUP_LEFT, CLEANUP_RIGHT = "CLEANUP_LEFT", "CLEANUP_RIGHT"

#: One input's buffer: key -> element timestamp -> the values at that timestamp, in arrival order.
Buffer = dict[str, dict[int, list[int]]]


class JoinOutput(Protocol):
    """Where the operator's results go: pairs, late records, and the watermarks it processes."""

    def pair(self, key: str, left: int, right: int, timestamp: int, watermark: int) -> None: ...
    def side_output(self, side: Side, key: str, value: int, timestamp: int) -> None: ...
    def drop(self, side: Side, key: str, value: int, timestamp: int) -> None: ...
    def input_watermark(self, watermark: int) -> None: ...
    def unjoined(self, side: Side, key: str, value: int, timestamp: int) -> None:
        """An element on time that joined nothing buffered when it arrived (Flink's operator tells nobody)."""


class IntervalJoinOperator(TwoInputStreamOperator):
    """`IntervalJoinOperator(lowerBound, upperBound, lowerBoundInclusive, upperBoundInclusive, leftLateDataOutputTag,
    rightLateDataOutputTag, ...)`: raises `InvalidSpec` with Flink's message when `lower > upper`; `dialect` as for
    every two-input operator (`reference.two_input`)."""

    def __init__(self, lower: int, upper: int, lower_inclusive: bool, upper_inclusive: bool, left_late_output: bool,
                 right_late_output: bool, output: JoinOutput, dialect: Dialect = FLINK) -> None:
        if lower > upper:
            raise InvalidSpec(BOUNDS_MESSAGE, "join.bounds")
        super().__init__(output.input_watermark, dialect)
        self.lower_bound = lower if lower_inclusive else ladd(lower, 1)
        self.upper_bound = upper if upper_inclusive else lsub(upper, 1)
        self.late_outputs = {"left": left_late_output, "right": right_late_output}
        self.output = output
        self.left_buffer: Buffer = {}
        self.right_buffer: Buffer = {}
        #: Each input's largest record timestamp so far (`interval_join_time="own_input_largest"`).
        self.record_time: dict[Side, int] = {"left": LONG_MIN, "right": LONG_MIN}
        #: The largest record timestamp of either input so far, at least 0 (`event_time_ends="never"`).
        self.latest = 0

    # --- elements --------------------------------------------------------------------------------

    def process_element1(self, key: str, value: int, timestamp: int) -> None:
        self.process_element(key, value, timestamp, self.left_buffer, self.right_buffer, self.lower_bound,
                             self.upper_bound, "left")

    def process_element2(self, key: str, value: int, timestamp: int) -> None:
        self.process_element(key, value, timestamp, self.right_buffer, self.left_buffer, wrap(-self.upper_bound),
                             wrap(-self.lower_bound), "right")

    def process_element(self, key: str, value: int, our_timestamp: int, our_buffer: Buffer, other_buffer: Buffer,
                        relative_lower_bound: int, relative_upper_bound: int, side: Side) -> None:
        """`IntervalJoinOperator.processElement`: buffer the element, join it with the other side's buffered
        elements in bounds, and register its cleanup timer; a late element goes to the side output instead."""
        if our_timestamp == LONG_MIN and self.dialect.interval_join_rejects_no_timestamp:
            raise JobFailure(NO_TIMESTAMP_MESSAGE, "record.no_timestamp")
        late = self.is_late(our_timestamp, side)
        if not late:
            self.forget_behind(side)
        self.record_time[side] = max(self.record_time[side], our_timestamp)
        self.latest = max(self.latest, our_timestamp)
        if late:
            self.side_output(side, key, value, our_timestamp)
            return
        our_buffer.setdefault(key, {}).setdefault(our_timestamp, []).append(value)
        lowest, highest = ladd(our_timestamp, relative_lower_bound), ladd(our_timestamp, relative_upper_bound)
        joined = False
        for timestamp, values in list(other_buffer.get(key, {}).items()):
            if timestamp < lowest or timestamp > highest:
                continue
            for other in values:
                joined = True
                if side == "left":
                    self.collect(key, value, other, our_timestamp, timestamp)
                else:
                    self.collect(key, other, value, timestamp, our_timestamp)
        if not joined:
            self.output.unjoined(side, key, value, our_timestamp)
        if self.dialect.interval_join_buffer_cleanup == "cleanup_timer":
            cleanup_time = ladd(our_timestamp, relative_upper_bound) if relative_upper_bound > 0 else our_timestamp
            self.timers.event_time_timers.add(cleanup_time, key, CLEANUP_LEFT if side == "left" else CLEANUP_RIGHT)

    def is_late(self, timestamp: int, side: Side) -> bool:
        """`IntervalJoinOperator.isLate`: `timestamp < currentWatermark` (an element at the watermark is not; the
        dialect's `late_at_watermark` makes it late), in the dialect's `interval_join_time`."""
        return self.dialect.is_late(timestamp, self.time_of(side))

    def time_of(self, side: Side) -> int:
        """The time an element of `side` is judged by: the operator's watermark, or its input's own largest time."""
        if self.dialect.interval_join_time == "combined_watermark":
            return self.timers.current_watermark
        own = self.combined_watermark.partial_watermarks[0 if side == "left" else 1].watermark
        return max(own, self.record_time[side])

    def forget_behind(self, side: Side) -> None:
        """`interval_join_buffer_cleanup="behind_own_input"`: the input's buffered elements behind its time go (when
        an element or a watermark of that input comes that is not itself behind it)."""
        if self.dialect.interval_join_buffer_cleanup == "behind_own_input":
            time = self.time_of(side)
            for buckets in (self.left_buffer if side == "left" else self.right_buffer).values():
                for timestamp in [t for t in buckets if t < time]:
                    del buckets[timestamp]

    def process_watermark(self, index: int, watermark: int) -> None:
        """`processWatermark1/2`, after the input's buffered elements behind its time go (in a dialect that forgets
        them so, unless the watermark is behind it too); `Long.MAX_VALUE` one past the largest record so far where
        event time never ends."""
        if watermark == LONG_MAX and self.dialect.event_time_ends == "never":
            watermark = self.latest + 1
        side: Side = "left" if index == 0 else "right"
        if not self.is_late(watermark, side):
            self.forget_behind(side)
        super().process_watermark(index, watermark)

    def side_output(self, side: Side, key: str, value: int, timestamp: int) -> None:
        """`sideOutput`: to the input's late output tag, or nowhere (no counter) without one (or without late side
        outputs in the dialect)."""
        if self.late_outputs[side] and self.dialect.late_side_outputs:
            self.output.side_output(side, key, value, timestamp)
        else:
            self.output.drop(side, key, value, timestamp)

    def collect(self, key: str, left: int, right: int, left_timestamp: int, right_timestamp: int) -> None:
        """`collect`: the pair's record has timestamp `max(leftTs, rightTs)`."""
        self.output.pair(key, left, right, max(left_timestamp, right_timestamp), self.timers.current_watermark)

    # --- watermarks and timers -------------------------------------------------------------------

    def on_event_time(self, timer: InternalTimer) -> None:
        """`IntervalJoinOperator.onEventTime`: remove the bucket the cleanup timer stands for."""
        time, key, namespace = timer
        if namespace == CLEANUP_LEFT:
            timestamp = time if self.upper_bound <= 0 else lsub(time, self.upper_bound)
            _remove(self.left_buffer, key, timestamp)
        else:
            timestamp = ladd(time, self.lower_bound) if self.lower_bound <= 0 else time
            _remove(self.right_buffer, key, timestamp)


def _remove(buffer: Buffer, key: str, timestamp: int) -> None:
    buckets = buffer.get(key)
    if buckets is not None:
        buckets.pop(timestamp, None)

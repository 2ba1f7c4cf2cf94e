"""The watermarks Flink makes upstream of the window operator, in a live query: the first stateful stage.

In a Flink job the watermarks a window operator receives are made before it: each input channel's
`TimestampsAndWatermarksOperator` runs the strategy's generator on that channel's records and on the task's
processing-time clock (periodic emission, idleness), and the `StatusWatermarkValve` merges the channels
(`spark_impl.watermarks`, the batch replay's fold, unchanged). That fold is one sequence over a case's events in
arrival order across keys and channels, and it touches only timestamps, statuses and the clock. So a live query runs
it once per case, in a group of its own (`transformWithState` grouped by `case_id`): it gets every event's position,
kind, channel and time (records without their key or value), keeps the fold between micro-batches (value state),
and emits each watermark the valve outputs as an event of the window operator's input, which the shards
(`spark_impl.live_shard`) then receive in the same micro-batch, every watermark to every shard.

Positions: the window operator's input has up to `stride` events at each arrival `a`: the event itself at
`a * stride` (a record, or the clock's advance, which the operator sees before the watermarks the upstream timers
emit on it), then the watermarks the fold made of it at `a * stride + 1, + 2, ...`: a record's punctuated
watermark after the record, as `TimestampsAndWatermarksOperator.processElement` emits it, and at most one
watermark a channel for a clock advance or the end of input (`stride = channels + 1`).

What a micro-batch boundary changes: nothing, as for the shards. The fold's clock is the log's own processing time
(rows of the log, as in the batch replay), never Spark's: periodic emission and idleness are decided on the clock
readings the log carries, wherever the micro-batches split it.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from pyspark.sql import Row
from pyspark.sql.streaming import StatefulProcessor

from spark_impl.frames import PROCESSING_TIME, RECORD, WATERMARK
from spark_impl.watermarks import WatermarkFold
from window_contract.case import WatermarkGenerator

#: The kinds of the log's events that only the fold reads (records, watermarks and clock advances are
#: `frames`'): a channel's status from its source (`value` 1: idle), a channel's end, the end of input.
STATUS, END_OF_CHANNEL, END_OF_INPUT = 3, 4, 5

#: The columns of a live query's events: `frames.EVENT_SCHEMA`'s and the input channel.
LIVE_EVENT_DDL = "case_id long, at long, kind byte, key string, value long, ts long, channel long"


@dataclass(frozen=True)
class Upstream:
    """What a case's channels are: how many, and the strategy's generator (None: the log's watermarks, merged by
    the valve when there are several channels)."""

    channels: int
    generator: WatermarkGenerator | None

    @property
    def stride(self) -> int:
        return self.channels + 1


def made(fold: WatermarkFold, kind: int, channel: int, value: int | None, ts: int | None) -> list[int]:
    """The watermarks the window operator receives during one event of the log."""
    if kind == RECORD:
        return fold.record(channel, ts)
    if kind == WATERMARK:
        return fold.watermark(channel, ts)
    if kind == PROCESSING_TIME:
        return fold.advance_processing_time(ts)
    if kind == STATUS:
        return fold.status(channel, value == 1)
    if kind == END_OF_CHANNEL:
        return fold.end(channel)
    assert kind == END_OF_INPUT
    return fold.end_of_input()


class FoldProcessor(StatefulProcessor):
    """One case's channels, generators and valve per group (`case_id`): see the module's docstring."""

    def __init__(self, upstream: Mapping[int, Upstream], stride: int) -> None:
        self.upstream, self.stride = dict(upstream), stride

    def init(self, handle) -> None:
        self.fold = handle.getValueState("fold", "frozen binary")

    def handleInputRows(self, grouping, rows, timerValues) -> Iterator[Row]:
        case_id = grouping[0]
        up = self.upstream[case_id]
        fold = pickle.loads(self.fold.get()[0]) if self.fold.exists() else WatermarkFold(up.channels, up.generator)
        for r in sorted(rows, key=lambda r: r.at):
            for slot, watermark in enumerate(made(fold, r.kind, r.channel, r.value, r.ts), start=1):
                yield Row(case_id=case_id, at=r.at * self.stride + slot, kind=WATERMARK, key=None, value=None,
                          ts=watermark, channel=0)
        self.fold.update((pickle.dumps(fold),))

    def close(self) -> None:
        pass

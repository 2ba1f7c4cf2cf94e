"""Watermarks that Flink makes, for a user's DataFrame at scale (`flink_windows(..., watermarks=<generator>)`).

The records carry an arrival order, an input channel and the processing time at which they arrive.
What the window operator receives is `spark_impl.watermarks`' fold (each channel's
`TimestampsAndWatermarksOperator` and generator, then `StatusWatermarkValve`), a sequential fold over
the arrival order across channels. It does not need every record:

- Every generator's watermark is a function of the largest timestamp its channel has seen, and
  `WatermarksWithIdleness` only asks whether the channel had a record since the last periodic emit
  (module docstring of `spark_impl.watermarks`). So for periodic emission the fold needs, per
  channel, the largest timestamp and the presence of records between two firings of the periodic
  timer: one aggregate per (channel, epoch), where epoch `e` holds the records that arrive after the
  `e`-th firing and before the next.
- The timer's firings depend on the clock alone: the first at the first clock value `> interval`,
  then at the first clock value `> previous firing + interval` (a timer fires once the clock has
  passed it; one firing however far the clock jumps). The clock only
  advances at a record's arrival, so the firings are found among the distinct processing times, in
  a short loop on the driver (one step per firing), and a record's epoch is the number of firings at
  or before its processing time (a join with the distinct times).
- The clock never goes back: epoch `e`'s records must all arrive before epoch `e + 1`'s. The
  aggregates give each epoch's first and last arrival, so this is checked on them, and a record
  whose processing time is behind an earlier record's periodic firing is an error naming it.

So Spark computes the aggregates in one aggregation (records never leave their partitions but as
partial aggregates), the driver folds a few rows per (channel, firing), and the watermarks come back
as a small DataFrame, positioned before the record whose processing time fired the timer. A
punctuated generator emits after every record, so there the fold takes every record, in arrival
order, on the driver: correct, and slower by the cost of bringing every record's (arrival, channel,
timestamp) to the driver.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl.javalong import add
from spark_impl.watermarks import WatermarkFold
from window_contract.case import WatermarkGenerator


class GeneratedWatermark(NamedTuple):
    """A watermark the window operator receives: right before the record `arrival` (`after` False: a
    periodic emit when that record's processing time fired the timer), right after it (`after` True:
    punctuated), or at the end of input (`arrival` None); `slot` orders those at one place."""

    arrival: int | None
    after: bool
    slot: int
    watermark: int


def timer_firings(times: np.ndarray, interval: int) -> list[int]:
    """The clock values (of the sorted distinct `times`) at which the periodic timer fires:
    `TimestampsAndWatermarksOperator` registers it at `0 + interval`, and when the clock has passed it,
    at `now + interval`."""
    fired: list[int] = []
    due = interval
    i = int(np.searchsorted(times, due, side="right"))
    while i < len(times):
        now = int(times[i])
        fired.append(now)
        due = add(now, interval)
        i = int(np.searchsorted(times, max(due, now), side="right"))  # a wrapped `due` fires at the next advance
    return fired


def generated_watermarks(records: DataFrame, generator: WatermarkGenerator, channels: int,
                         end_of_input: bool, names: dict[str, str]) -> list[GeneratedWatermark]:
    """The watermarks the window operator receives for `records` (`arrival, channel, ptime, ts`).
    `names` maps those to the user's column names, for error messages."""
    periodic = generator.interval > 0
    firings: list[int] = []
    if periodic:
        times = np.sort(records.select("ptime").distinct().toArrow().column("ptime").to_numpy())
        firings = timer_firings(times, generator.interval)
        epochs = records.sparkSession.createDataFrame(pa.table({
            "ptime": pa.array(times, pa.int64()),
            "epoch": pa.array(np.searchsorted(np.array(firings, dtype=np.int64), times, side="right"), pa.int64())}))
        records = records.join(F.broadcast(epochs), "ptime")
    else:
        records = records.select("*", F.lit(0).cast("long").alias("epoch"))
    if generator.punctuated:
        batches = records.select("channel", "epoch", F.col("ts").alias("top"), F.col("arrival").alias("first"),
                                 F.col("arrival").alias("last"))
    else:
        batches = records.groupBy("channel", "epoch").agg(
            F.max("ts").alias("top"), F.min("arrival").alias("first"), F.max("arrival").alias("last"))
    table = batches.toArrow().sort_by([("first", "ascending")])
    channel, epoch, top, first, last = (table.column(c).to_numpy()
                                        for c in ("channel", "epoch", "top", "first", "last"))
    _check(channel, epoch, first, last, channels, firings, names)

    fold, out = WatermarkFold(channels, generator), []
    starts = np.searchsorted(epoch, np.arange(len(firings) + 1), side="left")  # epochs ascend with `first`
    for e in range(len(firings) + 1):
        for i in range(starts[e], starts[e + 1] if e < len(firings) else len(epoch)):
            out += [GeneratedWatermark(int(first[i]), True, 0, w) for w in fold.record(int(channel[i]), int(top[i]))]
        if e < len(firings):
            at = int(first[starts[e + 1]])
            out += [GeneratedWatermark(at, False, j, w)
                    for j, w in enumerate(fold.advance_processing_time(firings[e]))]
    if end_of_input:
        out += [GeneratedWatermark(None, False, j, w) for j, w in enumerate(fold.end_of_input())]
    return out


def _check(channel, epoch, first, last, channels: int, firings: list[int], names: dict[str, str]) -> None:
    """Channels in range; the clock never goes back (each epoch arrives after the one before)."""
    bad = np.flatnonzero((channel < 0) | (channel >= channels))
    if len(bad):
        i = bad[0]
        raise ValueError(f"{names['channel']} {channel[i]} of the record with {names['arrival']} {first[i]} is "
                         f"outside 0..{channels - 1} (channels={channels})")
    if len(epoch) and np.any(np.diff(epoch) < 0):
        i = int(np.flatnonzero(np.diff(epoch) < 0)[0]) + 1
        raise ValueError(
            f"{names['processing_time']} goes back: the record with {names['arrival']} {first[i]} arrives after "
            f"the periodic watermark timer fired at {firings[int(epoch[i - 1]) - 1]} but has an earlier "
            "processing time (the processing-time clock only moves forward)")
    if len(epoch) > 1:
        last_before = np.maximum.accumulate(last)[:-1]
        overlap = np.flatnonzero((epoch[1:] != epoch[:-1]) & (first[1:] <= last_before))
        if len(overlap):
            i = int(overlap[0]) + 1
            raise ValueError(
                f"{names['processing_time']} goes back: a record after {names['arrival']} {first[i]} has a "
                f"processing time before the periodic watermark timer that fired at {firings[int(epoch[i]) - 1]} "
                "(the processing-time clock only moves forward)")

"""Replay your own events through Flink's window semantics, as DataFrames in and out.

    from window_contract import sliding
    from spark_impl import BoundedOutOfOrderness, flink_windows

    out = flink_windows(events, sliding(10_000, 1_000), allowed_lateness=5_000,
                        watermarks=BoundedOutOfOrderness(bound=2_000, every=1_000))
    out.firings.show()   # key, window_start, window_end, timestamp, values, watermark, arrival, cause
    out.late.show()      # key, ts, payload, arrival (the late-data side output)

`events` has a key, an event timestamp (`long` milliseconds), a payload of any type and an arrival
order (a `long`, unique per event: the order in which the window operator sees the records). The
watermarks are either explicit (a DataFrame of `arrival, watermark`: the watermark is emitted right
after the record with that arrival value) or a rule, `BoundedOutOfOrderness(bound, every)`: Flink's
`BoundedOutOfOrdernessWatermarks` emitting `max timestamp seen - bound - 1` after every `every`
records. The input is bounded: after the last event comes `Watermark(Long.MAX_VALUE)`
(`end_of_input=False` leaves it out).

Or Flink makes the watermarks: `watermarks` is a generator of the case format
(`BoundedOutOfOrdernessWatermarks`, `MonotonousWatermarks`, the legacy extractors, with `interval`,
`punctuated`, `idleness`), one per input channel (`channel`, `channels`), driven by the records'
processing time (`processing_time`) and merged by the valve: `spark_impl.generated` derives how, and
the watermarks come back as a small DataFrame at their places in the arrival order.

What comes out is what Flink's window operator would emit: one firing per call of the window
function, with the window's contents (payloads in arrival order) and the watermark at that moment,
and the late records (side output) or dropped ones. `arrival` and `cause` say when: during the record
with that arrival value, during the watermark emitted after it, or at the end of input.

Keys are compared as strings. The relational pipeline needs timestamps in (-2^62, 2^62); a query meeting
a timestamp outside fails with a message saying so (Flink itself fails on `Long.MIN_VALUE`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from pyspark import StorageLevel
from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql.types import IntegralType

from spark_impl.frames import RECORD, WATERMARK
from spark_impl.generated import generated_watermarks
from spark_impl.grouped import simulated_outputs, truncate_at_errors
from spark_impl.implementation import is_relational
from spark_impl.javalong import LONG_MAX, LONG_MIN
from spark_impl.relational import relational_outputs, window_parameters
from spark_impl.spec import invalid_spec_message, operator_spec
from window_contract.case import GENERATORS, Case, EvictorSpec, TriggerSpec, WatermarkGenerator, WindowSpec

STREAM = 0  # the case id of the user's one stream in the shared pipeline
END_AT = LONG_MAX  # the internal position of the end of input
#: At most this many channels: the end of input's watermarks take the positions from `END_AT - MAX_CHANNELS`.
MAX_CHANNELS = 2**16


@dataclass(frozen=True)
class BoundedOutOfOrderness:
    """`WatermarkStrategy.forBoundedOutOfOrderness(bound)`, emitted after every `every` records."""

    bound: int
    every: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.bound <= LONG_MAX:
            raise ValueError(f"BoundedOutOfOrderness.bound must be >= 0 and a Java long, not {self.bound}")
        if self.every < 1:
            raise ValueError(f"BoundedOutOfOrderness.every must be >= 1, not {self.every}")


class WindowOutputs(NamedTuple):
    """What the window operator emitted; `errors` has a row if the Flink job would have failed.

    Each of the four DataFrames computes what it needs when it is read: to read more than one, `persist()`
    first, and what they share is computed once, for the first of them. To read one of them more than once,
    persist it.
    """

    firings: DataFrame
    late: DataFrame
    dropped: DataFrame
    errors: DataFrame
    outputs: DataFrame  # the operator's outputs, one schema for every kind, that the four are split from
    #: What more than one of the four reads: the relational pipeline's small frames (`RelationalOutputs`), so that
    #: the firings' windows go straight to where they are written; a replay's outputs, which it computes together.
    shared: tuple[DataFrame, ...]

    def persist(self, level: StorageLevel = StorageLevel.DISK_ONLY) -> WindowOutputs:
        """Keeps what the four share (`shared`) at `level` once computed.

        On disk by default: a replay's outputs are read once by each of the four, and a partition of them can be
        larger than the heap can copy. A `MEMORY_AND_DISK` block that went to disk is read back into one heap
        buffer, so `replay_job.py` ran out of a 6 GB heap at 100M records on 8 partitions; `DISK_ONLY` streams
        it."""
        for frame in self.shared:
            frame.persist(level)
        return self

    def unpersist(self) -> None:
        for frame in self.shared:
            frame.unpersist()


def flink_windows(events: DataFrame, window: WindowSpec, *,
                  watermarks: DataFrame | BoundedOutOfOrderness | WatermarkGenerator,
                  trigger: TriggerSpec | None = None, evictor: EvictorSpec | None = None,
                  allowed_lateness: int = 0, late_side_output: bool = True, end_of_input: bool = True,
                  key: str = "key", timestamp: str = "ts", payload: str = "payload",
                  arrival: str = "arrival", channel: str | None = None, channels: int = 1,
                  processing_time: str | None = None) -> WindowOutputs:
    """The outputs of Flink's window operator on `events` (see the module docstring).

    Raises `ValueError` with Flink's message for a specification Flink rejects at job build.
    """
    generator = watermarks if isinstance(watermarks, tuple(GENERATORS)) else None
    if not 1 <= channels <= MAX_CHANNELS:
        raise ValueError(f"channels must be in 1..{MAX_CHANNELS}, not {channels}")
    if generator is None and (channel is not None or channels != 1 or processing_time is not None):
        raise ValueError("channel, channels and processing_time need a watermark generator "
                         "(watermarks=BoundedOutOfOrdernessWatermarks(...) etc. from window_contract.case)")
    spec_case = Case(window=window, trigger=trigger, evictor=evictor, allowed_lateness=allowed_lateness,
                     late_side_output=late_side_output, end_of_input=end_of_input, channels=channels,
                     watermark_generator=generator)
    message = invalid_spec_message(spec_case)
    if message is not None:
        raise ValueError(message)
    if generator is not None and generator.interval > 0 and processing_time is None:
        raise ValueError(f"periodic watermark emission (interval={generator.interval}) needs the events' "
                         "processing time: processing_time='<column>' (or interval=0)")
    for name in (key, timestamp, payload, arrival, channel, processing_time):
        if name is not None and name not in events.columns:
            raise ValueError(f"events has no column {name!r} (columns: {', '.join(events.columns)})")
    # A payload of integral type rides along as the value; any other is fetched back by arrival.
    by_value = isinstance(events.schema[payload].dataType, IntegralType)
    at = _Positions(channels + 2 if generator is not None else 2, channels if generator is not None else 0)
    records = events.select(
        F.lit(STREAM).cast("long").alias("case_id"), at.of_record(F.col(arrival).cast("long")).alias("at"),
        F.lit(RECORD).cast("byte").alias("kind"), F.col(key).cast("string").alias("key"),
        (F.col(payload) if by_value else F.col(arrival)).cast("long").alias("value"),
        F.col(timestamp).cast("long").alias("ts"))
    if generator is not None:  # the end of input is among the generated watermarks
        inputs = events.select(F.col(arrival).cast("long").alias("arrival"),
                               (F.col(channel) if channel else F.lit(0)).cast("long").alias("channel"),
                               (F.col(processing_time) if processing_time else F.lit(0)).cast("long").alias("ptime"),
                               F.col(timestamp).cast("long").alias("ts"))
        names = {"arrival": arrival, "channel": channel or "channel", "processing_time": processing_time or ""}
        marks = generated_watermarks(inputs, generator, channels, end_of_input, names)
        rows = [(STREAM, at.of_generated(m), WATERMARK, None, None, m.watermark) for m in marks]
        stream = records.unionByName(events.sparkSession.createDataFrame(
            rows, "case_id long, at long, kind byte, key string, value long, ts long"))
    else:
        stream = records.unionByName(_watermark_events(records, watermarks))
    if generator is None and end_of_input:  # at END_AT, after every other event
        end = events.sparkSession.range(1).select(
            F.lit(STREAM).cast("long").alias("case_id"), F.lit(END_AT).alias("at"),
            F.lit(WATERMARK).cast("byte").alias("kind"), F.lit(None).cast("string").alias("key"),
            F.lit(None).cast("long").alias("value"), F.lit(LONG_MAX).alias("ts"))
        stream = stream.unionByName(end)
    op = operator_spec(spec_case)
    if is_relational(spec_case):
        params = {**window_parameters(op.assigner), "lateness": allowed_lateness}
        stream = stream.select("*", *(F.lit(v).cast("long").alias(k) for k, v in params.items()),
                               F.lit(late_side_output).alias("side_output"))
        outputs, shared = relational_outputs(stream, gaps=params["size"] < params["slide"])
    else:  # only a replay can fail at run time (the relational pipeline fails the query instead)
        outputs = truncate_at_errors(simulated_outputs(stream, {STREAM: op}))
        shared = (outputs,)
    return _shape(outputs, shared, at, None if by_value else events.select(
        (F.col(arrival).cast("long")).alias("_handle"), F.col(payload).alias("_payload")))


@dataclass(frozen=True)
class _Positions:
    """Internal positions (`at`): the record `arrival` at `arrival * stride + record`, the watermarks
    just before it below, just after it above; the end of input from `END_AT - MAX_CHANNELS` on.
    Explicit and `BoundedOutOfOrderness` watermarks: stride 2, record slot 0, the watermark at 1.
    Generated: before the record one slot per channel (a periodic emit raises the valve's output at
    most once per channel), the record, one slot after it (punctuated)."""

    stride: int
    record: int

    def of_record(self, arrival: Column) -> Column:
        return arrival * self.stride + self.record

    def of_generated(self, mark) -> int:
        if mark.arrival is None:
            return END_AT - MAX_CHANNELS + mark.slot
        return mark.arrival * self.stride + (self.record + 1 if mark.after else mark.slot)

    def when(self) -> list[Column]:
        """`arrival, cause` of the internal position in column `at`."""
        at = F.col("at")
        end = at >= F.lit(END_AT - MAX_CHANNELS)
        slot = F.pmod(at, F.lit(self.stride))
        return [F.when(~end, F.expr(f"at div {self.stride}")).alias("arrival"),
                F.when(end, "end_of_input").when(slot == self.record, "record").otherwise("watermark")
                .alias("cause")]


def _watermark_events(records: DataFrame, watermarks: DataFrame | BoundedOutOfOrderness) -> DataFrame:
    """Watermark events at odd positions: `2 * arrival + 1` is right after the record `arrival`."""
    if isinstance(watermarks, BoundedOutOfOrderness):
        marks = _bounded_out_of_orderness(records, watermarks)
    else:
        for name in ("arrival", "watermark"):
            if name not in watermarks.columns:
                raise ValueError(f"watermarks has no column {name!r} (it needs arrival, watermark)")
        marks = watermarks.select(F.lit(STREAM).cast("long").alias("case_id"),
                                  (F.col("arrival").cast("long") * 2 + 1).alias("at"),
                                  F.col("watermark").cast("long").alias("ts"))
    return marks.select("case_id", "at", F.lit(WATERMARK).cast("byte").alias("kind"),
                        F.lit(None).cast("string").alias("key"), F.lit(None).cast("long").alias("value"),
                        "ts")


def _bounded_out_of_orderness(records: DataFrame, rule: BoundedOutOfOrderness) -> DataFrame:
    """`case_id, at, ts` of the watermarks: after records `every`, `2 * every`, ... in arrival order,
    `max(timestamp so far, Long.MIN_VALUE + bound + 1) - bound - 1` (`BoundedOutOfOrdernessWatermarks`).

    A watermark needs the arrival rank of a record and the running max of the timestamps before it.
    When the arrivals are consecutive (the usual log: a row number), the rank is the arrival itself, and
    no record is ordered (`_in_blocks`); otherwise the records are scanned in arrival order
    (`_in_buckets`). Which of the two is one small Spark job (count, min, max).
    """
    span = records.agg(F.count("*").alias("n"), F.min("at").alias("lo"), F.max("at").alias("hi")).first()
    if span["n"] and span["hi"] - span["lo"] == 2 * (span["n"] - 1):  # records at even positions
        return _in_blocks(records, rule, first=span["lo"], count=span["n"])
    return _in_buckets(records, rule)


def _highest_minus_bound(highest: Column, rule: BoundedOutOfOrderness) -> Column:
    """`BoundedOutOfOrdernessWatermarks.onPeriodicEmit`: `maxTimestamp - outOfOrdernessMillis - 1`, where the
    max starts at `Long.MIN_VALUE + outOfOrdernessMillis + 1`."""
    return F.greatest(highest, F.lit(LONG_MIN + rule.bound + 1)) - rule.bound - 1


def _in_blocks(records: DataFrame, rule: BoundedOutOfOrderness, *, first: int, count: int) -> DataFrame:
    """The watermarks of records at consecutive positions from `first`: the records fall into blocks of
    `every` by position alone, each block's max timestamp is one hash aggregate, and a running max over the
    few blocks gives each watermark, right after its block's last record."""
    width = 2 * rule.every
    blocks = (records.groupBy("case_id", F.expr(f"(at - {first}) div {width}").alias("_block"))
              .agg(F.max("ts").alias("_top")).filter(F.col("_block") < count // rule.every))
    upto = Window.partitionBy("case_id").orderBy("_block").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    return blocks.select("case_id", (F.lit(first + width - 1) + F.col("_block") * width).alias("at"),
                         _highest_minus_bound(F.max("_top").over(upto), rule).alias("ts"))


#: Arrival-order scans split each stream's arrival range into about this many buckets.
ARRIVAL_BUCKETS = 1024


def _in_buckets(records: DataFrame, rule: BoundedOutOfOrderness) -> DataFrame:
    """The watermarks of records at any positions, by a scan in arrival order.

    The record count and the running max in arrival order are prefix scans. Rather than order every
    record in one partition, the arrival range is cut into `ARRIVAL_BUCKETS` buckets of equal width:
    each bucket is scanned on its own, and what the buckets before it hold (how many records, their
    max timestamp) comes from a running sum and max over the per-bucket totals, which are few.
    """
    stats = records.groupBy("case_id").agg(
        F.expr(f"min(at) div {ARRIVAL_BUCKETS}").alias("_lo"), F.expr(f"max(at) div {ARRIVAL_BUCKETS}").alias("_hi"))
    # `div` truncates: hi - lo + 1 cannot overflow, and at div width grows with at.
    bucketed = records.join(stats, "case_id").select(
        "case_id", "at", "ts", F.expr("at div (_hi - _lo + 1)").alias("_bucket"))
    in_bucket = Window.partitionBy("case_id", "_bucket").orderBy("at")
    scanned = bucketed.select("*", F.row_number().over(in_bucket).alias("_n"),
                              F.max("ts").over(in_bucket).alias("_max"))
    before = Window.partitionBy("case_id").orderBy("_bucket").rowsBetween(Window.unboundedPreceding, -1)
    carried = (bucketed.groupBy("case_id", "_bucket").agg(F.count("*").alias("_count"), F.max("ts").alias("_top"))
               .select("case_id", "_bucket", F.coalesce(F.sum("_count").over(before), F.lit(0)).alias("_offset"),
                       F.max("_top").over(before).alias("_carry")))
    ends = (scanned.join(carried, ["case_id", "_bucket"])
            .filter((F.col("_offset") + F.col("_n")) % rule.every == 0))
    highest = F.greatest(F.col("_max"), F.col("_carry"))
    return ends.select("case_id", (F.col("at") + 1).alias("at"), _highest_minus_bound(highest, rule).alias("ts"))


def _shape(outputs: DataFrame, shared: tuple[DataFrame, ...], at: _Positions,
           payloads: DataFrame | None) -> WindowOutputs:
    firings = outputs.filter(F.col("kind") == "firing")
    if payloads is not None:  # handles (arrival values) back to payloads, keeping arrival order
        firings = (firings.select("*", F.posexplode("values").alias("_pos", "_handle"))
                   .join(payloads, "_handle")
                   .groupBy("at", "key", "window_start", "window_end", "timestamp", "watermark")
                   .agg(F.transform(F.sort_array(F.collect_list(F.struct("_pos", "_payload"))),
                                    lambda e: e["_payload"]).alias("values")))
    records = [F.col("key"), F.col("ts"), F.col("value").alias("payload"), *at.when()]
    late = outputs.filter(F.col("kind") == "late")
    dropped = outputs.filter(F.col("kind") == "dropped")
    if payloads is not None:
        late, dropped = ((df.join(payloads, F.col("value") == F.col("_handle"))
                          .withColumn("value", F.col("_payload"))) for df in (late, dropped))
    return WindowOutputs(
        firings.select("key", "window_start", "window_end", "timestamp", "values", "watermark",
                       *at.when()),
        late.select(*records), dropped.select(*records),
        outputs.filter(F.col("kind") == "error").select(F.col("message"), *at.when()), outputs, shared)

"""Flink's windows live on Spark Structured Streaming: the replay's semantics as a streaming query.

    from window_contract import tumbling
    from spark_impl.live import flink_windows_live

    out = flink_windows_live(stream, tumbling(10_000), allowed_lateness=2_000)
    out.firings.writeStream.outputMode("append").format("parquet").option("path", ...).start()

`stream` is a streaming DataFrame of the log as the window operator sees it: records (`key`, `ts`, an integral
`payload`, a unique `arrival`) and the log's watermarks as rows of their own (`watermark` set, the rest null but
`arrival`), in arrival order across micro-batches (within a micro-batch, any order: it is sorted by `arrival`). Or
Flink makes the watermarks: `watermarks=` the job's generator, one per input channel (`channels`, `channel`), on the
log's clock (rows with `processing_time` set), which processing-time triggers and windows also run on. What comes
out is what the batch replay (`spark_impl.api.flink_windows`) gives on the same log, row for row, whatever the
micro-batch boundaries: firings, late and dropped records, the failure Flink would have had and the watermarks the
operator received, each with the `arrival` during which it happened, the `slot` of the event at that arrival and
`seq`, the key's outputs during that arrival numbered from 0 (the firing order per key, which a sink's rows need
not keep).

How (derived in `spark_impl.live_shard`): Flink's watermark is one for all keys, and a keyed stateful operator sees
one key at a time. So the keys are cut into `shards` (`hash(key) mod shards`), and every watermark row is sent to
every shard: a shard is one group of `transformWithState` (Spark 4.1's keyed stateful processor, here
row-based: Python ints keep Java longs exact), whose state is each of its keys' Flink operator (map state), removed
once Flink holds nothing for the key, and the shard's clocks and timer queue (value state). A micro-batch hands
each shard its records and all the watermarks of the batch, which it applies in arrival order. Watermarks Flink
makes come from a stage before the shards (`spark_impl.live_fold`), in the same micro-batch.

The output is append-only: a row is emitted once, when Flink would emit it, so `outputMode("append")` writes it to
any sink. Spark's own watermark and processing time are not used (`timeMode="None"`): the log's watermarks and clock
readings are data. Spark's processing time could not stand for Flink's: one reading for a whole micro-batch, timers
fired only between micro-batches, and readings that depend on when micro-batches run (docs/spark.md).
"""

from __future__ import annotations

import pickle
from collections.abc import Collection, Iterator, Mapping
from typing import NamedTuple

from pyspark.sql import Column, DataFrame, Row
from pyspark.sql import functions as F
from pyspark.sql.streaming import StatefulProcessor
from pyspark.sql.types import IntegralType

from spark_impl.api import MAX_CHANNELS
from spark_impl.frames import OUTPUT_DDL, PROCESSING_TIME, RECORD, WATERMARK
from spark_impl.live_fold import LIVE_EVENT_DDL, FoldProcessor, Upstream
from spark_impl.live_shard import Clocks, ShardOperator, thaw
from spark_impl.spec import OperatorSpec, invalid_spec_message, operator_spec
from window_contract.case import Case, EvictorSpec, TriggerSpec, WatermarkGenerator, WindowSpec

#: The operator's output rows: `frames.OUTPUT_SCHEMA`, the event at the arrival and the key's output number in it.
LIVE_OUTPUT_DDL = OUTPUT_DDL + ", slot long, seq long"
OUTPUT_NAMES = [part.split()[0] for part in LIVE_OUTPUT_DDL.split(", ")]
#: The state store `transformWithState` needs (Spark 4.3 refuses the default one, HDFS-backed).
STATE_STORE = ("spark.sql.streaming.stateStore.providerClass",
               "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
#: The case id of the user's one stream (the suite runs many cases in one query, `spark_impl.live_implementation`).
STREAM = 0


class ShardProcessor(StatefulProcessor):
    """One shard of one case's keys per group (`case_id, shard`): see the module's docstring. The cases whose
    watermarks Flink makes (`upstream`) have their positions `stride` apart, and their shard 0 reports the
    watermarks it receives."""

    def __init__(self, specs: Mapping[int, OperatorSpec], upstream: Collection[int], stride: int) -> None:
        self.specs, self.upstream, self.stride = dict(specs), frozenset(upstream), stride

    def init(self, handle) -> None:
        self.operators = handle.getMapState("operators", "key string", "frozen binary")
        self.clocks = handle.getValueState("clocks", "frozen binary")

    def handleInputRows(self, grouping, rows, timerValues) -> Iterator[Row]:
        case_id, shard_number = grouping
        clocks = pickle.loads(self.clocks.get()[0]) if self.clocks.exists() else Clocks()
        spec = self.specs[case_id]

        def load(key: str):
            frozen = self.operators.getValue((key,))
            return None if frozen is None else thaw(frozen[0], spec, key)

        shard = ShardOperator(spec, clocks, load, stride=self.stride,
                              reports_watermarks=shard_number == 0 and case_id in self.upstream)
        shard.apply((r.at, r.kind, r.key, r.value, r.ts) for r in rows)
        outputs = shard.outputs(case_id)
        for key, frozen in shard.stored().items():
            if frozen is None:
                self.operators.removeKey((key,))
            else:
                self.operators.updateValue((key,), (frozen,))
        self.clocks.update((pickle.dumps(clocks),))
        for row in outputs:
            yield Row(**{name: row.get(name) for name in OUTPUT_NAMES})

    def close(self) -> None:
        pass


def live_outputs(events: DataFrame, specs: Mapping[int, OperatorSpec], shards: int,
                 upstream: Mapping[int, Upstream] | None = None) -> DataFrame:
    """The operator's outputs (`LIVE_OUTPUT_DDL`) on a stream of events (`live_fold.LIVE_EVENT_DDL`'s columns), each
    case run by its spec, its keys in `shards` shards; the cases of `upstream` with their watermarks made by Flink
    (generators, channels: `spark_impl.live_fold`), the others with the log's."""
    name, provider = STATE_STORE
    if events.sparkSession.conf.get(name, None) != provider:
        raise ValueError(f"the session's {name} must be {provider} (transformWithState keeps its state there): "
                         f"spark.conf.set({name!r}, {provider!r})")
    upstream = dict(upstream or {})
    stride = max((up.stride for up in upstream.values()), default=1)
    made = F.col("case_id").isin(list(upstream)) if upstream else F.lit(False)
    direct = events.filter(~made | F.col("kind").isin(RECORD, PROCESSING_TIME)).withColumn(
        "at", F.col("at") * stride)
    if upstream:
        folded = (events.filter(made).select("case_id", "at", "kind", "value", "ts", "channel").groupBy("case_id")
                  .transformWithState(FoldProcessor(upstream, stride), LIVE_EVENT_DDL, "Append", "None"))
        direct = direct.unionByName(folded)
    shard = F.explode(F.when(F.col("kind") == RECORD, F.array(F.pmod(F.hash("key"), F.lit(shards))))
                      .otherwise(F.sequence(F.lit(0), F.lit(shards - 1)))).alias("shard")
    return (direct.select("*", shard).groupBy("case_id", "shard")
            .transformWithState(ShardProcessor(specs, upstream, stride), LIVE_OUTPUT_DDL, "Append", "None"))


class LiveOutputs(NamedTuple):
    """Streaming DataFrames of what the window operator emits, each written with `outputMode("append")`. Each
    started query runs the operator with a state of its own: to write more than one, start one query on `outputs`
    whose `foreachBatch` splits each micro-batch (`outputs_by_kind`)."""

    firings: DataFrame
    late: DataFrame
    dropped: DataFrame
    errors: DataFrame
    watermarks: DataFrame  # the watermarks the operator received, when Flink makes them (a generator, channels)
    outputs: DataFrame  # one schema for every kind, that the others are split from


def flink_windows_live(stream: DataFrame, window: WindowSpec, *, trigger: TriggerSpec | None = None,
                       evictor: EvictorSpec | None = None, allowed_lateness: int = 0, late_side_output: bool = True,
                       watermarks: WatermarkGenerator | None = None, channels: int = 1,
                       key: str = "key", timestamp: str = "ts", payload: str = "payload", arrival: str = "arrival",
                       watermark: str | None = "watermark", processing_time: str | None = None,
                       channel: str | None = None, shards: int | None = None) -> LiveOutputs:
    """Flink's window operator on `stream` (see the module's docstring). `shards` (default: the session's
    `spark.sql.shuffle.partitions`) must stay the same for the life of a query's checkpoint.

    Raises `ValueError` with Flink's message for a specification Flink rejects at job build, and for a column
    missing or of the wrong type."""
    if not 1 <= channels <= MAX_CHANNELS:
        raise ValueError(f"channels must be in 1..{MAX_CHANNELS}, not {channels}")
    if watermarks is not None and watermark is not None:
        raise ValueError("with a watermark generator Flink makes the watermarks: the log has no watermark rows "
                         "(watermark=None)")
    if channels > 1 and channel is None:
        raise ValueError(f"channels={channels} needs the records' input channel: channel='<column>'")
    spec_case = Case(window=window, trigger=trigger, evictor=evictor, allowed_lateness=allowed_lateness,
                     late_side_output=late_side_output, channels=channels, watermark_generator=watermarks)
    message = invalid_spec_message(spec_case)
    if message is not None:
        raise ValueError(message)
    columns = {"key": key, "timestamp": timestamp, "payload": payload, "arrival": arrival, "watermark": watermark,
               "processing_time": processing_time, "channel": channel}
    for role, name in columns.items():
        if name is None:
            continue
        if name not in stream.columns:
            raise ValueError(f"stream has no column {name!r} (columns: {', '.join(stream.columns)})")
        found = stream.schema[name].dataType
        if role != "key" and not isinstance(found, IntegralType):
            raise ValueError(f"the {role} column {name!r} must be integral (a long), not {found}")
    if shards is None:
        shards = int(stream.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    if shards < 1:
        raise ValueError(f"shards must be >= 1, not {shards}")
    def given(name: str | None) -> Column:
        return F.col(name).isNotNull() if name else F.lit(False)

    def failure(message: str, *values: Column) -> Column:
        """The query's failure on a row it cannot take, in one line naming the row's arrival."""
        return F.raise_error(F.concat(F.lit("arrival "), F.col(arrival).cast("string"), F.lit(f": {message}"),
                                      *(F.coalesce(v.cast("string"), F.lit("null")) for v in values)))

    is_record, is_watermark, is_clock = given(key), given(watermark), given(processing_time)
    roles = [f"a record ({key!r} set)"] + [f"{role} ({name!r} set)" for role, name in (
        ("a watermark", watermark), ("a clock reading", processing_time)) if name]
    kind = (F.when(is_record & ~is_watermark & ~is_clock, RECORD).when(is_watermark & ~is_record & ~is_clock, WATERMARK)
            .when(is_clock & ~is_record & ~is_watermark, PROCESSING_TIME)
            .otherwise(failure(f"a row of the log is exactly one of {', '.join(roles)}")))
    in_channel = F.col(channel).cast("long") if channel else F.lit(0).cast("long")
    events = stream.select(
        F.lit(STREAM).cast("long").alias("case_id"), F.col(arrival).cast("long").alias("at"),
        kind.cast("byte").alias("kind"), F.when(is_record, F.col(key).cast("string")).alias("key"),
        F.when(is_record, F.col(payload).cast("long")).alias("value"),
        F.when(is_watermark, F.col(watermark) if watermark else None)
        .when(is_clock, F.col(processing_time) if processing_time else None).otherwise(F.col(timestamp))
        .cast("long").alias("ts"),
        F.when(is_clock, 0).when(in_channel.between(0, channels - 1), in_channel)
        .otherwise(failure(f"the channel column {channel!r} must be in 0..{channels - 1}, not ", in_channel))
        .alias("channel"))
    upstream = {STREAM: Upstream(channels, watermarks)} if spec_case.observes_watermarks else {}
    outputs = live_outputs(events, {STREAM: operator_spec(spec_case)}, shards, upstream)
    return LiveOutputs(*outputs_by_kind(outputs), outputs)


def outputs_by_kind(outputs: DataFrame) -> tuple[DataFrame, DataFrame, DataFrame, DataFrame, DataFrame]:
    """The firings, late records, dropped records, errors and the watermarks the operator received (when Flink makes
    them: a generator, channels) of `outputs` (`LiveOutputs.outputs`, streaming, or one micro-batch of it in
    `foreachBatch`), each with the `arrival` during which it happened, the `slot` of the event at it (0 the log's
    own, 1, 2, ... the watermarks made after it) and the key's `seq` (its outputs during the arrival, from 0)."""
    when = [F.col("at").alias("arrival"), "slot", "seq"]
    records = [F.col("key"), F.col("ts"), F.col("value").alias("payload"), *when]
    return (outputs.filter(F.col("kind") == "firing").select("key", "window_start", "window_end", "timestamp",
                                                             "values", "watermark", *when),
            outputs.filter(F.col("kind") == "late").select(*records),
            outputs.filter(F.col("kind") == "dropped").select(*records),
            outputs.filter(F.col("kind") == "error").select("message", "key", *when),
            outputs.filter(F.col("kind") == "watermark").select("watermark", *when))

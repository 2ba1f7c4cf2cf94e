"""Spark Structured Streaming's own event-time windows, driven micro-batch by micro-batch (`spark-streaming`,
issue 14).

A Flink job `keyBy(key).window(assigner)` with its default trigger becomes the streaming query

    records.withWatermark("ts", delay)  ->  groupBy(key, window(ts, size, slide, offset) | session_window(ts, gap))
            .agg(collect_list(record))  ->  append output mode

This module is not `spark_impl/` (which reproduces Flink on Spark batch jobs): it asks Spark's streaming
engine what it does with the case, and reports that. Spark's rules, as its streaming engine states them
(`EventTimeWatermarkExec`, `WatermarkTracker`, `StateStoreSaveExec`):

- the watermark is computed once a micro-batch has run: `max(event time seen) - delay`, kept when higher;
  it starts at 0. A micro-batch drops the window rows whose `window.end <= watermark` (late) and, in append
  mode, emits and forgets every window whose `window.end <= watermark`; when a batch raises the watermark,
  Spark runs one more batch without data to emit the windows it closes;
- Flink's `forBoundedOutOfOrderness(bound)` emits `max - bound - 1` and fires a window once the watermark
  reaches `end - 1`: `withWatermark(bound ms)` closes the same windows at the same record (`end <= max -
  bound` in both), with a watermark one higher than Flink's. That is the mapping, and the watermark Spark
  reports is the one this adapter reports. `forMonotonousTimestamps()` is `withWatermark(0 ms)`;
- Flink's punctuated generator emits after every record: the case becomes one micro-batch per record that
  raises the largest timestamp so far (a record that does not raise it leaves the watermark where it was,
  so it may share the next record's micro-batch);
- a case whose watermarks are listed (no generator) takes them from a second stream of watermark rows with
  `withWatermark(ts, 0 ms)`, beside the records' stream whose delay is so large that its own watermark never
  counts, under `spark.sql.streaming.multipleWatermarkPolicy=max`: an explicit `Watermark(w)` makes Spark's
  watermark `w`. The records since the previous watermark and the watermark row are one micro-batch;
- the end of a bounded input (Flink's `Watermark(Long.MAX_VALUE)`) is a watermark row at `END_OF_INPUT`:
  Spark has no end of input, and this is how its watermark learns that time has moved on; the windows it
  closes are reported with Flink's `Long.MAX_VALUE` as their watermark;
- Spark names neither the records it drops nor when it emitted a row except by micro-batch, so the
  adapter is position-free (every `at` is `None`): a firing's watermark is Spark's watermark after the
  micro-batches that emitted it, and a record of a bounded case that no window emitted was dropped.
  A firing's timestamp is `window_time(window)` (`end` minus one microsecond) in milliseconds, rounded down.

Errors: what Spark rejects when the query is defined or started is the case's `invalid_spec`, what fails a
micro-batch is its `runtime` error, each with Spark's own first line. Spark's watermark is global to a query,
so every case is a query of its own; `CONCURRENT_QUERIES` of them run side by side in one session, driven
in lock step.

Too many windows: Spark's `window(ts, size, slide)` plans `ceil(size / slide)` windows for every row (the
analyzer's `TimeWindowing` expands each row by one projection a window, then filters), before any data; tens of
thousands of them take gigabytes of the driver's heap and minutes, and more than `MAX_WINDOW_NUM`
(10,000,000), which Flink rejects, run the driver out of memory and take the session down with it. A case
whose sliding window plans more than the contract's `WINDOWS_PER_ELEMENT_LIMIT` windows a row is therefore
stopped before its query is built, with the contract's `runtime` error `TOO_MANY_WINDOWS`, and nothing is
observed, watermarks neither: Flink gives a record `floor` or `ceil(size / slide)` windows, so the contract stops
such a case at its first record too (but where `floor(size / slide)` is the limit itself, or there is no record).

Not declared, so never sent here: triggers (append mode emits once, at the watermark), allowed lateness and
the late side output (Spark drops late rows and says only how many), periodic emission (Spark's trigger
interval is wall-clock time), idleness and channels, the global and count windows, cases without end of
input (windows still open are state Spark does not show), and extreme values (Spark's timestamps are
microseconds in a `long`).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from engines.spark_streaming_queries import (
    END_OF_INPUT,
    memory_stream,
    milliseconds,
    processed_watermark,
    run_pooled,
    spark_message,
)
from window_contract.case import (
    BoundedOutOfOrdernessWatermarks,
    Case,
    MonotonousWatermarks,
    Record,
    Session,
    Sliding,
    Tumbling,
    Watermark,
)
from window_contract.facts import LONG_MAX, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.join_case import JoinCase
from window_contract.join_observation import JoinObservation
from window_contract.observation import Error, Firing, InputWatermark, LateRecord, Observation, TimeWindow

#: The joins (`engines.spark_streaming_joins`, which says why these).
JOIN_FEATURES = frozenset({"join.interval", "join.sql_interval"})
FEATURES = frozenset({
    "assigner.tumbling", "assigner.sliding", "assigner.session", "offset", "negative_timestamps",
    "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.punctuated",
})

#: The delay of the records' own watermark in a case whose watermarks are listed: so large that it stays
#: below 0, where Spark's watermark starts (it keeps the highest of its watermarks, `MultipleWatermarkPolicy.max`).
RECORDS_DELAY_WHEN_LISTED = END_OF_INPUT
SESSION_CONF = {
    "spark.sql.streaming.multipleWatermarkPolicy": "max",
    "spark.sql.streaming.forceDeleteTempCheckpointLocation": "true",
    "spark.sql.streaming.noDataMicroBatches.enabled": "true",
}


@dataclass(frozen=True)
class MicroBatch:
    """What one micro-batch adds: records (with their index in the case) and, for a case whose watermarks
    are listed, the watermark row that follows them."""

    records: tuple[tuple[int, Record], ...]
    watermark: int | None = None


def micro_batches(case: Case) -> list[MicroBatch]:
    """The case as Spark's micro-batches (see the module's docstring); the last one ends a bounded input."""
    batches: list[MicroBatch] = []
    pending: list[tuple[int, Record]] = []
    highest = None
    for at, event in enumerate(case.events):
        if isinstance(event, Record):
            pending.append((at, event))
            if case.watermark_generator is not None and (highest is None or event.ts > highest):
                highest = event.ts
                batches.append(MicroBatch(tuple(pending)))
                pending = []
        elif isinstance(event, Watermark):
            batches.append(MicroBatch(tuple(pending), event.timestamp))
            pending = []
    if case.end_of_input or pending:
        batches.append(MicroBatch(tuple(pending), END_OF_INPUT if case.end_of_input else None))
    return batches


def records_delay(case: Case) -> int:
    """The delay of `withWatermark` on the records: the generator's bound (Flink's `forMonotonousTimestamps`
    is bound 0), or one that never counts when the case lists its watermarks."""
    generator = case.watermark_generator
    if isinstance(generator, BoundedOutOfOrdernessWatermarks):
        return generator.bound
    if isinstance(generator, MonotonousWatermarks):
        return 0
    return RECORDS_DELAY_WHEN_LISTED


def planned_windows(case: Case) -> int:
    """How many windows Spark's `window()` plans for every row: `ceil(size / slide)` for a sliding window
    (one projection of `TimeWindowing`'s `Expand` each), 1 otherwise (or when Spark rejects the parameters)."""
    w = case.window
    if isinstance(w, Sliding) and 0 < w.slide <= w.size:
        return -(-w.size // w.slide)
    return 1




def spark_window(case: Case, ts):
    """The window column: `window(ts, size, slide, startTime)` or `session_window(ts, gap)`."""
    from pyspark.sql import functions as F

    w = case.window
    if isinstance(w, Tumbling):
        return F.window(ts, milliseconds(w.size), milliseconds(w.size), milliseconds(w.offset))
    if isinstance(w, Sliding):
        return F.window(ts, milliseconds(w.size), milliseconds(w.slide), milliseconds(w.offset))
    if isinstance(w, Session):
        return F.session_window(ts, milliseconds(w.gap))
    raise ValueError(f"window: spark-streaming does not declare {type(w).__name__} windows")


class CaseQuery:
    """One case as one streaming query: two memory streams (records, listed watermarks) in, a memory sink
    out. Rows are `key index, record index, ts` as text, so no key needs quoting."""

    def __init__(self, spark, case: Case) -> None:
        self.spark, self.case = spark, case
        self.keys = {key: i for i, key in enumerate(dict.fromkeys(r.key for r in case.records))}
        self.batches = micro_batches(case)
        self.emitted: Counter = Counter()
        self.firings: list[Firing] = []
        self.watermarks: list[InputWatermark] = []
        self.error: Error | None = None
        self.watermark = 0
        self.table = f"spark_streaming_{uuid.uuid4().hex}"
        self.query = None
        self.stopped = planned_windows(case) > WINDOWS_PER_ELEMENT_LIMIT
        if self.stopped:  # too many windows a row to plan (see the module's docstring)
            self.error = Error("runtime", TOO_MANY_WINDOWS)
            return
        try:
            self.start()
        except Exception as e:
            self.error = Error("invalid_spec", spark_message(e))

    def start(self) -> None:
        from pyspark.sql import functions as F

        self.records, records = memory_stream(self.spark, records_delay(self.case))
        self.listed, listed = memory_stream(self.spark, 0)
        # A watermark row has no key. Spark pushes a filter that does not read the event-time column below
        # withWatermark, where it would hide the row from the watermark: this one reads `ts`.
        rows = records.unionByName(listed).where(F.col("key").isNotNull() | F.col("ts").isNull())
        window = spark_window(self.case, F.col("ts"))
        out = (rows.groupBy("key", window.alias("w")).agg(F.collect_list("record").alias("records"))
               .select("key", F.unix_millis("w.start").alias("start"), F.unix_millis("w.end").alias("end"),
                       F.unix_micros(F.window_time("w")).alias("time"), "records"))
        self.query = out.writeStream.format("memory").queryName(self.table).outputMode("append").start()

    def send(self, batch: MicroBatch) -> None:
        """Adds one micro-batch's rows to the memory streams (Spark picks them up in one batch)."""
        jvm = self.spark._jvm
        as_seq = jvm.scala.jdk.javaapi.CollectionConverters.asScala
        rows = [f"{self.keys[r.key]},{at},{r.ts}" for at, r in batch.records]
        if rows:
            self.records.addData(as_seq(rows).toSeq())
        if batch.watermark is not None:
            self.listed.addData(as_seq([f",,{batch.watermark}"]).toSeq())

    def settle(self, last: bool) -> None:
        """Waits for the micro-batches of what was sent, then reads what they emitted."""
        try:
            watermark = processed_watermark(self.query)
        except Exception as e:
            self.error = Error("runtime", spark_message(e))
            return
        if watermark <= self.watermark and not last:
            return  # Spark emits in append mode only when its watermark rises
        if watermark > self.watermark:
            self.watermark = watermark
            self.watermarks.append(InputWatermark(None, self.reported(watermark)))
        table = self.spark.table(self.table).collect()
        rows = Counter((r.key, r.start, r.end, r.time, tuple(r.records)) for r in table)
        for key, start, end, time, records in rows - self.emitted:
            values = tuple(self.case.events[i].value for i in records)
            self.firings.append(Firing(None, self.key_name(key), TimeWindow(start, end), time // 1000, values,
                                       self.reported(self.watermark)))
        self.emitted = rows

    def key_name(self, index: int) -> str:
        return next(key for key, i in self.keys.items() if i == index)

    @staticmethod
    def reported(watermark: int) -> int:
        """Spark's watermark, except that the end-of-input row's stands for Flink's `Long.MAX_VALUE`."""
        return LONG_MAX if watermark == END_OF_INPUT else watermark

    def stop(self) -> None:
        if self.query is not None:
            self.query.stop()
            self.spark.catalog.dropTempView(self.table)

    def observation(self) -> Observation:
        watermarks = tuple(self.watermarks) if self.case.observes_watermarks and not self.stopped else None
        if self.error is not None and self.error.kind == "invalid_spec":
            return Observation(error=self.error, watermarks=watermarks)
        dropped = ()
        if self.case.end_of_input and self.error is None:
            emitted = Counter(i for *_, records in self.emitted for i in records)
            dropped = tuple(LateRecord(None, r.key, r.value, r.ts) for at, r in enumerate(self.case.events)
                            if isinstance(r, Record) and at not in emitted)
        return Observation(tuple(self.firings), (), dropped, self.error, watermarks)


class SparkStreamingImplementation:
    """Spark Structured Streaming's `window` / `session_window` with `withWatermark`, append mode."""

    name = "spark-streaming"
    features = FEATURES | JOIN_FEATURES
    costly_calls = True
    position_free = True

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        from spark_impl.session import get_session

        spark = get_session()
        for name, value in SESSION_CONF.items():  # SQL settings: a session already running takes them too
            spark.conf.set(name, value)
        return run_pooled(spark, cases, CaseQuery)

    def run_joins(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        """Flink's interval joins as Spark's stream-stream joins (`engines.spark_streaming_joins`)."""
        from engines.spark_streaming_joins import run_joins
        from spark_impl.session import get_session

        return run_joins(get_session(), cases)

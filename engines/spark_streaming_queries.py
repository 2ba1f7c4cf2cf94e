"""What Spark Structured Streaming's queries of the suite share, windows (`engines.spark_streaming`) and joins
(`engines.spark_streaming_joins`) alike: a memory stream with its watermark, the watermark a query has processed,
Spark's message of a failure, and the pool that runs a batch of cases as queries side by side, micro-batch by
micro-batch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: The time of the watermark row that ends a bounded input: far beyond any record the adapter is sent,
#: and within Spark's timestamps (microseconds in a `long`, up to about 9.2e15 ms).
END_OF_INPUT = 9_000_000_000_000_000
#: How many queries run side by side in one session.
CONCURRENT_QUERIES = 4


def milliseconds(n: int) -> str:
    return f"{n} milliseconds"


def memory_stream(spark, delay: int):
    """A memory stream of rows `key index, record index, ts` as text (so no key needs quoting), and its rows as
    `key`, `record` (integers, null where empty) and `ts` (a timestamp of milliseconds), `withWatermark("ts",
    delay ms)`: the source to add rows to, and the frame."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    jvm = spark._jvm
    source = jvm.org.apache.spark.sql.execution.streaming.runtime.MemoryStream.apply(
        jvm.org.apache.spark.sql.Encoders.STRING(), spark._jsparkSession)
    fields = F.split("value", ",")
    rows = DataFrame(source.toDF(), spark).select(
        fields[0].try_cast("int").alias("key"), fields[1].try_cast("int").alias("record"),
        F.timestamp_millis(fields[2].cast("long")).alias("ts"))
    return source, rows.withWatermark("ts", milliseconds(delay))


def processed_watermark(query) -> int:
    """Runs the micro-batches of what `query` was sent (`processAllAvailable`, with the batch without data that a
    risen watermark starts) and answers Spark's watermark after them (0 before any); what fails a micro-batch is
    raised."""
    query.processAllAvailable()
    execution = query._jsq.streamingQuery().lastExecution()
    return execution.offsetSeqMetadata().batchWatermarkMs() if execution is not None else 0


def spark_message(error: Exception) -> str:
    """Spark's own message, its first line (the JVM's stack trace is not part of it)."""
    message = (getattr(error, "getMessage", lambda: None)() or str(error)).strip()
    if not message:
        return type(error).__name__
    # A failed micro-batch names the query's random ids first: the cause is what follows them.
    return message.splitlines()[0].split(" terminated with exception: ", 1)[-1]


def run_pooled(spark, cases: Sequence, query: Callable) -> list:
    """Runs `cases` as queries (`query(spark, case)`: `CaseQuery`, or a join's), `CONCURRENT_QUERIES` at a time,
    in lock step: each round sends every running query its next micro-batch, then waits for them all; a query
    that has sent its last one makes room."""
    waiting = iter(enumerate(cases))
    running: list[tuple[int, Any, int]] = []  # (index in cases, query, next micro-batch)
    observations: list = [None] * len(cases)
    try:
        while True:
            while len(running) < CONCURRENT_QUERIES and (item := next(waiting, None)) is not None:
                running.append((item[0], query(spark, item[1]), 0))
            if not running:
                return observations
            for _, q, step in running:
                if q.error is None and step < len(q.batches):
                    q.send(q.batches[step])
            for _, q, step in running:
                if q.error is None and step < len(q.batches):
                    q.settle(last=step == len(q.batches) - 1)
            advanced = [(i, q, step + 1) for i, q, step in running]
            for i, q, step in advanced:
                if q.error is not None or step >= len(q.batches):
                    observations[i] = q.observation()
                    q.stop()
            running = [(i, q, step) for i, q, step in advanced if observations[i] is None]
    finally:
        for _, q, _ in running:
            q.stop()

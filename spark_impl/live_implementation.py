"""`SparkLiveImplementation` (`spark-live`): the suite's cases through a real Structured Streaming query.

`run(cases)` checks each case's specification on the driver (as `spark`), then starts one streaming query for the
whole batch: a memory source, `spark_impl.live.live_outputs` (every case its own groups, by `case_id`), a memory
sink in append mode. Each case's events (`live_events`: records, watermarks, clock advances, channels' statuses and
ends, and its end of input) are cut into `pieces` micro-batches at points drawn from `seed` and the case's place in
the batch; micro-batch `j` carries piece `j` of every case, added to the source and processed
(`processAllAvailable`) before the next is added. The sink's rows, cut at each case's first runtime error as the
batch replay cuts them (`grouped.truncate_at_errors`, on the positions of the operator's input:
`spark_impl.live_fold`), become the observations (`frames.observations`), each key's rows in their order (`at`,
then `seq`), with the watermarks the operator received when Flink makes them.

`pieces=None` makes every event a micro-batch of its own. The output never depends on the cuts
(`tests/test_spark_live.py` holds it to that).

Declared: every window feature the batch replay models, the watermarks Flink makes included (generators, periodic
and punctuated emission, idleness, channels, their statuses and ends), which the query's first stateful stage makes
from the log's records and processing-time advances (`spark_impl.live_fold`). The clock is the log's: processing
time is data, as in every implementation of the suite (see `spark_impl.live`'s docstring for why Spark's own
processing time is not used).
"""

from __future__ import annotations

import json
import random
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

import pyarrow as pa
import pyarrow.compute as pc

from spark_impl.frames import OUTPUT_SCHEMA, PROCESSING_TIME, RECORD, WATERMARK, observations, timer_positions
from spark_impl.grouped import truncate_at_errors
from spark_impl.implementation import SparkImplementation, rejected_observation, requests_in_one_run
from spark_impl.javalong import LONG_MAX
from spark_impl.live import STATE_STORE, live_outputs
from spark_impl.live_fold import END_OF_CHANNEL, END_OF_INPUT, STATUS, Upstream
from spark_impl.spec import invalid_spec_message, operator_spec
from window_contract.case import Case, EndOfChannel, ProcessingTime, Record, Watermark, WatermarkStatus
from window_contract.features import ALL_FEATURES
from window_contract.observation import InputWatermark, Observation

#: The batch replay's window features (`spark` runs the joins apart), Flink SQL's emit strategy and the watermarks
#: Flink makes upstream of the window operator (`spark_impl.live_fold`) included.
FEATURES = SparkImplementation.features & ALL_FEATURES

_EVENTS = "c long, a long, k int, key string, v long, t long, ch long"


def cuts(length: int, pieces: int | None, rng: random.Random) -> list[int]:
    """Where a case's `length` events are cut into micro-batches: `pieces - 1` distinct points (fewer when the case is
    shorter), or after every event (`pieces=None`)."""
    if pieces is None:
        return list(range(1, length))
    return sorted(rng.sample(range(1, length), min(pieces - 1, max(length - 1, 0))))


def made_upstream(case: Case) -> bool:
    """Whether Flink makes the case's watermarks upstream of the window operator (`spark_impl.live_fold`)."""
    return case.observes_watermarks or any(isinstance(e, WatermarkStatus | EndOfChannel) for e in case.events)


def live_events(case: Case) -> list[tuple[int, int, str | None, int | None, int | None, int]]:
    """The case's events as the log's rows `(at, kind, key, value, ts, channel)`: a status's idleness in `value`;
    its end of input a `Watermark(Long.MAX_VALUE)`, or, when Flink makes the watermarks, the end of every channel."""
    rows = []
    for at, e in enumerate(case.events):
        if isinstance(e, Record):
            rows.append((at, RECORD, e.key, e.value, e.ts, e.channel))
        elif isinstance(e, Watermark):
            rows.append((at, WATERMARK, None, None, e.timestamp, e.channel))
        elif isinstance(e, ProcessingTime):
            rows.append((at, PROCESSING_TIME, None, None, e.time, 0))
        elif isinstance(e, WatermarkStatus):
            rows.append((at, STATUS, None, int(e.idle), None, e.channel))
        else:
            rows.append((at, END_OF_CHANNEL, None, None, None, e.channel))
    if case.end_of_input:
        ending = (END_OF_INPUT, None) if made_upstream(case) else (WATERMARK, LONG_MAX)
        rows.append((len(case.events), ending[0], None, None, ending[1], 0))
    return rows


class SparkLiveImplementation:
    name = "spark-live"
    features = FEATURES
    #: A `run` call is a streaming query (seconds to start): the suite prefetches each property's cases in a few.
    costly_calls = True

    def __init__(self, session=None, *, pieces: int | None = 4, seed: int = 0, shards: int = 2) -> None:
        self._session, self.pieces, self.seed, self.shards = session, pieces, seed, shards

    @property
    def session(self):
        if self._session is None:
            from spark_impl.session import get_session

            self._session = get_session()
            self._session.conf.set(*STATE_STORE)
        return self._session

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        """What Flink rejects at job build is decided on the driver; the rest is one streaming query, whose rows
        (in positions `arrival * stride + slot`, `spark_impl.live_fold`) become the observations."""
        rejected = {i: invalid_spec_message(c) for i, c in enumerate(cases)}
        valid = [(i, c) for i, c in enumerate(cases) if rejected[i] is None]
        stride = max((c.channels + 1 for _, c in valid if made_upstream(c)), default=1)
        table, received = self.outputs(valid, stride)
        marks: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for row in received:
            marks[row["case_id"]].append((row["at"], row["watermark"]))
        timers = {i: frozenset(at * stride for at in timer_positions(c)) | ({at for at, _ in marks[i]}
                                                                              if timer_positions(c) else set())
                  for i, c in valid}
        found = observations(table, [i for i, _ in valid], timers)
        for i, c in valid:
            o = found[i]
            found[i] = replace(o, firings=[replace(f, at=f.at // stride) for f in o.firings],
                               late=[replace(r, at=r.at // stride) for r in o.late],
                               dropped=[replace(r, at=r.at // stride) for r in o.dropped],
                               watermarks=[InputWatermark(at // stride, w) for at, w in sorted(marks[i])]
                               if c.observes_watermarks else None)
        return [found[i] if rejected[i] is None else rejected_observation(cases[i], rejected[i])
                for i in range(len(cases))]

    def run_requests(self, requests: Sequence[Sequence[Case]]) -> list[list[Observation]]:
        """Many `run` calls answered by one query: every case is kept apart by its `case_id` (its own groups and
        state), and a request's cases see nothing of the others' (the suite's batch-isolation properties check it)."""
        return requests_in_one_run(self.run, requests)

    def micro_batches(self, valid: Sequence[tuple[int, Case]]) -> list[list[str]]:
        """Each micro-batch's event rows (JSON lines), piece `j` of every case in micro-batch `j`."""
        batches: list[list[str]] = []
        for case_id, case in valid:
            events = live_events(case)
            points = [0, *cuts(len(events), self.pieces, random.Random(f"{self.seed}:{case_id}")), len(events)]
            for j, (start, end) in enumerate(zip(points, points[1:], strict=False)):
                if j == len(batches):
                    batches.append([])
                batches[j] += [json.dumps({"c": case_id, "a": at, "k": kind, "key": key, "v": value, "t": ts,
                                           "ch": channel})
                               for at, kind, key, value, ts, channel in events[start:end]]
        return batches

    def outputs(self, valid: Sequence[tuple[int, Case]], stride: int) -> tuple[pa.Table, list[dict]]:
        """The output rows of the `valid` cases (`frames.OUTPUT_SCHEMA`, at `arrival * stride + slot`), each key's in
        its order, cut at each case's first runtime error, from one query; and the watermarks the operators
        received before it."""
        if not valid:
            return OUTPUT_SCHEMA.empty_table(), []
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F

        spark = self.session
        jvm = spark._jvm
        source = jvm.org.apache.spark.sql.execution.streaming.runtime.MemoryStream.apply(
            jvm.org.apache.spark.sql.Encoders.STRING(), spark._jsparkSession)
        lines = DataFrame(source.toDF(), spark).select(F.explode(F.split("value", "\n")).alias("line"))
        parsed = lines.select(F.from_json("line", _EVENTS).alias("e")).select(
            F.col("e.c").alias("case_id"), F.col("e.a").alias("at"), F.col("e.k").cast("byte").alias("kind"),
            F.col("e.key").alias("key"), F.col("e.v").alias("value"), F.col("e.t").alias("ts"),
            F.col("e.ch").alias("channel"))
        table = f"spark_live_{uuid.uuid4().hex}"
        upstream = {i: Upstream(c.channels, c.watermark_generator) for i, c in valid if made_upstream(c)}
        outputs = live_outputs(parsed, {i: operator_spec(c) for i, c in valid}, self.shards, upstream)
        query = outputs.writeStream.format("memory").queryName(table).outputMode("append").start()
        as_seq = jvm.scala.jdk.javaapi.CollectionConverters.asScala
        try:
            for batch in self.micro_batches(valid):
                source.addData(as_seq(["\n".join(batch)]).toSeq())
                query.processAllAvailable()
            rows = spark.table(table).withColumn("at", F.col("at") * stride + F.col("slot"))
            kept = truncate_at_errors(rows.filter(F.col("kind") != "watermark").select(*OUTPUT_SCHEMA.names))
            found = kept.orderBy("case_id", "key", "at", "seq").drop("seq").toArrow().select(OUTPUT_SCHEMA.names)
            ended = {r["case_id"]: r["at"] for r in found.filter(pc.equal(found["kind"], "error")).to_pylist()}
            received = [r.asDict() for r in rows.filter(F.col("kind") == "watermark").select(
                "case_id", "at", "watermark").collect()]
            return found, [r for r in received if r["at"] <= ended.get(r["case_id"], r["at"])]
        finally:
            query.stop()
            spark.catalog.dropTempView(table)

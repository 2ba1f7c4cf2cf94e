"""`SparkLiveImplementation` (`spark-live`): the suite's cases through a real Structured Streaming query.

`run(cases)` checks each case's specification on the driver (as `spark`), then starts one streaming query for the
whole batch: a memory source, `spark_impl.live.live_outputs` (every case its own groups, by `case_id`), a memory
sink in append mode. Each case's events (its end of input a `Watermark(Long.MAX_VALUE)` at `len(events)`, as
`frames.events_table` has it) are cut into `pieces` micro-batches at points drawn from `seed` and the case's
place in the batch; micro-batch `j` carries piece `j` of every case, added to the source and processed
(`processAllAvailable`) before the next is added. The sink's rows, cut at each case's first runtime error as the
batch replay cuts them (`grouped.truncate_at_errors`), become the observations (`frames.observations`), each key's
rows in their order (`at`, then `seq`).

`pieces=None` makes every event a micro-batch of its own. The output never depends on the cuts
(`tests/test_spark_live.py` holds it to that).

Declared: every feature of the per-key operator whose clocks are data in the log (watermarks and
processing-time advances). Not declared: the watermark generators, periodic and punctuated emission, idleness and
channels: Flink makes those watermarks upstream of the window operator (`spark_impl.watermarks` folds them on the
driver for the batch replay), and a live query is given its log's watermarks as rows.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Sequence

import pyarrow as pa

from spark_impl.frames import OUTPUT_SCHEMA, events_table
from spark_impl.grouped import truncate_at_errors
from spark_impl.implementation import SparkImplementation, observed, requests_in_one_run
from spark_impl.live import OUTPUT_NAMES, STATE_STORE, live_outputs
from spark_impl.spec import operator_spec
from window_contract.case import EVENTS, GENERATORS, IDLENESS, PERIODIC, PUNCTUATED, Case
from window_contract.features import ALL_FEATURES, CHANNELS
from window_contract.observation import Observation

#: What Flink makes upstream of the window operator (see the module's docstring): generators, channels, statuses.
UPSTREAM = frozenset([k.feature.name for k in GENERATORS] + [k.feature.name for k in EVENTS if k.feature]
                     + [f.name for f in (PERIODIC, PUNCTUATED, IDLENESS, CHANNELS)])
#: The batch replay's window features (`spark` runs the joins apart, and the emit strategy of Flink SQL is not
#: modelled), but what Flink makes upstream.
FEATURES = SparkImplementation.features & ALL_FEATURES - UPSTREAM

_EVENTS = "c long, a long, k int, key string, v long, t long"


def cuts(length: int, pieces: int | None, rng: random.Random) -> list[int]:
    """Where a case's `length` events are cut into micro-batches: `pieces - 1` distinct points (fewer when the case is
    shorter), or after every event (`pieces=None`)."""
    if pieces is None:
        return list(range(1, length))
    return sorted(rng.sample(range(1, length), min(pieces - 1, max(length - 1, 0))))


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
        return observed(cases, self.outputs)

    def run_requests(self, requests: Sequence[Sequence[Case]]) -> list[list[Observation]]:
        """Many `run` calls answered by one query: every case is kept apart by its `case_id` (its own groups and
        state), and a request's cases see nothing of the others' (the suite's batch-isolation properties check it)."""
        return requests_in_one_run(self.run, requests)

    def micro_batches(self, valid: Sequence[tuple[int, Case]]) -> list[list[str]]:
        """Each micro-batch's event rows (JSON lines), piece `j` of every case in micro-batch `j`."""
        rows = events_table(valid).to_pylist()
        by_case: dict[int, list[dict]] = {}
        for row in rows:
            by_case.setdefault(row["case_id"], []).append(row)
        batches: list[list[str]] = []
        for case_id, events in by_case.items():
            points = [0, *cuts(len(events), self.pieces, random.Random(f"{self.seed}:{case_id}")), len(events)]
            for j, (start, end) in enumerate(zip(points, points[1:], strict=False)):
                if j == len(batches):
                    batches.append([])
                batches[j] += [json.dumps({"c": e["case_id"], "a": e["at"], "k": e["kind"], "key": e["key"],
                                           "v": e["value"], "t": e["ts"]}) for e in events[start:end]]
        return batches

    def outputs(self, valid: Sequence[tuple[int, Case]]) -> pa.Table:
        """The output rows of the `valid` cases (`frames.OUTPUT_SCHEMA`), each key's in its order, from one query."""
        if not valid:
            return OUTPUT_SCHEMA.empty_table()
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F

        spark = self.session
        jvm = spark._jvm
        source = jvm.org.apache.spark.sql.execution.streaming.runtime.MemoryStream.apply(
            jvm.org.apache.spark.sql.Encoders.STRING(), spark._jsparkSession)
        lines = DataFrame(source.toDF(), spark).select(F.explode(F.split("value", "\n")).alias("line"))
        parsed = lines.select(F.from_json("line", _EVENTS).alias("e")).select(
            F.col("e.c").alias("case_id"), F.col("e.a").alias("at"), F.col("e.k").cast("byte").alias("kind"),
            F.col("e.key").alias("key"), F.col("e.v").alias("value"), F.col("e.t").alias("ts"))
        table = f"spark_live_{uuid.uuid4().hex}"
        outputs = live_outputs(parsed, {i: operator_spec(c) for i, c in valid}, self.shards)
        query = outputs.writeStream.format("memory").queryName(table).outputMode("append").start()
        as_seq = jvm.scala.jdk.javaapi.CollectionConverters.asScala
        try:
            for batch in self.micro_batches(valid):
                source.addData(as_seq(["\n".join(batch)]).toSeq())
                query.processAllAvailable()
            rows = truncate_at_errors(spark.table(table).select(*OUTPUT_NAMES)).orderBy("case_id", "key", "at", "seq")
            return rows.drop("seq").toArrow()
        finally:
            query.stop()
            spark.catalog.dropTempView(table)

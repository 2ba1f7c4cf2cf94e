"""The grouped-map half of the pipeline: `spark_impl.operator` per (case, key).

Each group gets its key's records and every watermark and processing-time advance of its case (the
shared clocks, replicated to each key of the case by a join), replays them through
`KeyedWindowOperator` in arrival order, and returns output rows in `frames.OUTPUT_SCHEMA`.

The groups are partitioned by (case, key) and sorted by (case, key, arrival) within each partition, and
`mapInArrow` replays a partition's groups one after another: Python is called once per Arrow batch of
rows, where `groupBy(...).applyInArrow` calls it once per group, a round trip that costs more than most
groups of the suite's cases take to replay (a batch of 3,694 cases: about a quarter of the job's time).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import pyarrow as pa
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from spark_impl.frames import OUTPUT_DDL, OUTPUT_SCHEMA, RECORD
from spark_impl.operator import Outputs, simulate
from spark_impl.spec import OperatorSpec
from window_contract.observation import GlobalWindow


def simulated_outputs(events: DataFrame, specs: Mapping[int, OperatorSpec]) -> DataFrame:
    """Outputs of the cases in `events` (`frames.EVENT_SCHEMA` columns), each run by its spec."""
    specs = dict(specs)  # shipped to the workers with the function: specs are small
    records = events.filter(F.col("kind") == RECORD)
    keys = records.select("case_id", "key").distinct()
    clocks = events.filter(F.col("kind") != RECORD).drop("key").join(keys, "case_id")
    replay = records.unionByName(clocks)

    def run_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for (case_id, key), group in groups(batches):
            events = zip(*(group.column(c).to_pylist() for c in ("at", "kind", "value", "ts")), strict=True)
            yield from outputs_table(case_id, key, simulate(specs[case_id], key, events)).to_batches()

    by_group = ("case_id", "key")
    return replay.repartition(*by_group).sortWithinPartitions(*by_group, "at").mapInArrow(run_partition, OUTPUT_DDL)


def groups(batches: Iterable[pa.RecordBatch]) -> Iterator[tuple[tuple[int, str | None], pa.Table]]:
    """Each (case id, key) of `batches` with its rows, from a partition sorted by them: every group
    whole, also when it spans batches. (Keys compare as Python values: a null key is one group, as
    in Spark's `groupBy`.)"""
    current, pending = None, []
    for batch in batches:
        start = 0
        ids, keys = batch.column("case_id").to_pylist(), batch.column("key").to_pylist()
        for i, group in enumerate(zip(ids, keys, strict=True)):
            if group != current:
                if i > start:
                    pending.append(batch.slice(start, i - start))
                if pending:
                    yield current, pa.Table.from_batches(pending)
                current, pending, start = group, [], i
        if start < batch.num_rows:
            pending.append(batch.slice(start))
    if pending:
        yield current, pa.Table.from_batches(pending)


def outputs_table(case_id: int, key: str, out: Outputs) -> pa.Table:
    return pa.Table.from_pylist(output_rows(case_id, key, out), schema=OUTPUT_SCHEMA)


def output_rows(case_id: int, key: str, out: Outputs) -> list[dict]:
    """The rows (`frames.OUTPUT_SCHEMA`) of one key's outputs: its firings in order, then its late and dropped
    records, then its error."""
    rows = [{"kind": "firing", "at": f.at, "window_start": None if isinstance(f.window, GlobalWindow)
             else f.window.start, "window_end": None if isinstance(f.window, GlobalWindow) else f.window.end,
             "timestamp": f.timestamp, "values": list(f.values), "watermark": f.watermark}
            for f in out.firings]
    rows += [{"kind": kind, "at": r.at, "value": r.value, "ts": r.ts}
             for kind, records in (("late", out.late), ("dropped", out.dropped)) for r in records]
    if out.error is not None:
        rows.append({"kind": "error", "at": out.error[0], "message": out.error[1]})
    for row in rows:
        row |= {"case_id": case_id, "key": key}
    return rows


def truncate_at_errors(outputs: DataFrame) -> DataFrame:
    """A runtime error ends the case: keep what came before the first error, and the error.

    The first error is the earliest (`at`, then key); at that `at` only the failing key's outputs
    precede the failure for sure (other keys' timers at the same moment are in unspecified order).
    """
    first = F.min(F.when(F.col("kind") == "error", F.struct("at", "key"))).over(Window.partitionBy("case_id"))
    kept = (outputs.withColumn("_err", first)
            .filter(F.col("_err").isNull() | (F.col("at") < F.col("_err.at"))
                    | ((F.col("at") == F.col("_err.at")) & (F.col("key") == F.col("_err.key")))))
    return kept.drop("_err")

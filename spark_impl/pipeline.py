"""The whole plan for a batch of cases: events in, one DataFrame of outputs, one action out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from conformance.case import Case, Sliding
from spark_impl.frames import events_table
from spark_impl.grouped import simulated_outputs, truncate_at_errors
from spark_impl.relational import relational_outputs
from spark_impl.spec import OperatorSpec

_RELATIONAL_SPEC = pa.schema([("case_id", pa.int64()), ("size", pa.int64()), ("slide", pa.int64()),
                              ("offset", pa.int64()), ("lateness", pa.int64()), ("side_output", pa.bool_())])


def relational_spec_table(specs: Mapping[int, OperatorSpec], ids: Set[int]) -> pa.Table:
    """The window parameters of the relational cases (a tumbling window is a sliding one)."""
    rows = []
    for i in sorted(ids):
        s = specs[i]
        w = s.assigner
        slide = w.slide if isinstance(w, Sliding) else w.size
        rows.append({"case_id": i, "size": w.size, "slide": slide, "offset": w.offset,
                     "lateness": s.allowed_lateness, "side_output": s.late_side_output})
    return pa.Table.from_pylist(rows, schema=_RELATIONAL_SPEC)


def outputs_frame(spark: SparkSession, cases: Sequence[tuple[int, Case]], relational: Set[int],
                  specs: Mapping[int, OperatorSpec]) -> DataFrame:
    """All outputs of `cases` as one DataFrame (`frames.OUTPUT_SCHEMA`), runtime errors applied."""
    events = spark.createDataFrame(events_table(cases))
    parts = []
    if relational:
        rel_spec = F.broadcast(spark.createDataFrame(relational_spec_table(specs, relational)))
        parts.append(relational_outputs(events.join(rel_spec, "case_id")))
    replayed = {i: s for i, s in specs.items() if i not in relational}
    if replayed:
        parts.append(simulated_outputs(events.filter(F.col("case_id").isin(sorted(replayed))), replayed))
    outputs = parts[0] if len(parts) == 1 else parts[0].unionByName(parts[1], allowMissingColumns=True)
    return truncate_at_errors(outputs)

def outputs_of(spark: SparkSession, cases: Sequence[tuple[int, Case]], relational: Set[int],
               specs: Mapping[int, OperatorSpec]) -> pa.Table:
    """`outputs_frame`, collected: the batch's only Spark action."""
    return outputs_frame(spark, cases, relational, specs).toArrow()

"""The whole plan for a batch of cases: events in, one DataFrame of outputs, one action out.

The plan is the same for every batch: one events DataFrame (from one Arrow table, with the window
parameters of the relational cases on their rows, so no join brings them in), split by a column
into the relational pipeline and the replay, whose outputs are unioned.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence, Set

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_impl.frames import events_table
from spark_impl.grouped import simulated_outputs, truncate_at_errors
from spark_impl.relational import relational_outputs, window_parameters
from spark_impl.session import shuffle_partitions
from spark_impl.spec import OperatorSpec
from window_contract.case import Case

#: A large batch (a prefetched suite's fetch: thousands of cases) gets a shuffle partition per this
#: many cases, up to one per CPU; a small one keeps the session's single partition (fixed costs
#: dominate it: `session.SMALL_JOB_CONF`). A batch of 3,694 cases: 14 s on one partition, 12 s on two.
CASES_PER_PARTITION = 1_000

_RELATIONAL_SPEC = pa.schema([("case_id", pa.int64()), ("size", pa.int64()), ("slide", pa.int64()),
                              ("step", pa.int64()), ("offset", pa.int64()),
                              ("lateness", pa.int64()), ("side_output", pa.bool_())])


def relational_spec_table(specs: Mapping[int, OperatorSpec], ids: Set[int]) -> pa.Table:
    """The window parameters of the relational cases (`relational.window_parameters`)."""
    rows = [{"case_id": i, **window_parameters(specs[i].assigner), "lateness": specs[i].allowed_lateness,
             "side_output": specs[i].late_side_output} for i in sorted(ids)]
    return pa.Table.from_pylist(rows, schema=_RELATIONAL_SPEC)


def batch_table(cases: Sequence[tuple[int, Case]], parameters: pa.Table) -> pa.Table:
    """The events of the batch, each with its case's window `parameters` when the case is relational
    (nulls otherwise) and a `relational` flag."""
    events = events_table(cases)
    joined = events.join(parameters, "case_id", join_type="left outer")
    return joined.append_column("relational", pc.is_valid(joined.column("size")))


def outputs_frame(spark: SparkSession, cases: Sequence[tuple[int, Case]], relational: Set[int],
                  specs: Mapping[int, OperatorSpec]) -> DataFrame:
    """All outputs of `cases` as one DataFrame (`frames.OUTPUT_SCHEMA`), runtime errors applied."""
    parameters = relational_spec_table(specs, relational)
    events = spark.createDataFrame(batch_table(cases, parameters))
    replayed = {i: s for i, s in specs.items() if i not in relational}
    gaps = pc.any(pc.less(parameters.column("size"), parameters.column("slide"))).as_py() is True
    related = relational_outputs(events.filter(F.col("relational")), gaps=gaps).outputs
    # Only a replayed case can fail at run time (the relational cases fail the query instead).
    simulated = truncate_at_errors(simulated_outputs(events.filter(~F.col("relational")), replayed))
    return related.unionByName(simulated)


def outputs_of(spark: SparkSession, cases: Sequence[tuple[int, Case]], relational: Set[int],
               specs: Mapping[int, OperatorSpec]) -> pa.Table:
    """`outputs_frame`, collected: the batch's only Spark action."""
    with shuffle_partitions(spark, min(os.cpu_count() or 1, len(cases) // CASES_PER_PARTITION)):
        return outputs_frame(spark, cases, relational, specs).toArrow()

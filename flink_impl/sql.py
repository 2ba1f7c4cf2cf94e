"""Flink SQL's windows on the real runtime: `flink-sql`, `flink-sql-legacy` and `flink-sql-1.20`.

Each case runs as the SQL query a Flink SQL user writes for the same job (`sql/SqlBranch.java`,
`sql/SqlQueries.java`): its events a table on a DataStream, its window a window table function (`TUMBLE`,
`HOP`, `CUMULATE`, `SESSION`; `flink-sql-legacy`: a legacy group window, `GROUP BY k, TUMBLE(rowtime, ...)`), its key a
`GROUP BY` column, the window's contents `ARRAY_AGG`. The runner is Flink's own, as for `flink` (the same JVM
process, protocol and batching), run with the table jars.

Declared, because SQL's window table functions can say them:

- tumbling, sliding (`HOP`), cumulative (`CUMULATE`, `flink-sql` and `flink-sql-1.20`: the legacy group windows
  have none) and session windows, with offsets (`TUMBLE`, `HOP` and `CUMULATE` take one);
- `allowed_lateness`: a user sets `table.exec.emit.allow-lateness`, which the window table functions
  ignore (the README's section says what that changes);
- negative timestamps and watermarks, listed watermarks (the table's `SOURCE_WATERMARK()`), channels
  merged by the window operator's input, their statuses and ends;
- watermark generators, as the table's `WATERMARK` clause
  (`sql/SqlWatermarkClause.java`): `forBoundedOutOfOrderness(b)` is `WATERMARK FOR rowtime AS rowtime - INTERVAL
  'b'`, `forMonotonousTimestamps()` `AS rowtime`, `withIdleness(t)` `table.exec.source.idle-timeout`, the interval
  the job's `pipeline.auto-watermark-interval`; Flink SQL's `WatermarkAssignerOperator`, on the case's
  processing-time clock, emits them by rules of its own (the README's section);
- `flink-sql-legacy` alone: Flink SQL's emit strategy (`after_end_of_window`, `table.exec.emit.early-fire.*` and
  `late-fire.*`), its delays above 0 too, on the window aggregate's processing-time timers, which the runner drives
  by the case's clock (`sql/CaseClockWindowAggregate.java`).

Not declared, so never sent here: global and count windows, dynamic sessions, triggers and evictors (a
window table function has none: it fires once, when the watermark passes the window), processing-time windows
(`PROCTIME()` is the wall clock), the late-data side output (SQL has none), input without end (SQL drops
late records without a trace: only at the end of a bounded input is a record that no firing holds known to
be dropped; a case whose every channel ends idle is input without end too, its end never reaching the window),
punctuated emission and the legacy extractors (a `WATERMARK` clause has neither), and extreme values (SQL's
intervals end at 999,999 days, and a `TIMESTAMP(3)` read out of a query wraps beyond 2^31 days already: the README's
section).
"""

from __future__ import annotations

from collections.abc import Sequence

from flink_impl.command import Limits, Variant
from flink_impl.implementation import FlinkImplementation
from flink_impl.sql_joins import run_sql_joins
from window_contract.features import JOIN_SQL_INTERVAL, JOIN_SQL_WINDOW
from window_contract.join_case import JoinCase
from window_contract.join_observation import JoinObservation

FEATURES = frozenset({
    "assigner.tumbling", "assigner.sliding", "assigner.cumulative", "assigner.session", "offset", "allowed_lateness",
    "negative_timestamps", "channels", "channel.status", "channel.end",
})

#: No SQL case runs for ever (a window fires once, at the watermark, or at a late record), so the job timeout only
#: guards against a stuck job: a job of 128 queries (two tasks each) takes seconds to deploy on a loaded machine.
SQL_LIMITS = Limits(job_timeout_seconds=300)

#: The watermark generators a table's `WATERMARK` clause declares (`sql/SqlWatermarkClause.java`).
WATERMARK_CLAUSE = frozenset({
    "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.periodic", "watermark.idleness",
})

#: Flink SQL's emit strategy (`after_end_of_window`), its delays above 0 on the case's clock
#: (`sql/CaseClockWindowAggregate.java`).
EMIT_STRATEGY = frozenset({"trigger.after_end_of_window", "trigger.after_end_of_window.delay"})

FLINK_SQL = Variant("flink-sql", "2.3", "sql", FEATURES | WATERMARK_CLAUSE, SQL_LIMITS)
FLINK_SQL_1_20 = Variant("flink-sql-1.20", "1.20", "sql", FEATURES | WATERMARK_CLAUSE, SQL_LIMITS)
#: The legacy group windows take no offset (`TUMBLE(rowtime, size, time)`'s third argument is a time of day).
#: Nor is there a legacy group window for `CUMULATE`. They alone take the emit options (`after_end_of_window`).
FLINK_SQL_LEGACY = Variant("flink-sql-legacy", "2.3", "sql-legacy",
                           (FEATURES | WATERMARK_CLAUSE | EMIT_STRATEGY)
                           - {"offset", "assigner.cumulative"},
                           SQL_LIMITS)


class FlinkSqlImplementation(FlinkImplementation):
    """Flink 2.3's SQL window table functions, on the runner's MiniCluster (module docstring), and its window join
    and interval join (`flink_impl.sql_joins`: the join features need no others of the window cases')."""

    variant = FLINK_SQL

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.features = self.features | {JOIN_SQL_WINDOW.name, JOIN_SQL_INTERVAL.name}

    def run_joins(self, cases: Sequence[JoinCase]) -> list[JoinObservation]:
        """The SQL join cases on Flink's runtime (`flink_impl.sql_joins`)."""
        return run_sql_joins(cases, self.variant.release)


class FlinkSql120Implementation(FlinkSqlImplementation):
    """Flink 1.20's SQL window table functions, and its window join and interval join (the same runner on 1.20's
    jars)."""

    variant = FLINK_SQL_1_20


class FlinkSqlLegacyImplementation(FlinkImplementation):
    """Flink 2.3's legacy SQL group windows (`GROUP BY k, TUMBLE(rowtime, ...)`)."""

    variant = FLINK_SQL_LEGACY

"""The relational pipeline: tumbling and sliding event-time windows with Flink's default trigger.

For `EventTimeTrigger` without evictor the outputs are a function of a few facts per (element,
window), so they are joins, window functions and aggregations, and run on a cluster as they run
locally:

- the watermark at each arrival is a running max over arrival order (the initial watermark is
  `Long.MIN_VALUE`; a watermark that does not increase changes nothing, which a max states already);
- an element's windows come from exploding `getWindowStartWithOffset` and the sliding loop;
- an element is added to a window unless the window is late at its arrival
  (`cleanupTime = maxTimestamp + allowedLateness`, saturating, `<=` the watermark);
- the on-time firing of a window is at the first watermark `>= maxTimestamp` (an as-of lookup), with
  every element added before it, which are exactly the added elements whose arrival watermark was
  `< maxTimestamp` (the watermark only grows);
- an element added while the watermark is already `>= maxTimestamp` fires the window at its arrival
  with everything the window holds then (no purge, and cleanup empties the window only once the
  watermark reaches `cleanupTime`, after which nothing more is added);
- an element none of whose windows took it is late when `ts + allowedLateness <= watermark`
  (wrapping add, as Flink's `isElementLate`): side output or dropped.

Input: events with `case_id, at, kind, key, value, ts` (kind 0 record, 1 watermark; the end of input
is a watermark `Long.MAX_VALUE` at `at = len(events)`) joined with the case's `size, slide, offset,
lateness, side_output` (a tumbling window is a sliding one with `slide = size`). Times must lie in
`(-2^62, 2^62)` (`check_range`), so window arithmetic cannot overflow; `lateness` may be anything up
to `Long.MAX_VALUE`.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from spark_impl.javalong import LONG_MIN, col_add, col_saturating_add

RECORD, WATERMARK = 0, 1
#: Times of magnitude below this keep every sum of the relational pipeline in `long` range.
SAFE_BOUND = 2**62


def check_range(events: DataFrame) -> DataFrame:
    """Fails the query with a clear message on a time the relational pipeline cannot compute with."""
    bad = (F.col("kind") == RECORD) & (F.abs(F.col("ts")) >= F.lit(SAFE_BOUND))
    return events.withColumn("ts", F.when(bad, F.raise_error(F.concat(
        F.lit("timestamp "), F.col("ts").cast("string"),
        F.lit(" at position "), F.col("at").cast("string"),
        F.lit(" is outside (-2^62, 2^62), the range the relational window pipeline supports "
              "(Long.MIN_VALUE would fail the Flink job: no timestamp)"))).cast("long"))
                             .otherwise(F.col("ts")))


def with_arrival_watermark(events: DataFrame) -> DataFrame:
    """Adds `wm`: the operator's watermark when the event arrives (before it is processed)."""
    before = (Window.partitionBy("case_id").orderBy("at")
              .rowsBetween(Window.unboundedPreceding, -1))
    wm = F.max(F.when(F.col("kind") == WATERMARK, F.col("ts"))).over(before)
    return events.withColumn("wm", F.greatest(F.coalesce(wm, F.lit(LONG_MIN)), F.lit(LONG_MIN)))


def window_start(ts: Column, offset: Column, size: Column) -> Column:
    """`TimeWindow.getWindowStartWithOffset`: Spark's `%` on longs truncates like Java's."""
    r = (ts - offset) % size
    return F.when(r < 0, ts - (r + size)).otherwise(ts - r)


def assign_windows(records: DataFrame) -> DataFrame:
    """One row per (element, window) with `start`, `end`, `max_ts`: `SlidingEventTimeWindows`.

    Starts are `lastStart - k * slide` for k = 0, 1, ... while `start > ts - size`, i.e.
    `k < ceil((lastStart - ts + size) / slide)`; with `size < slide` that can be no window at all.
    """
    k = F.explode(F.when(F.col("_n") > 0, F.sequence(F.lit(0).cast("long"), F.col("_n") - 1))
                  .otherwise(F.array().cast("array<long>")))
    return (records.withColumn("_last", window_start(F.col("ts"), F.col("offset"), F.col("slide")))
            .withColumn("_span", F.col("_last") - F.col("ts") + F.col("size"))
            # integer division: both operands are positive here, so `div` is the ceiling's floor
            .withColumn("_n", F.when(F.col("_span") > 0, F.expr("(_span + slide - 1) div slide"))
                        .otherwise(F.lit(0).cast("long")))
            .select("*", k.alias("_k"))
            .withColumn("start", F.col("_last") - F.col("_k") * F.col("slide"))
            .withColumn("end", F.col("start") + F.col("size"))
            .withColumn("max_ts", F.col("end") - 1)
            .drop("_last", "_span", "_n", "_k"))


def cleanup_time(max_ts: Column) -> Column:
    """`WindowOperator.cleanupTime` for event time: `maxTimestamp + allowedLateness`, saturating."""
    return col_saturating_add(max_ts, F.col("lateness"))


def late_elements(records: DataFrame) -> DataFrame:
    """The records no window took and that are late (`isElementLate`): side output or dropped.

    The window an element is last to lose is its first (latest-ending) one, `[lastStart,
    lastStart + size)`; an element with no window at all is skipped too.
    """
    last_max_ts = window_start(F.col("ts"), F.col("offset"), F.col("slide")) + F.col("size") - 1
    no_window = last_max_ts < F.col("ts")
    skipped = no_window | (cleanup_time(last_max_ts) <= F.col("wm"))
    late = skipped & (col_add(F.col("ts"), F.col("lateness")) <= F.col("wm"))
    return (records.filter(late)
            .select("case_id", F.when(F.col("side_output"), "late").otherwise("dropped").alias("kind"),
                    "at", "key", "value", "ts"))


def added_elements(records: DataFrame) -> DataFrame:
    """(element, window) rows for the windows that took the element (not late at its arrival)."""
    return assign_windows(records).filter(cleanup_time(F.col("max_ts")) > F.col("wm"))


def first_watermark_reaching(steps: DataFrame, times: DataFrame) -> DataFrame:
    """For each (case_id, max_ts) in `times`: `fire_at`, `fire_wm` of the first watermark event whose
    watermark is `>= max_ts`, or no row when none is.

    `steps` holds the watermark events that advanced the watermark (`case_id, at, wm`); their `wm`
    grows with `at`, so the smallest `wm >= max_ts` is also the earliest. The lookup sorts the few
    distinct times with the steps instead of joining every window to every watermark.
    """
    tagged = (times.select("case_id", F.col("max_ts").alias("v"), F.lit(0).alias("side"),
                           F.lit(None).cast("long").alias("s_at"))
              .unionByName(steps.select("case_id", F.col("wm").alias("v"), F.lit(1).alias("side"),
                                        F.col("at").alias("s_at"))))
    # Descending, so the nearest step at or above each time is the last one seen: a running frame.
    seen = (Window.partitionBy("case_id").orderBy(F.desc("v"), F.desc("side"))
            .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    found = (tagged
             .withColumn("fire_at", F.last("s_at", ignorenulls=True).over(seen))
             .withColumn("fire_wm", F.last(F.when(F.col("side") == 1, F.col("v")), ignorenulls=True)
                         .over(seen)))
    return (found.filter((F.col("side") == 0) & F.col("fire_at").isNotNull())
            .select("case_id", F.col("v").alias("max_ts"), "fire_at", "fire_wm"))


def watermark_steps(events: DataFrame) -> DataFrame:
    """The watermark events that advanced the watermark, with the watermark they set."""
    return (events.filter((F.col("kind") == WATERMARK) & (F.col("ts") > F.col("wm")))
            .select("case_id", "at", F.col("ts").alias("wm")))


def in_arrival_order(at: str, value: str) -> Column:
    """The window's contents as Flink's list state holds them: in arrival order."""
    # sort_array orders structs natively (array_sort would call a lambda comparator per comparison)
    return F.transform(F.sort_array(F.collect_list(F.struct(F.col(at).alias("a"), F.col(value).alias("v")))),
                       lambda e: e["v"])


WINDOW_ID = ["case_id", "key", "start", "end", "max_ts"]


def on_time_firings(added: DataFrame, steps: DataFrame) -> DataFrame:
    """`EventTimeTrigger.onEventTime` at maxTimestamp: the timer registered by the first element that
    arrived while the watermark was still below maxTimestamp."""
    early = added.filter(F.col("wm") < F.col("max_ts"))
    windows = early.groupBy(*WINDOW_ID).agg(in_arrival_order("at", "value").alias("values"))
    fire = first_watermark_reaching(steps, windows.select("case_id", "max_ts").distinct())
    return (windows.join(fire, ["case_id", "max_ts"])
            .select(*WINDOW_ID, F.col("fire_at").alias("at"), "values", F.col("fire_wm").alias("watermark")))


def late_firings(added: DataFrame) -> DataFrame:
    """`EventTimeTrigger.onElement` when maxTimestamp <= watermark: fires at once with everything the
    window holds (all added elements up to and including this one)."""
    late = (added.filter(F.col("wm") >= F.col("max_ts"))
            .select(*WINDOW_ID, "at", F.col("wm").alias("watermark")))
    held = added.select(*WINDOW_ID, F.col("at").alias("held_at"), "value")
    return (late.join(held, WINDOW_ID).filter(F.col("held_at") <= F.col("at"))
            .groupBy(*WINDOW_ID, "at", "watermark").agg(in_arrival_order("held_at", "value").alias("values")))


def relational_outputs(events: DataFrame) -> DataFrame:
    """Firings (`kind` "firing") and late or dropped records of the cases in `events`, in the
    output schema of `spark_impl.frames.OUTPUT_COLUMNS`."""
    events = with_arrival_watermark(check_range(events))
    records = events.filter(F.col("kind") == RECORD)
    added = added_elements(records)
    firings = on_time_firings(added, watermark_steps(events)).unionByName(late_firings(added))
    firing_rows = firings.select(
        "case_id", F.lit("firing").alias("kind"), "at", "key",
        F.col("start").alias("window_start"), F.col("end").alias("window_end"),
        F.col("max_ts").alias("timestamp"), "values", "watermark")
    late_rows = late_elements(records)
    return (firing_rows.unionByName(late_rows, allowMissingColumns=True)
            .withColumn("message", F.lit(None).cast("string")))

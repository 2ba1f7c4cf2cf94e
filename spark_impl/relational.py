"""The relational pipeline: tumbling, sliding and cumulative event-time windows with Flink's default trigger.

For `EventTimeTrigger` without evictor the outputs are a function of a few facts per (element,
window), so they are joins, window functions and aggregations, and run on a cluster as they run
locally. The watermark only grows, so "the watermark at an arrival is `>= T`" is the same as "the
arrival comes after the first watermark event that reached `T`". That turns every per-record
question about the watermark into a lookup per *window end*, and those are few:

- the watermark steps are the watermark events that raised the watermark (a running max over the
  case's watermark events only; the initial watermark is `Long.MIN_VALUE`);
- an element's windows are `getWindowStartWithOffset` and the sliding loop's (or the cumulative one's, whose
  windows share the start of their period and end at every step after the element), none where `size < slide`
  leaves the element in a gap; a window holds the elements with `start <= ts < end`;
- for each distinct window end of a case: `fire_at`, the first step reaching `maxTimestamp`, and
  `clean_at`, the first step reaching `cleanupTime = maxTimestamp + allowedLateness` (saturating).
  Both come from one sort of the window ends with the steps (`first_watermark_reaching`);
- an element is added to a window unless it arrives after `clean_at` (the window is late);
- the on-time firing of a window is at `fire_at` with every element added before it (the timer was
  registered by the first of them; the watermark only grows);
- an element added after `fire_at` fires the window at its arrival with everything the window
  holds then, i.e. the window's added elements up to it in arrival order (no purge; cleanup empties
  the window only at `clean_at`, after which nothing is added). Such a late firing needs the
  watermark at its arrival, the last step before it (`with_arrival_watermark`), looked up only for
  the records that arrive after `fire_at` of their earliest-ending window, before the grouping;
- an element none of whose windows took it is late when `ts + allowedLateness <= watermark`
  (wrapping add, as Flink's `isElementLate`): side output or dropped. When it has windows, its
  latest-ending window was skipped, so `ts + allowedLateness <= cleanupTime <= watermark` already
  holds; only an element without any window (`size < slide`) needs the watermark at its arrival.

Every decision above is per (element, window), and all of them are taken on a window's contents, its
elements in arrival order, each with its arrival and the watermark at it: whether the element is added
(before `clean_at`), fires on time (before `fire_at`) or late (with the window's added elements up to it).
So no row is made per (element, window). Only the window ends, the watermark steps and the records that may
fire a window late are ever sorted in arrival order per case. The bulk of the data is shuffled once, by
(case, key); on the partition where a record landed it goes into one or two *buckets* of its key, intervals
of `size` (`buckets`: a sliding window starting in a bucket ends in the next one), a bucket's elements are
collected once in arrival order, and each window starting in the bucket takes its elements from them with a
filter (`added_by_window`), joined to the broadcast window ends; nothing orders all of a case's
records in one partition. (A window's firing still lists each of its elements, so the output holds one
value per (element, window) fired, as Flink's does.) Flink SQL's window aggregation slices windows into
panes of `gcd(size, slide)` (`SliceAssigners`) to merge accumulators; collected values cannot be merged
more cheaply than they are filtered, and a pane holds few elements in a replayed log (one on average at
1,000 keys and a slide of 1,000 ms), so the buckets take elements, not panes.

Input: events with `case_id, at, kind, key, value, ts` (kind 0 record, 1 watermark; the end of input
is a watermark `Long.MAX_VALUE` after every other event) and the case's `size, slide, offset,
lateness, side_output` and `step` (a tumbling window is a sliding one with `slide = size`; a cumulative one the
tumbling window of its period, `slide = size`, cut at every `step`, which is 0 for the others). `lateness` may be
anything up to `Long.MAX_VALUE` (`cleanupTime` saturates, `ts + allowedLateness` wraps, both as Flink).

Which cases the pipeline may take. Record times must lie in `(-2^62, 2^62)` (`record_rows` checks),
`size`, `slide` and `offset` too (`abs(offset) < slide`), and for sliding windows
`size + slide <= 2^62 + 2` (`MAX_SIZE_PLUS_SLIDE`). The times alone do not decide: the pipeline counts
an element's windows as `ceil((lastStart - ts + size) / slide)`, which is Flink's loop only while
`start -= slide` stays in `long` range. Flink's loop yields `start` while `start > ts - size`, so the
last start it yields is at least `ts - size + 1`, and the step after it computes
`start - slide >= ts - size + 1 - slide >= -2^62 + 2 - (size + slide)`, which stays `>= Long.MIN_VALUE`
exactly when `size + slide <= 2^62 + 2`. Past that bound an offset that puts a start at
`ts - size + 1` (for `ts = -2^62 + 1`) makes the step wrap to the top of the range, where Flink's loop
goes on and yields windows this pipeline cannot see (Flink yields 13 windows, the count here 3, for
size 4,095,478,782,535,442,554, slide 1,715,769,752,256,965,152 and one record at
-4,611,686,018,427,387,090: `cases/sliding/wrap_around_band.json`). Within the bounds every other
sum stays in range: `ts - offset` and `lastStart = ts - (r + slide)` lie above `-2^63` (`|ts|, slide <
2^62`), `lastStart - ts + size + slide - 1 <= size + slide - 1`, and a window's `end = start + size
<= ts + size < 2^63`. An element's bucket starts at `getWindowStartWithOffset(ts, offset, size)`, in
`(ts - size, ts]`, above `-2^63`; the one before it may not, so buckets are named by `floorDiv(ts - offset, size)`,
and every window a bucket makes starts or ends where one of its elements' windows does, within these bounds.
A tumbling window has no loop: `start >= ts - size + 1` and `end <= ts +
size`. Nor has a cumulative one here: its ends lie between `firstEnd <= ts + step` and `lastStart + size <= ts +
size`, and the one sum of Flink's loop that can wrap, `lastEnd + step` past the last window, needs `extreme_values`
(`window_contract.long_sums`), whose cases are replayed.
"""

from __future__ import annotations

from typing import NamedTuple

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from spark_impl.javalong import LONG_MIN, col_add, col_saturating_add
from window_contract.facts import WINDOWS_PER_ELEMENT_LIMIT

RECORD, WATERMARK = 0, 1
#: Times of magnitude below this keep every sum of the relational pipeline in `long` range.
SAFE_BOUND = 2**62
#: The largest sliding `size + slide` whose loop `start -= slide` stays in `long` range for every time
#: in `(-SAFE_BOUND, SAFE_BOUND)` (derived in the module docstring).
MAX_SIZE_PLUS_SLIDE = SAFE_BOUND + 2
WINDOW_ID = ["case_id", "key", "start", "end", "max_ts"]
_PARAMS = ["size", "slide", "step", "offset", "lateness", "side_output"]


def window_parameters(assigner) -> dict[str, int]:
    """The pipeline's `size`, `slide`, `step` and `offset` of a tumbling, sliding or cumulative assigner: a
    tumbling window is a sliding one with `slide = size`; a cumulative one is the tumbling window of its period
    (`slide = size`) cut at every `step` (0 for the others)."""
    slide, step = getattr(assigner, "slide", assigner.size), getattr(assigner, "step", 0)
    return {"size": assigner.size, "slide": slide, "step": step, "offset": assigner.offset}


def sliding_loop_stays_in_range(size: int, slide: int) -> bool:
    """Whether `SlidingEventTimeWindows.assignWindows`' `start -= slide` stays in `long` range for
    every record time the pipeline takes, so its window count is Flink's (module docstring)."""
    return size + slide <= MAX_SIZE_PLUS_SLIDE


def sliding_windows_within_limit(size: int, slide: int) -> bool:
    """Whether no element gets more than `WINDOWS_PER_ELEMENT_LIMIT` windows: an element's sliding
    windows number at most `ceil(size / slide)`, so `size <= slide * limit` keeps every element within
    the contract's limit, and a case past it is replayed, where the assignment stops the case with
    `TOO_MANY_WINDOWS` instead of exploding a record into millions of rows here."""
    return size <= slide * WINDOWS_PER_ELEMENT_LIMIT


def record_rows(events: DataFrame) -> DataFrame:
    """The records of `events` (`case_id, at, key, value, ts` and the window parameters).

    A record time the pipeline cannot compute with fails the query with a clear message. Only
    records carry a `ts` here (null otherwise), so no rewrite of the filters by the optimizer can
    make window arithmetic meet a watermark's `Long.MAX_VALUE`.
    """
    is_record, ts = F.col("kind") == RECORD, F.col("ts")
    bad = is_record & ((ts >= F.lit(SAFE_BOUND)) | (ts <= F.lit(-SAFE_BOUND)))
    checked = F.when(bad, F.raise_error(F.concat(
        F.lit("timestamp "), ts.cast("string"), F.lit(" at position "), F.col("at").cast("string"),
        F.lit(" is outside (-2^62, 2^62), the range the relational window pipeline supports "
              "(Long.MIN_VALUE would fail the Flink job: no timestamp)"))).cast("long")).when(is_record, ts)
    return events.filter(is_record).select("case_id", "at", "key", "value", checked.alias("ts"), *_PARAMS)


def watermark_steps(events: DataFrame) -> DataFrame:
    """`case_id, at, wm`: the watermark events that raised the watermark, and the watermark they set
    (a watermark that does not increase is ignored)."""
    before = Window.partitionBy("case_id").orderBy("at").rowsBetween(Window.unboundedPreceding, -1)
    marks = events.filter(F.col("kind") == WATERMARK).select(
        "case_id", "at", "ts", F.max("ts").over(before).alias("_prev"))
    return (marks.filter(F.col("ts") > F.coalesce(F.col("_prev"), F.lit(LONG_MIN)))
            .select("case_id", "at", F.col("ts").alias("wm")))


def window_start(ts: Column, offset: Column, size: Column) -> Column:
    """`TimeWindow.getWindowStartWithOffset`: Spark's `%` on longs truncates like Java's."""
    r = (ts - offset) % size
    return F.when(r < 0, ts - (r + size)).otherwise(ts - r)


def assign_windows(records: DataFrame) -> DataFrame:
    """One row per (row, window) of `records`' rows (by their `ts`), with `start`, `end`,
    `max_ts`, `cleanup` and `k`: `SlidingEventTimeWindows.assignWindows` and `CumulativeWindowAssigner.assignWindows`.

    Sliding starts are `lastStart - k * slide` for k = 0, 1, ... (0 the latest-ending window) while
    `start > ts - size`, i.e. `k < ceil((lastStart - ts + size) / slide)`; with `size < slide` that can be no
    window at all. Cumulative windows all start at `lastStart` (the period's start, `slide = size`) and end at
    `firstEnd + k * step` (0 the earliest-ending) up to `lastStart + size`: `(lastStart + size - firstEnd) / step + 1`
    windows, `firstEnd` the end of the element's step.
    """
    last = records.select("*", window_start(F.col("ts"), F.col("offset"), F.col("slide")).alias("_last"))
    counted = last.select("*", _first_end().alias("_first_end")).select("*", _window_count().alias("_n"))
    ks = F.when(F.col("_n") > 0, F.sequence(F.lit(0).cast("long"), F.col("_n") - 1))
    start = F.when(_cumulative(), F.col("_last")).otherwise(F.col("_last") - F.col("k") * F.col("slide"))
    end = F.when(_cumulative(), F.col("_first_end") + F.col("k") * F.col("step")).otherwise(start + F.col("size"))
    return (counted.select("*", F.explode(ks).alias("k"))
            .select(*records.columns, "k", start.alias("start"), end.alias("end"), (end - 1).alias("max_ts"),
                    cleanup_time(end - 1).alias("cleanup")))


def _cumulative() -> Column:
    return F.col("step") > 0


def _first_end() -> Column:
    """A cumulative window's `firstEnd = getWindowStartWithOffset(ts, offset, step) + step` (the end of `ts`'s step)."""
    step = F.when(_cumulative(), F.col("step")).otherwise(F.lit(1))  # no `% 0` on the other rows
    return window_start(F.col("ts"), F.col("offset"), step) + step


def _earliest_start(n: Column) -> Column:
    """The start of the earliest-ending of an element's `n` windows: `lastStart - (n - 1) * slide` of the sliding
    loop (`SlidingEventTimeWindows.assignWindows`); a cumulative element's windows all start at `lastStart`."""
    return F.col("_last") - F.when(_cumulative(), 0).otherwise(n - 1) * F.col("slide")


def _window_count() -> Column:
    """How many windows hold the element at `ts` (module docstring; `_last` its window's `lastStart`)."""
    # integer division: both operands are positive where it is used, so `div` is the ceiling's floor
    return F.when(_cumulative(), F.expr("(_last + size - _first_end) div step + 1")).otherwise(
        F.expr("(_last - ts + size + slide - 1) div slide"))


def cleanup_time(max_ts: Column) -> Column:
    """`WindowOperator.cleanupTime` for event time: `maxTimestamp + allowedLateness`, saturating."""
    return col_saturating_add(max_ts, F.col("lateness"))


def first_watermark_reaching(steps: DataFrame, thresholds: DataFrame) -> DataFrame:
    """For each row of `thresholds` (`case_id, t` and any other columns): `reach_at`, `reach_wm` of
    the first watermark step whose watermark is `>= t`, or nulls when none is.

    The steps' `wm` grows with `at`, so the smallest `wm >= t` is also the earliest. The lookup sorts
    the thresholds with the steps instead of joining every threshold to every step.
    """
    tagged = thresholds.unionByName(steps.select("case_id", F.col("wm").alias("t"), F.col("at").alias("_s_at")),
                                    allowMissingColumns=True)
    # Descending, steps first on a tie, so the nearest step at or above each threshold is the last
    # step seen: a running frame.
    seen = (Window.partitionBy("case_id").orderBy(F.desc("t"), F.col("_s_at").isNull())
            .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    return (tagged.select("*", F.last("_s_at", ignorenulls=True).over(seen).alias("reach_at"),
                          F.last(F.when(F.col("_s_at").isNotNull(), F.col("t")), ignorenulls=True)
                          .over(seen).alias("reach_wm"))
            .filter(F.col("_s_at").isNull()).drop("_s_at"))


def window_ends(records: DataFrame, steps: DataFrame) -> DataFrame:
    """`case_id, max_ts, fire_at, fire_wm, clean_at` for every window end of the cases' records: when
    the watermark first reaches the window's `maxTimestamp` and its `cleanupTime`.

    The ends come from the distinct `lastStart`s, each with the earliest of its timestamps (the one
    with the most windows: a sliding window's earliest, a cumulative period's whole), not from every
    (element, window) row.
    """
    last = window_start(F.col("ts"), F.col("offset"), F.col("slide")).alias("_last")
    starts = (records.groupBy("case_id", last, "size", "slide", "step", "offset", "lateness")
              .agg(F.min("ts").alias("ts")).drop("_last"))
    ends = assign_windows(starts).select("case_id", "max_ts", "cleanup").distinct()
    thresholds = ends.select("case_id", "max_ts", F.explode(F.array(
        F.struct(F.lit(True).alias("fire"), F.col("max_ts").alias("t")),
        F.struct(F.lit(False).alias("fire"), F.col("cleanup").alias("t")))).alias("_t"))
    reached = first_watermark_reaching(steps, thresholds.select("case_id", "max_ts", "_t.fire", "_t.t"))
    # Both lookups of one window end come back on the same partition (by case_id): no shuffle.
    return reached.groupBy("case_id", "max_ts").agg(
        F.max(F.when(F.col("fire"), F.col("reach_at"))).alias("fire_at"),
        F.max(F.when(F.col("fire"), F.col("reach_wm"))).alias("fire_wm"),
        F.max(F.when(~F.col("fire"), F.col("reach_at"))).alias("clean_at"))


def with_arrival_watermark(rows: DataFrame, steps: DataFrame) -> DataFrame:
    """`rows` (with `case_id, at`) plus `wm`: the watermark when the event at `at` arrives, i.e. that
    of the last step before it (`Long.MIN_VALUE` before the first)."""
    tagged = rows.unionByName(steps.select("case_id", "at", F.col("wm").alias("_step_wm")),
                              allowMissingColumns=True)
    upto = Window.partitionBy("case_id").orderBy("at").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    return (tagged.select("*", F.last("_step_wm", ignorenulls=True).over(upto).alias("_wm"))
            .filter(F.col("_step_wm").isNull())
            .select(*rows.columns, F.coalesce(F.col("_wm"), F.lit(LONG_MIN)).alias("wm")))


def buckets(records: DataFrame) -> DataFrame:
    """One row per (case, key, bucket) of `records` (with `wm` at the arrival of an element that may fire its window
    late): `_elements`, the elements of the windows that start in the bucket, in arrival order (each its arrival,
    value, arrival watermark and time), and `_lo`, `_hi`, `_start`, which of its windows may hold one.

    A bucket is `[b, b + size)`, `b = getWindowStartWithOffset(ts, offset, size)`. A sliding window starting in it
    ends before `b + 2 * size`, so an element goes to its own bucket when one of its windows starts at `b` or later
    and to the bucket before when one starts before `b`; its windows starting in a bucket are a run of starts `last -
    k * slide` (`last`, its latest-ending window's). A cumulative window starts at its period's start, its bucket.
    The bucket's windows are those between `_lo` and `_hi`, the first and last of its elements' window starts in it
    (sliding; a cumulative bucket: the first and last window end, `_start` the period's start), each a start or end
    of an element's window and so within `long` range (module docstring). A bucket is named by `floorDiv(ts -
    offset, size)`, not by `b`: the bucket before an element's may start below `Long.MIN_VALUE`.
    """
    ts, size, slide, step, n, last, own = (F.col(c) for c in ("ts", "size", "slide", "step", "_n", "_last", "_own"))
    sliding, earliest = ~_cumulative(), _earliest_start(n)
    # how many slides separate `last` from the first of the element's starts at or after `own` (`last >= own`)
    from_own = F.expr("(_last - _own) div slide")
    mine = F.struct(F.col("_bucket").alias("bucket"),
                    F.when(sliding, last - from_own * slide).otherwise(F.col("_first_end")).alias("lo"),
                    F.when(sliding, last).otherwise(F.col("_first_end") + (n - 1) * step).alias("hi"))
    before = F.struct((F.col("_bucket") - 1).alias("bucket"), earliest.alias("lo"),
                      F.when(last < own, last).otherwise(last - (from_own + 1) * slide).alias("hi"))
    into = F.array(F.when((n > 0) & (_cumulative() | (last >= own)), mine),
                   F.when((n > 0) & (earliest < own), before))
    floor = F.expr("(ts - offset) div size") - F.when((ts - F.col("offset")) % size < 0, 1).otherwise(0)
    placed = (records
              .select("*", window_start(ts, F.col("offset"), slide).alias("_last"), _first_end().alias("_first_end"))
              .select("*", _window_count().alias("_n"), window_start(ts, F.col("offset"), size).alias("_own"),
                      floor.alias("_bucket"))
              .select("case_id", "key", *_PARAMS, "at", "value", "wm", "ts", "_last", F.explode(into).alias("_in"))
              .filter(F.col("_in").isNotNull()))
    return placed.groupBy(F.col("_in.bucket").alias("_bucket"), "key", "case_id", *_PARAMS).agg(
        F.sort_array(F.collect_list(F.struct(F.col("at").alias("a"), F.col("value").alias("v"),
                                             F.col("wm").alias("w"), F.col("ts").alias("t")))).alias("_elements"),
        F.min("_in.lo").alias("_lo"), F.max("_in.hi").alias("_hi"), F.max("_last").alias("_start"))


def added_by_window(bucket_rows: DataFrame, ends: DataFrame) -> DataFrame:
    """`WINDOW_ID`, the window end's `fire_at` and `fire_wm` (`window_ends`), and `_added`, every element added to
    the window in arrival order (none where every element came late: it fires nothing): the windows of each bucket
    (`buckets`) from `_lo` to `_hi`, each taking the bucket's elements whose time lies in it (`start <= ts < end`:
    the windows `SlidingEventTimeWindows.assignWindows` and `CumulativeWindowAssigner.assignWindows` give `ts`,
    within the bounds of the module docstring) and that arrived before `clean_at` (later, the window was late and
    the element not added), in the order the window's `ListState` holds them (arrival)."""
    size = F.col("size")
    every = F.sequence(F.col("_lo"), F.col("_hi"), F.when(_cumulative(), F.col("step")).otherwise(F.col("slide")))
    window = F.transform(every, lambda x: F.when(_cumulative(), F.struct(F.col("_start").alias("start"),
                                                                         x.alias("end")))
                         .otherwise(F.struct(x.alias("start"), (x + size).alias("end"))))
    windows = bucket_rows.select("case_id", "key", "_elements", F.explode(window).alias("_w")).select(
        "case_id", "key", "_elements", F.col("_w.start").alias("start"), F.col("_w.end").alias("end"),
        (F.col("_w.end") - 1).alias("max_ts"))
    start, end, clean_at = F.col("start"), F.col("end"), F.col("clean_at")
    added = F.filter("_elements", lambda e: (e["t"] >= start) & (e["t"] < end)
                     & (clean_at.isNull() | (e["a"] < clean_at)))
    # No filter on `_added` after it: Spark would push it below the projection and filter the elements twice.
    return windows.join(ends, ["case_id", "max_ts"]).select(*WINDOW_ID, "fire_at", "fire_wm", added.alias("_added"))


def firings(windows: DataFrame) -> DataFrame:
    """On-time and late firings of the windows from the elements added to them (`added_by_window`): those
    that arrived before `fire_at` are the on-time firing's, and each later one fires the window at its arrival
    with every element added up to it."""
    fire_at, elements = F.col("fire_at"), F.col("_added")  # in arrival order, as Flink's list state
    # Arrival order: when the last element came before fire_at, all did, and no pass over them counts them.
    all_early = fire_at.isNull() | (F.try_element_at(elements, F.lit(-1))["a"] < fire_at)
    early = F.when(all_early, F.size(elements)).otherwise(
        F.size(F.filter(elements, lambda e: e["a"] < fire_at)))
    windows = windows.select("*", early.alias("_early"))
    values, early = F.col("_added.v"), F.col("_early")
    on_time = F.slice(F.array(F.struct(fire_at.alias("at"), F.slice(values, F.lit(1), early).alias("values"),
                                       F.col("fire_wm").alias("watermark"))),
                      1, F.when(fire_at.isNotNull() & (early > 0), 1).otherwise(0))
    late = F.transform(F.slice(elements, early + 1, F.size(elements)), lambda e, i: F.struct(
        e["a"].alias("at"), F.slice(values, F.lit(1), early + i + 1).alias("values"), e["w"].alias("watermark")))
    return (windows.select(*WINDOW_ID, F.explode(F.concat(on_time, late)).alias("_f"))
            .select(*WINDOW_ID, "_f.at", "_f.values", "_f.watermark"))


class RelationalOutputs(NamedTuple):
    """The pipeline's `outputs`, and the frames that more than one kind of output reads (`shared`): the watermark
    steps, the window ends, the records a window skipped or that arrive after a window of theirs fired (or fall in
    none), and the latter with the watermark at their arrival.
    Kept (`WindowOutputs.persist`), they are computed once: the firings' query alone builds the windows, and the
    late and dropped records read only what is kept."""

    outputs: DataFrame
    shared: tuple[DataFrame, ...]


def relational_outputs(events: DataFrame, *, gaps: bool = True) -> RelationalOutputs:
    """Firings (`kind` "firing") and late or dropped records of the cases in `events`, in the
    output schema of `spark_impl.frames.OUTPUT_SCHEMA`. `gaps`: whether a case may have sliding windows
    with gaps between them (`size < slide`), where a record can fall in no window; without, the plan
    leaves out the watermark lookup such records need."""
    steps = watermark_steps(events)
    records = record_rows(events)
    end_facts = window_ends(records, steps)
    ends = F.broadcast(end_facts)
    # Per record, its latest-ending window decides whether it was skipped, its earliest-ending one
    # whether it can fire a window late (after fire_at); a record with no window at all is late once
    # ts + allowedLateness reaches the watermark.
    last = window_start(F.col("ts"), F.col("offset"), F.col("slide"))
    earliest = F.when(_cumulative(), F.col("_first_end") - 1).otherwise(
        _earliest_start(_window_count()) + F.col("size") - 1)
    bounds = records.select("*", last.alias("_last"), _first_end().alias("_first_end")).select(
        *records.columns, (F.col("_last") + F.col("size") - 1).alias("_latest"), earliest.alias("_earliest"))
    latest = ends.select("case_id", F.col("max_ts").alias("_latest"), "clean_at")
    earliest = ends.select("case_id", F.col("max_ts").alias("_earliest"), "fire_at")
    judged = bounds.join(latest, ["case_id", "_latest"], "left").join(earliest, ["case_id", "_earliest"], "left")
    windowless = (F.col("_latest") < F.col("ts")) if gaps else F.lit(False)
    was_skipped = ~windowless & (F.col("at") > F.col("clean_at"))
    after_firing = windowless | (F.col("at") > F.col("fire_at"))
    # The few records that are not simply added on time, read from the records once.
    unusual = judged.filter(was_skipped | after_firing).select(
        "case_id", "at", "key", "value", "ts", "lateness", "side_output", windowless.alias("_windowless"),
        was_skipped.alias("_skipped"), after_firing.alias("_after_firing"))
    timed = with_arrival_watermark(unusual.filter("_after_firing").select(
        "case_id", "at", "key", "value", "ts", "lateness", "side_output", "_windowless"), steps)
    # The kind is decided above what `shared` keeps: reading the firings then leaves these rows out unread.
    kind = F.when(F.col("side_output"), "late").otherwise("dropped").alias("kind")
    skipped = unusual.filter("_skipped").select("case_id", kind, "at", "key", "value", "ts")
    lost = (timed.filter(F.col("_windowless") & (col_add(F.col("ts"), F.col("lateness")) <= F.col("wm")))
            .select("case_id", kind, "at", "key", "value", "ts"))
    arrival_wm = F.broadcast(timed.filter(~F.col("_windowless")).select("case_id", "at", "wm"))
    # Keys are independent: the one shuffle of the records is by key, after which every bucket and window
    # row stays on its partition (what is joined to them is broadcast, the grouping by bucket needs no
    # shuffle). Everything else about a record is decided where it was read.
    by_key = records.repartition("case_id", "key").join(arrival_wm, ["case_id", "at"], "left")
    firing_rows = firings(added_by_window(buckets(by_key), ends)).select(
        "case_id", F.lit("firing").alias("kind"), "at", "key", F.col("start").alias("window_start"),
        F.col("end").alias("window_end"), F.col("max_ts").alias("timestamp"), "values", "watermark")
    outputs = (firing_rows.unionByName(skipped, allowMissingColumns=True)
               .unionByName(lost, allowMissingColumns=True)
               .withColumn("message", F.lit(None).cast("string")))
    return RelationalOutputs(outputs, (steps, end_facts, unusual, timed))

"""Flink's DataStream joins on PySpark, for `join-case/1` cases (written from Flink's classes, not from the model).

**Window join and coGroup.** Flink 2.3 builds them as a window operator over the tagged union of both inputs
(`window_contract.join_union` states that job), so they are this package's own window pipeline
(`SparkImplementation`'s) over the union's case, its firings turned into pairs or coGroup calls.

**Interval join** (`IntervalJoinOperator`), relationally. What the operator does for a record depends on the
operator's watermark at its arrival and on which buffered elements are still there, and both are facts per record:

- *The watermark.* Each input's channels meet in that input's `StatusWatermarkValve`; the two valves' outputs
  combine as `CombinedWatermarkStatus` does (the minimum over inputs that are not idle, the maximum when all are,
  taken only when it rises). A fold over a case's watermark events on the driver gives `wm`, the operator's
  watermark before each event, and the *advances* `(q, watermark)`: the positions where it rose.
- *Late.* A record is late when `ts < wm` at its arrival (`isLate`): it goes to its side's late output (or is
  dropped) and takes no further part.
- *Cleanup.* A buffered element registers a timer at `cleanup = ts + relativeUpper` (if that bound is positive,
  else `ts`), where `relativeUpper` is `upper` for a left element and `-lower` for a right one (bounds made
  inclusive first: `lower + 1`, `upper - 1` when exclusive; Java `long` sums). The timer removes the whole bucket of
  that timestamp, and all elements of a bucket share the timer, so an element is removed at the first advance
  after its arrival whose watermark reaches `cleanup` (timers fire only when the watermark rises): `removed_at`.
- *Pairs.* Of two non-late partners of one key, the later arrival joins the earlier one if that one is not removed
  yet (`removed_at > later.at`) and lies in the later one's interval: a right element at `r` joins left ones with
  `l` in `[r - upper, r - lower]`, a left one at `l` right ones in `[l + lower, l + upper]` (wrapping sums: the two
  tests differ only under overflow). The pair is emitted at the later arrival with timestamp `max(l, r)` and the
  watermark `wm` there.
- A record at `Long.MIN_VALUE` fails the job at its position: nothing from there on.

The records are joined with the advances (for `removed_at`) and with each other (for the pairs) by case and key,
as Spark joins any two tables; only the watermark fold runs per case, on the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_impl.javalong import LONG_MAX, LONG_MIN, add, col_add, wrap
from spark_impl.watermarks import StatusWatermarkValve
from window_contract.case import Case, EndOfChannel, Record, Watermark, WatermarkStatus
from window_contract.join_case import IntervalJoin, JoinCase
from window_contract.join_observation import SIDES, JoinObservation, Pair, SideRecord
from window_contract.join_union import join_observation, union_case
from window_contract.observation import Error, InputWatermark, Observation

BOUNDS_MESSAGE = "lowerBound <= upperBound must be fulfilled"
NO_TIMESTAMP_MESSAGE = ("Long.MIN_VALUE timestamp: Elements used in interval stream joins need to have timestamps "
                        "meaningful timestamps.")


def inclusive_bounds(join: IntervalJoin) -> tuple[int, int]:
    """The operator's `lowerBound`, `upperBound`: an exclusive bound moved by one (wrapping)."""
    return (add(join.lower, 1) if join.lower_exclusive else join.lower,
            add(join.upper, -1) if join.upper_exclusive else join.upper)


class TwoInputWatermark:
    """The operator's watermark from its two inputs' valves: `(watermark, idle)` per input, combined."""

    def __init__(self) -> None:
        self.inputs = [[LONG_MIN, False], [LONG_MIN, False]]
        self.current = LONG_MIN

    def watermark(self, index: int, watermark: int) -> int | None:
        self.inputs[index] = [max(self.inputs[index][0], watermark), False]
        return self._combined()

    def status(self, index: int, idle: bool) -> int | None:
        self.inputs[index][1] = idle
        return self._combined()

    def _combined(self) -> int | None:
        """The new operator watermark, or None when it did not rise."""
        active = [w for w, idle in self.inputs if not idle]
        combined = min(active) if active else max(w for w, _ in self.inputs)
        if combined > self.current:
            self.current = combined
            return combined
        return None


def watermark_fold(case: JoinCase) -> tuple[list[int], list[tuple[int, int]], int | None]:
    """`wm` before each event, the advances `(position, watermark)` (the end of input at `len(events)`), and the
    position of the first record at `Long.MIN_VALUE` (the job's failure) or None."""
    valves = {side: StatusWatermarkValve(case.channels(side)) for side in SIDES}
    is_open = {side: [True] * case.channels(side) for side in SIDES}
    combined = TwoInputWatermark()
    before: list[int] = []
    advances: list[tuple[int, int]] = []
    failed_at = None

    def through(at: int, side: str, outputs: list[int]) -> None:
        for w in outputs:
            if (raised := combined.watermark(SIDES.index(side), w)) is not None:
                advances.append((at, raised))

    def status(at: int, side: str, channel: int, idle: bool) -> None:
        valve = valves[side]
        was_active = valve.active
        through(at, side, valve.input_status(channel, idle))
        if valve.active != was_active and (raised := combined.status(SIDES.index(side), not valve.active)) is not None:
            advances.append((at, raised))

    for at, e in enumerate(case.events):
        before.append(combined.current)
        event, side = e.event, e.input
        if isinstance(event, Record) and event.ts == LONG_MIN and failed_at is None:
            failed_at = at
        elif isinstance(event, Watermark):
            through(at, side, valves[side].input_watermark(event.channel, event.timestamp))
        elif isinstance(event, WatermarkStatus):
            status(at, side, event.channel, event.idle)
        elif isinstance(event, EndOfChannel):
            is_open[side][event.channel] = False
            through(at, side, valves[side].input_watermark(event.channel, LONG_MAX))
    if case.end_of_input:
        for side in SIDES:
            for channel, still_open in enumerate(is_open[side]):
                if still_open:
                    through(len(case.events), side, valves[side].input_watermark(channel, LONG_MAX))
    return before, advances, failed_at


def _interval_frames(session, cases: dict[int, JoinCase]) -> tuple[DataFrame, DataFrame, dict]:
    """The records (with their watermark, late flag and interval) and the advances of every case, as tables."""
    records, advances, folds = [], [], {}
    for case_id, case in cases.items():
        before, raised, failed_at = folds[case_id] = watermark_fold(case)
        lower, upper = inclusive_bounds(case.join)
        relative = {"left": (lower, upper), "right": (wrap(-upper), wrap(-lower))}
        end = len(case.events) if failed_at is None else failed_at
        for at, e in enumerate(case.events[:end]):
            if isinstance(e.event, Record):
                rel_lower, rel_upper = relative[e.input]
                records.append((case_id, at, e.input, e.event.key, e.event.value, e.event.ts, before[at], rel_lower,
                                rel_upper, getattr(case.join, f"{e.input}_late_output")))
        advances += [(case_id, q, w) for q, w in raised if q < end]
    schema = ("case_id int, at int, side string, key string, value long, ts long, wm long, rel_lower long, "
              "rel_upper long, late_output boolean")
    return (session.createDataFrame(records, schema),
            session.createDataFrame(advances, "case_id int, q int, watermark long"), folds)


def interval_join_observations(session, cases: dict[int, JoinCase]) -> dict[int, JoinObservation]:
    records, advances, folds = _interval_frames(session, cases)
    records = records.withColumn("late", F.col("ts") < F.col("wm")).cache()
    on_time = records.where(~F.col("late")).withColumns({
        "cleanup": F.when(F.col("rel_upper") > 0, col_add(F.col("ts"), F.col("rel_upper"))).otherwise(F.col("ts")),
        "lowest": col_add(F.col("ts"), F.col("rel_lower")), "highest": col_add(F.col("ts"), F.col("rel_upper"))})
    a = advances.alias("a")
    removed = on_time.alias("r").join(
        a, (F.col("r.case_id") == F.col("a.case_id")) & (F.col("a.q") > F.col("r.at"))
        & (F.col("a.watermark") >= F.col("r.cleanup"))).groupBy("r.case_id", "r.at").agg(
        F.min("a.q").alias("removed_at"))
    buffered = on_time.join(removed, ["case_id", "at"], "left")
    left = buffered.where(F.col("side") == "left").alias("l")
    right = buffered.where(F.col("side") == "right").alias("r")

    def joins(later: str, earlier: str):
        """`later` arrives after `earlier`, which is still buffered and in `later`'s interval."""
        return ((F.col(f"{earlier}.at") < F.col(f"{later}.at"))
                & (F.col(f"{earlier}.removed_at").isNull() | (F.col(f"{earlier}.removed_at") > F.col(f"{later}.at")))
                & (F.col(f"{earlier}.ts") >= F.col(f"{later}.lowest"))
                & (F.col(f"{earlier}.ts") <= F.col(f"{later}.highest")))

    pairs = left.join(right, (F.col("l.case_id") == F.col("r.case_id")) & (F.col("l.key") == F.col("r.key"))
                      & (joins("r", "l") | joins("l", "r"))).select(
        F.col("l.case_id").alias("case_id"), F.greatest("l.at", "r.at").alias("at"), F.col("l.key").alias("key"),
        F.greatest("l.ts", "r.ts").alias("timestamp"),
        F.when(F.col("l.at") > F.col("r.at"), F.col("l.wm")).otherwise(F.col("r.wm")).alias("watermark"),
        F.col("l.value").alias("left"), F.col("r.value").alias("right"))
    late = records.where(F.col("late")).select("case_id", "at", "side", "key", "value", "ts", "late_output")
    found = {i: {"outputs": [], "late": [], "dropped": []} for i in cases}
    for row in pairs.collect():
        found[row.case_id]["outputs"].append(Pair(row.at, row.key, row.timestamp, row.watermark, row.left, row.right))
    for row in late.collect():
        found[row.case_id]["late" if row.late_output else "dropped"].append(
            SideRecord(row.at, row.side, row.key, row.value, row.ts))
    records.unpersist()
    observations = {}
    for i, case in cases.items():
        _, raised, failed_at = folds[i]
        end = len(case.events) + 1 if failed_at is None else failed_at
        error = None if failed_at is None else Error("runtime", NO_TIMESTAMP_MESSAGE)
        observations[i] = JoinObservation(tuple(found[i]["outputs"]), tuple(found[i]["late"]),
                                          tuple(found[i]["dropped"]),
                                          tuple(InputWatermark(q, w) for q, w in raised if q < end), error)
    return observations


def run_joins(cases: Sequence[JoinCase], run: Callable[[list[Case]], list[Observation]],
              session) -> list[JoinObservation]:
    """Flink's DataStream joins on PySpark: the window joins' unions through `run` (`SparkImplementation`'s window
    pipeline), the interval joins relationally on `session`."""
    observations: dict[int, JoinObservation] = {}
    windowed = [i for i, c in enumerate(cases) if not isinstance(c.join, IntervalJoin)]
    unions = run([union_case(cases[i]) for i in windowed]) if windowed else []
    observations |= {i: join_observation(cases[i], o) for i, o in zip(windowed, unions, strict=True)}
    intervals = {i: c for i, c in enumerate(cases) if isinstance(c.join, IntervalJoin)}
    rejected = {i for i, c in intervals.items() if c.join.lower > c.join.upper}
    observations |= {i: JoinObservation(error=Error("invalid_spec", BOUNDS_MESSAGE)) for i in rejected}
    valid = {i: c for i, c in intervals.items() if i not in rejected}
    if valid:
        observations |= interval_join_observations(session, valid)
    return [observations[i] for i in range(len(cases))]

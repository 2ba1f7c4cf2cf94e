"""Spark Structured Streaming's stream-stream joins, driven micro-batch by micro-batch (`spark-streaming`, issue 50).

Flink's interval joins become the join a Spark user writes: two streams, each `withWatermark`, joined on the key and a
time range condition, in append mode (`StreamingSymmetricHashJoinExec`)::

    l = left.withWatermark("ts", delay).alias("l");  r = right.withWatermark("ts", delay).alias("r")
    l.join(r, (l.key == r.key) & (r.ts >= l.ts + lower) & (r.ts <= l.ts + upper), how)

- Flink's DataStream `intervalJoin(..).between(lower, upper)` is the `inner` join on `r.ts BETWEEN l.ts + lower AND
  l.ts + upper` (an exclusive bound a strict comparison); its output record's timestamp, `max(l.ts, r.ts)`, is the
  `greatest(l.ts, r.ts)` a Spark user selects to carry it;
- Flink SQL's interval join `l.rt BETWEEN r.rt + lower AND r.rt + upper` is the same condition written from the
  right, and its `inner`, `left`, `right`, `full` Spark's `inner`, `leftOuter`, `rightOuter`, `fullOuter`. Spark's
  rows carry no element timestamp: a row's `timestamp` is `None`.

The watermarks. A join case lists each input's watermarks; Spark computes an input's from the event times it has
seen, `max(ts) - delay` after each micro-batch, and the query's global watermark from all of them by
`spark.sql.streaming.multipleWatermarkPolicy`, here `min`: Flink's combination of two inputs. So each input is one
stream of its records and of watermark rows, `withWatermark("ts", SHIFT)`: `Watermark(w)` is a row at `w + SHIFT`
(with a key of its own, `WATERMARK_KEYS`), which makes that input's watermark `w`, while the records' own times, far
below, never raise it. The watermark rows are filtered out before the join (by a filter that reads `ts`, so Spark
keeps it above `withWatermark`). The end of an input (its channel's end, or the end of a bounded case) is a
watermark row at `JOIN_END_OF_INPUT`, reported as Flink's `Long.MAX_VALUE`; a bounded case ends its left input, then
its right one, each a micro-batch, as Flink's end reaches them (the combined watermark may rise twice).

The driving: every event of the case is a micro-batch of its own, so what Spark emits is observed at the event
whose batch emitted it (`processAllAvailable` also runs the batch without data that a risen watermark starts: the
rows it pads are the watermark event's). A record's batch runs under the watermark of the batches before it, which
records never change: an output's watermark is the query's after its event. A record the join drops as late is
counted in its batch's `numRowsDroppedByWatermark` (Spark's only word on late rows), reported `dropped`; Spark has no
late side output, so a side that has one in Flink drops its late records too.

Not declared: Flink's window join and coGroup, and Flink SQL's window join. Spark's time-window equi-join
(`window(ts)` on both sides, joined on the window) is a relational join of window columns: it emits a pair when its
second row arrives, where Flink emits a window's pairs when the watermark closes it, so every pair would differ in
its position, and Flink's triggers, evictors and lateness have no counterpart. Several channels on an input are
not declared either: Spark's watermark is one per source, not per partition. A watermark status has no Spark
counterpart and changes nothing: an idle input holds the min back as any other.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from engines.spark_streaming_queries import END_OF_INPUT, memory_stream, processed_watermark, run_pooled, spark_message
from window_contract.case import EndOfChannel, Record, Watermark
from window_contract.facts import LONG_MAX
from window_contract.join_case import IntervalJoin, JoinCase
from window_contract.join_observation import SIDES, JoinObservation, JoinOutput, Pair, Side, SideRecord, SqlRow
from window_contract.observation import Error, InputWatermark

#: How far above the records a watermark row sits: `withWatermark("ts", SHIFT)` makes an input's watermark `w` from
#: a row at `w + SHIFT`, and a record (far below) never raises it. About 31,700 years: a record beyond `SHIFT` ms
#: (and within Spark's microseconds, about 9.2e15 ms) would raise its input's watermark; the cases' times stay far
#: below it, or beyond Spark's time altogether.
SHIFT = 1_000_000_000_000_000
#: The end of an input, a watermark row at `END_OF_INPUT + SHIFT`: within Spark's microseconds.
JOIN_END_OF_INPUT = END_OF_INPUT - SHIFT

#: The keys of the watermark rows: below the records' (from 0), and not the same on both sides, so that they never
#: join. Not null: Spark infers `isnotnull(key)` from the join's key equality and pushes it below `withWatermark`
#: (it does not read `ts`), where it would hide the watermark rows from the watermark.
WATERMARK_KEYS: dict[Side, int] = {"left": -1, "right": -2}

#: Spark's join types of Flink SQL's.
SPARK_JOIN_TYPES = {"inner": "inner", "left": "leftOuter", "right": "rightOuter", "full": "fullOuter"}

#: The min policy; and every micro-batch's progress kept (a query reports one or two a micro-batch, and a batch's
#: number of late rows is only there), not the last 100.
JOIN_SESSION_CONF = {"spark.sql.streaming.multipleWatermarkPolicy": "min",
                     "spark.sql.streaming.numRecentProgressUpdates": "100000"}


@dataclass(frozen=True)
class Row:
    """One row of a side's stream: a record (its key's index and its event's index) or a watermark row."""

    side: Side
    text: str


def event_rows(case: JoinCase, keys: dict[str, int]) -> list[tuple[int, list[Row]]]:
    """The micro-batches of the case, each with the position it is observed at: each event's rows, then the end of a
    bounded input, one input after the other (Flink's end of input reaches the left input first: the combined
    watermark may rise twice at the end)."""
    batches = []
    for at, e in enumerate(case.events):
        event = e.event
        if isinstance(event, Record):
            batches.append((at, [Row(e.input, f"{keys[event.key]},{at},{event.ts}")]))
        elif isinstance(event, Watermark):
            batches.append((at, [watermark_row(e.input, event.timestamp)]))
        elif isinstance(event, EndOfChannel):
            batches.append((at, [watermark_row(e.input, JOIN_END_OF_INPUT)]))
        else:  # a watermark status: Spark's sources have none
            batches.append((at, []))
    if case.end_of_input:
        batches += [(len(case.events), [watermark_row(side, JOIN_END_OF_INPUT)]) for side in SIDES]
    return batches


def watermark_row(side: Side, watermark: int) -> Row:
    """The row that makes `side`'s watermark `watermark`: at `watermark + SHIFT`, with its side's own key below 0. A
    watermark whose row would lie past `Long.MAX_VALUE` ms (which Spark's microseconds cannot hold anyway) is a row at
    `Long.MAX_VALUE`: the `DATETIME_OVERFLOW` of the window cases' listed `Watermark(Long.MAX_VALUE)`."""
    return Row(side, f"{WATERMARK_KEYS[side]},,{min(watermark + SHIFT, LONG_MAX)}")


def join_condition(case: JoinCase, left, right):
    """The key equality and the time range condition of the case's join, on Spark's `left` and `right` columns."""
    from pyspark.sql import functions as F

    def at(column, delta: int):
        return column + F.expr(f"INTERVAL {delta} MILLISECONDS")

    join = case.join
    keys = left["key"] == right["key"]
    if isinstance(join, IntervalJoin):
        low = (right["ts"] > at(left["ts"], join.lower)) if join.lower_exclusive else (
            right["ts"] >= at(left["ts"], join.lower))
        high = (right["ts"] < at(left["ts"], join.upper)) if join.upper_exclusive else (
            right["ts"] <= at(left["ts"], join.upper))
        return keys & low & high
    return keys & (left["ts"] >= at(right["ts"], join.lower)) & (left["ts"] <= at(right["ts"], join.upper))


class JoinQuery:
    """One join case as one streaming query: a memory stream per input, a memory sink out."""

    def __init__(self, spark, case: JoinCase) -> None:
        self.spark, self.case = spark, case
        self.keys = {key: i for i, key in enumerate(dict.fromkeys(
            e.event.key for e in case.events if isinstance(e.event, Record)))}
        self.batches = event_rows(case, self.keys)
        self.outputs: list[JoinOutput] = []
        self.dropped: list[SideRecord] = []
        self.watermarks: list[InputWatermark] = []
        self.error: Error | None = None
        self.watermark = 0
        self.emitted: Counter = Counter()
        self.progress_seen = 0  # how many of the query's progress reports have been read
        self.at = 0  # the position of the micro-batch sent last
        self.table = f"spark_streaming_join_{uuid.uuid4().hex}"
        self.query = None
        try:
            self.start()
        except Exception as e:
            self.error = Error("invalid_spec", spark_message(e))

    def start(self) -> None:
        from pyspark.sql import functions as F

        def stream():
            source, rows = memory_stream(self.spark, SHIFT)
            # This filter reads `ts`, so Spark keeps it above withWatermark, which sees the watermark rows.
            return source, rows.where((F.col("key") >= 0) | F.col("ts").isNull())

        self.sources = {}
        self.sources["left"], left = stream()
        self.sources["right"], right = stream()
        left, right = left.alias("l"), right.alias("r")
        join = self.case.join
        how = "inner" if isinstance(join, IntervalJoin) else SPARK_JOIN_TYPES[join.type]
        joined = left.join(right, join_condition(self.case, left, right), how)
        out = joined.select(F.coalesce("l.key", "r.key").alias("key"), F.col("l.record").alias("left"),
                            F.col("r.record").alias("right"))
        self.query = out.writeStream.format("memory").queryName(self.table).outputMode("append").start()

    def send(self, batch: tuple[int, list[Row]]) -> None:
        self.at, rows = batch
        as_seq = self.spark._jvm.scala.jdk.javaapi.CollectionConverters.asScala
        for side in SIDES:
            texts = [r.text for r in rows if r.side == side]
            if texts:
                self.sources[side].addData(as_seq(texts).toSeq())

    def settle(self, last: bool) -> None:
        """Waits for the micro-batches of the event just sent, then reads what they emitted."""
        at = self.at
        try:
            watermark = processed_watermark(self.query)
        except Exception as e:
            self.error = Error("runtime", spark_message(e))
            return
        if watermark > self.watermark:
            self.watermark = watermark
            self.watermarks.append(InputWatermark(at, reported(watermark)))
        if self.dropped_in_new_batches():
            event = self.case.events[at]
            record = event.event
            self.dropped.append(SideRecord(at, event.input, record.key, record.value, record.ts))
        rows = Counter((r.key, r.left, r.right) for r in self.spark.table(self.table).collect())
        for key, left, right in (rows - self.emitted).elements():
            self.outputs.append(self.output(at, key, left, right))
        self.emitted = rows

    def dropped_in_new_batches(self) -> int:
        """How many rows the join dropped as late in the micro-batches since the last look."""
        progress = self.query.recentProgress
        new, self.progress_seen = progress[self.progress_seen:], len(progress)
        return sum(op.get("numRowsDroppedByWatermark", 0) for p in new for op in p.get("stateOperators", []))

    def output(self, at: int, key: int, left: int | None, right: int | None) -> JoinOutput:
        key_name = next(k for k, i in self.keys.items() if i == key)
        value = {i: self.case.events[i].event for i in (left, right) if i is not None}
        watermark = reported(self.watermark)
        if isinstance(self.case.join, IntervalJoin):
            return Pair(at, key_name, max(value[left].ts, value[right].ts), watermark, value[left].value,
                        value[right].value)
        return SqlRow(at, key_name, watermark, value[left].value if left is not None else None,
                      value[right].value if right is not None else None)

    def stop(self) -> None:
        if self.query is not None:
            self.query.stop()
            self.spark.catalog.dropTempView(self.table)

    def observation(self) -> JoinObservation:
        if self.error is not None and self.error.kind == "invalid_spec":
            return JoinObservation(error=self.error)
        return JoinObservation(tuple(self.outputs), (), tuple(self.dropped), tuple(self.watermarks), self.error)


def reported(watermark: int) -> int:
    """Spark's watermark, except that the end-of-input row's stands for Flink's `Long.MAX_VALUE`."""
    return LONG_MAX if watermark >= JOIN_END_OF_INPUT else watermark


def run_joins(spark, cases: Sequence[JoinCase]) -> list[JoinObservation]:
    for name, value in JOIN_SESSION_CONF.items():
        spark.conf.set(name, value)
    return run_pooled(spark, cases, JoinQuery)

"""A table's `WATERMARK` clause: Flink SQL's `WatermarkAssignerOperator` in place of DataStream's generators.

A Flink SQL user declares the case's generator on the table: `WATERMARK FOR rowtime AS rowtime - INTERVAL 'b'`
(`forBoundedOutOfOrderness(b)`), `AS rowtime` (`forMonotonousTimestamps()`), `table.exec.source.idle-timeout`
(`withIdleness`), the job's `pipeline.auto-watermark-interval`. The planner makes it one `WatermarkAssignerOperator`
(`flink-table-runtime/.../operators/wmassigners/WatermarkAssignerOperator.java`) behind the table's source, not a
`TimestampsAndWatermarksOperator` per channel, and its rules are its own:

- one assigner for the table, after the channels have merged (their statuses and ends through the valve in front
  of it); of the watermarks from upstream only `Long.MAX_VALUE` passes, and every status is forwarded
  (`processWatermarkStatus`), which the assigner then takes as its own;
- its watermark is the largest `rowtime - b` (`rowtime` alone: the largest timestamp), no millisecond less
  (`WatermarkGeneratorCodeGenerator`), starting at 0 (`open`: "watermark and timestamp should start from 0"): a
  watermark at or below 0 is never emitted; a negative `b` is `rowtime + |b|`;
- it emits a higher watermark on its processing-time timer, once `interval` has passed since its last periodic
  emission, and right after a record that raised it by more than `interval` (`processElement`: "eagerly emit");
  an interval of 0 emits every rise at its record;
- its timer fires every `calculateProcessingTimeTimerInterval(interval, idleness)`: the one that is set, else the
  smaller if five times it is below the larger, else a fifth of the smaller (at least 1); like every processing-time
  timer, once the clock has passed it, and the next at the clock's time plus that period;
- idleness (`table.exec.source.idle-timeout`, 0 switches it off): on a timer, a check that sees new records since
  the last check (or the first check) restarts the countdown there; the output goes idle at the first check with
  `countdown start + timeout <= now`, and active again at the next record, before it is forwarded, or at
  `Long.MAX_VALUE`;
- a watermark it emits while its status is idle (a status from upstream) goes nowhere: the chain's output drops
  it (`ChainingOutput.emitWatermark`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from reference.errors import InvalidSpec
from reference.javalong import LONG_MAX, ladd, lsub
from reference.trace import TraceListener
from reference.watermarks.inputs import OperatorInputs, check_watermark_strategy
from window_contract import case as spec
from window_contract.facts import NEGATIVE_INTERVAL_MESSAGE, NON_POSITIVE_IDLENESS_MESSAGE


@dataclass(frozen=True)
class WatermarkClauseSwitches:
    """The switch of the table's watermark clause; the default is Flink's DataStream API."""

    #: A case's watermark generator runs as DataStream's `TimestampsAndWatermarksOperator`, one per channel; True:
    #: as the table's `WATERMARK` clause, one `WatermarkAssignerOperator` behind the merged channels (module
    #: docstring): Flink SQL, whose users declare their watermarks so.
    watermark_clause: bool = False

    def check_generator(self, generator: spec.WatermarkGenerator) -> None:
        """What the job rejects of `generator` before it runs: DataStream's checks, or the clause's (the interval
        and a negative idle timeout: a timeout of 0 switches idleness off, and the bound is any interval)."""
        if not self.watermark_clause:
            check_watermark_strategy(generator)
            return
        if generator.interval < 0:
            raise InvalidSpec(NEGATIVE_INTERVAL_MESSAGE, "watermark.interval")
        if generator.idleness is not None and generator.idleness < 0:
            raise InvalidSpec(NON_POSITIVE_IDLENESS_MESSAGE, "watermark.idleness")

    def inputs(self, driven: spec.Case, deliver: Callable[[int], None], listener: TraceListener) -> OperatorInputs:
        """The inputs in front of the window operator: the channels with their generators, or the table's clause."""
        if self.watermark_clause and driven.watermark_generator is not None:
            return WatermarkClauseInputs(driven, deliver, listener)
        return OperatorInputs(driven, deliver, listener)


def timer_interval(watermark_interval: int, idle_timeout: int) -> int:
    """`WatermarkAssignerOperator.calculateProcessingTimeTimerInterval`."""
    if watermark_interval <= 0:
        return idle_timeout
    if idle_timeout <= 0:
        return watermark_interval
    smaller, larger = min(watermark_interval, idle_timeout), max(watermark_interval, idle_timeout)
    return max(smaller if smaller * 5 < larger else smaller // 5, 1)


class WatermarkAssignerOperator:
    """`WatermarkAssignerOperator` with the expression `rowtime - bound` (module docstring); `output` is the chain
    behind it, which drops a watermark while the last status it passed on is idle."""

    def __init__(self, bound: int, interval: int, idle_timeout: int, output: WatermarkClauseInputs) -> None:
        self.bound, self.watermark_interval, self.idle_timeout = bound, interval, idle_timeout
        self.output = output
        self.current_watermark = self.last_watermark = 0  # "watermark and timestamp should start from 0"
        self.idle = False
        self.processed_elements, self.last_idle_check_processed_elements = 0, -1
        self.next_timer: int | None = None

    def open(self, now: int) -> None:
        self.last_periodic_emit_time = self.time_since_last_idle_check = now
        if self.watermark_interval > 0 or self.idle_timeout > 0:
            self.timer_interval = timer_interval(self.watermark_interval, self.idle_timeout)
            self.next_timer = ladd(now, self.timer_interval)

    def process_element(self) -> None:
        """Before the record is forwarded."""
        self.processed_elements += 1
        if self.idle_timeout > 0 and self.idle:
            self.emit_watermark_status(False)

    def after_element(self, timestamp: int) -> None:
        """After the record was forwarded: its watermark, and the eager emission."""
        self.current_watermark = max(self.current_watermark, lsub(timestamp, self.bound))
        if self.current_watermark - self.last_watermark > self.watermark_interval:
            self.advance_watermark()

    def advance_watermark(self) -> None:
        if self.current_watermark > self.last_watermark:
            self.last_watermark = self.current_watermark
            self.output.assigner_watermark(self.current_watermark)

    def advance_processing_time(self, now: int) -> None:
        """The timer fires once the clock has passed it (`onProcessingTime`)."""
        if self.next_timer is None or self.next_timer >= now:
            return
        if self.watermark_interval > 0 and ladd(self.last_periodic_emit_time, self.watermark_interval) <= now:
            self.last_periodic_emit_time = now
            self.advance_watermark()
        if self.processed_elements != self.last_idle_check_processed_elements:
            self.time_since_last_idle_check = now
            self.last_idle_check_processed_elements = self.processed_elements
        if self.idle_timeout > 0 and not self.idle and ladd(self.time_since_last_idle_check, self.idle_timeout) <= now:
            self.emit_watermark_status(True)
        self.next_timer = ladd(now, self.timer_interval)

    def process_watermark(self, watermark: int) -> None:
        """Upstream watermarks are ignored, but for the end of input's `Long.MAX_VALUE`."""
        if watermark == LONG_MAX and self.current_watermark != LONG_MAX:
            if self.idle_timeout > 0 and self.idle:
                self.emit_watermark_status(False)
            self.current_watermark = LONG_MAX
            self.output.assigner_watermark(LONG_MAX)

    def emit_watermark_status(self, idle: bool) -> None:
        """Its own idleness, or a status from upstream (`processWatermarkStatus`)."""
        self.idle = idle
        self.output.assigner_status(idle)


class WatermarkClauseInputs(OperatorInputs):
    """The case's channels, merged by the valve as a case without a generator's, into the table's one assigner,
    whose output is the window operator's input."""

    def __init__(self, case: spec.Case, deliver: Callable[[int], None], listener: TraceListener) -> None:
        super().__init__(replace(case, watermark_generator=None), deliver, listener)
        generator = case.watermark_generator
        bound = generator.bound if isinstance(generator, spec.BoundedOutOfOrdernessWatermarks) else 0
        self.observed = True
        self.assigner = WatermarkAssignerOperator(bound, generator.interval, generator.idleness or 0, self)
        self.assigner.open(self.processing_time)
        self.chain_idle = False

    def timestamp(self, record: spec.Record) -> int:
        self.assigner.process_element()
        return record.ts

    def after_element(self, record: spec.Record, timestamp: int) -> None:
        self.assigner.after_element(timestamp)

    def advance_processing_time(self, time: int) -> None:
        self.processing_time = time
        self.assigner.advance_processing_time(time)

    # the valve's output: the assigner's input
    def emit_watermark(self, watermark: int) -> None:
        if watermark == LONG_MAX:
            self.assigner.process_watermark(watermark)

    def emit_watermark_status(self, idle: bool) -> None:
        self.assigner.emit_watermark_status(idle)

    # the assigner's output: the window operator's input
    def assigner_watermark(self, watermark: int) -> None:
        if not self.chain_idle:
            super().emit_watermark(watermark)

    def assigner_status(self, idle: bool) -> None:
        self.chain_idle = idle
        super().emit_watermark_status(idle)

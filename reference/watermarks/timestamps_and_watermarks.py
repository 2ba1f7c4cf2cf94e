"""`TimestampsAndWatermarksOperator` (`assignTimestampsAndWatermarks`): one channel's timestamps and
generated watermarks, emitted on the operator's processing-time schedule.

- `open()`: with an interval above 0, a processing-time timer at `now + interval` (`now` is the clock
  when the operator opens: 0 in a case).
- A record: the timestamp assigner gives its timestamp, the record goes downstream, *then* the
  generator sees it (`output.collect(element)` before `onEvent`): a punctuated watermark follows the
  record it came from.
- The timer: it fires once the clock has passed it (`now > due`, as a task's processing-time service
  fires every timer), with one `onPeriodicEmit`, and the next timer at `now + interval` from the
  time it fired.
  When the clock jumps several intervals at once the timer fires once, not once per interval.
- Upstream watermarks and statuses are ignored, except `Long.MAX_VALUE` (the end of the input), which
  is forwarded; `finish()` then asks the generator once more (`onPeriodicEmit`), which cannot lower
  the watermark any more but may still mark the output idle.
- `WatermarkEmitter` forwards only watermarks that increase; emitting one marks an idle output active
  first; `markIdle` / `markActive` are forwarded only when they change the status.
"""

from __future__ import annotations

from reference.javalong import LONG_MAX, LONG_MIN, ladd
from reference.watermarks.generators import TimestampAssigner, WatermarkGenerator
from reference.watermarks.valve import ValveOutput


class WatermarkEmitter:
    """`TimestampsAndWatermarksOperator.WatermarkEmitter`: the generator's `WatermarkOutput`."""

    def __init__(self, output: ValveOutput) -> None:
        self.output = output
        self.current_watermark = LONG_MIN
        self.idle = False

    def emit_watermark(self, watermark: int) -> None:
        if watermark <= self.current_watermark:
            return
        self.current_watermark = watermark
        self.mark_active()
        self.output.emit_watermark(watermark)

    def mark_idle(self) -> None:
        if not self.idle:
            self.idle = True
            self.output.emit_watermark_status(True)

    def mark_active(self) -> None:
        if self.idle:
            self.idle = False
            self.output.emit_watermark_status(False)


class TimestampsAndWatermarksOperator:
    """One channel's `TimestampsAndWatermarksOperator`; `advance_processing_time` is its
    processing-time service firing the periodic timer."""

    def __init__(self, timestamp_assigner: TimestampAssigner, generator: WatermarkGenerator, interval: int,
                 output: ValveOutput) -> None:
        self.timestamp_assigner = timestamp_assigner
        self.watermark_generator = generator
        self.watermark_interval = interval
        self.wm_output = WatermarkEmitter(output)
        self.next_timer: int | None = None

    def open(self, now: int) -> None:
        if self.watermark_interval > 0:
            self.next_timer = ladd(now, self.watermark_interval)

    def extract_timestamp(self, timestamp: int) -> int:
        """The timestamp the record goes downstream with (`processElement`, before the generator)."""
        return self.timestamp_assigner.extract_timestamp(timestamp)

    def on_event(self, timestamp: int) -> None:
        """The generator sees the record (`processElement`, after the record went downstream)."""
        self.watermark_generator.on_event(timestamp, self.wm_output)

    def advance_processing_time(self, now: int) -> None:
        """The processing-time service fires the periodic timer once the clock has passed it
        (`onProcessingTime`): a task's `SystemProcessingTimeService` waits
        `ProcessingTimeServiceUtil.getProcessingTimeDelay(t, now)` = `t - now + 1` ms (0 for a past `t`)."""
        if self.next_timer is not None and self.next_timer < now:
            self.watermark_generator.on_periodic_emit(self.wm_output)
            self.next_timer = ladd(now, self.watermark_interval)

    def process_watermark(self, watermark: int) -> None:
        """Upstream watermarks are ignored, but for the end of input's `Long.MAX_VALUE`."""
        if watermark == LONG_MAX:
            self.wm_output.emit_watermark(LONG_MAX)

    def finish(self) -> None:
        """`StreamOperatorWrapper.finish`: the operator's processing-time service is quiesced first
        (`quiesceTimeServiceAndFinishOperator`: "no longer output triggered by the timers"), so the periodic
        timer never fires again; then `finish()` makes the last periodic emit."""
        self.next_timer = None
        self.watermark_generator.on_periodic_emit(self.wm_output)

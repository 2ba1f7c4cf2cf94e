"""The window operator's input side for one case: its channels, each with its own
`TimestampsAndWatermarksOperator` when the case has a generator, merged by one `StatusWatermarkValve`.

This is the job `assignTimestampsAndWatermarks` after a parallel source builds in front of the window
operator, played at the positions the case gives:

- A record goes to the window operator with the timestamp its channel's assigner gives it; the
  channel's generator sees it afterwards (and a punctuated one emits then).
- A channel's watermarks (the generator's, or the case's own `watermark` events) and statuses
  (`mark_idle` of `WatermarksWithIdleness`, or the case's `watermark_status` events) go into the valve;
  what the valve lets out goes to the window operator. With a generator, the case's statuses reach the
  channel's `TimestampsAndWatermarksOperator`, which ignores them, as Flink's does.
- A processing-time advance reaches every channel's periodic timer in channel order, after the window
  operator's own processing-time timers have fired (Flink runs them in other tasks: the case fixes one
  order).
- A channel that ends sends `Long.MAX_VALUE` (docs/format.md). With a generator, its operator forwards it
  (marking the channel active) and then finishes, with one last periodic emit that can no longer raise
  the watermark but may mark the channel idle: a finishing task advances to the end of event time
  before it finishes its operators (`StreamTask.endData`). Its periodic timer never fires after that (the
  finishing operator's timers are quiesced), so an ended channel's status no longer changes. Without a
  generator `Long.MAX_VALUE` goes into the valve as it is, which ignores it on a channel that is idle (as
  Flink's `RecordWriterOutput` drops watermarks while its status is idle): an idle channel that ends stays
  idle.

Flink's job-time rejections come first, in the order a job states them: the watermark interval, the
legacy extractor's constructor, `withIdleness`; the new API's generator is built when the operator
opens (`create_generators`).
"""

from __future__ import annotations

from collections.abc import Callable

from reference.errors import InvalidSpec
from reference.javalong import LONG_MAX
from reference.trace import NO_TRACE, TraceListener
from reference.watermarks.generators import create, nanos, timestamp_assigner
from reference.watermarks.timestamps_and_watermarks import TimestampsAndWatermarksOperator
from reference.watermarks.valve import StatusWatermarkValve
from window_contract import case as spec
from window_contract.facts import NEGATIVE_INTERVAL_MESSAGE, NON_POSITIVE_IDLENESS_MESSAGE


def check_watermark_strategy(generator: spec.WatermarkGenerator) -> None:
    """Raise `InvalidSpec` with Flink's message for what Flink rejects when the job is built: the first check it
    breaks, in Flink's order, naming the rules of every one it breaks."""
    broken = []
    for check in (_check_interval, timestamp_assigner, _check_idleness):
        try:
            check(generator)
        except InvalidSpec as e:
            broken.append(e)
    if broken:
        raise InvalidSpec(str(broken[0]), *(rule for e in broken for rule in e.rules))


def _check_interval(generator: spec.WatermarkGenerator) -> None:
    if generator.interval < 0:  # ExecutionConfig.setAutoWatermarkInterval
        raise InvalidSpec(NEGATIVE_INTERVAL_MESSAGE, "watermark.interval")


def _check_idleness(generator: spec.WatermarkGenerator) -> None:
    if generator.idleness is not None and generator.idleness <= 0:  # WatermarkStrategy.withIdleness
        raise InvalidSpec(NON_POSITIVE_IDLENESS_MESSAGE, "watermark.idleness")


class ChannelOutput:
    """Where one channel's watermarks and statuses go: into the valve, at the channel's index."""

    def __init__(self, inputs: OperatorInputs, channel: int) -> None:
        self.inputs, self.channel = inputs, channel

    def emit_watermark(self, watermark: int) -> None:
        self.inputs.listener.watermark_generated(self.channel, watermark)
        self.inputs.input_watermark(watermark, self.channel)

    def emit_watermark_status(self, idle: bool) -> None:
        self.inputs.input_watermark_status(idle, self.channel)


class OperatorInputs:
    """The case's channels in front of the window operator; `deliver` is the window operator's
    `processWatermark`, called with every watermark the valve lets out."""

    def __init__(self, case: spec.Case, deliver: Callable[[int], None], listener: TraceListener = NO_TRACE) -> None:
        self.deliver, self.listener = deliver, listener
        self.observed = case.observes_watermarks  # a case of one explicit channel reads as it did before
        self.valve = StatusWatermarkValve(case.channels, self)
        self.open_channels = set(range(case.channels))
        self.processing_time = 0
        self.generators: list[TimestampsAndWatermarksOperator] | None = None
        if case.watermark_generator is not None:
            self.generators = [self.create_generator(case.watermark_generator, c) for c in range(case.channels)]

    def create_generator(self, generator: spec.WatermarkGenerator, channel: int) -> TimestampsAndWatermarksOperator:
        clock = lambda: nanos(self.processing_time)  # noqa: E731 - the RelativeClock of the channel's operator
        assigner = timestamp_assigner(generator)
        operator = TimestampsAndWatermarksOperator(assigner, create(generator, assigner, clock), generator.interval,
                                                   ChannelOutput(self, channel))
        operator.open(self.processing_time)
        return operator

    # --- the case's events -----------------------------------------------------------------------

    def timestamp(self, record: spec.Record) -> int:
        """The timestamp the record reaches the window operator with."""
        if self.generators is None:
            return record.ts
        return self.generators[record.channel].extract_timestamp(record.ts)

    def after_element(self, record: spec.Record, timestamp: int) -> None:
        """The channel's generator sees the record, after the window operator did."""
        if self.generators is not None:
            self.generators[record.channel].on_event(timestamp)

    def process_watermark(self, watermark: spec.Watermark) -> None:
        """A watermark of the case (only in a case without a generator)."""
        status = self.valve.statuses[watermark.channel]
        if watermark.timestamp <= status.watermark or not status.active:
            self.listener.watermark_ignored(watermark.timestamp, status.watermark)
            return
        self.input_watermark(watermark.timestamp, watermark.channel)

    def process_watermark_status(self, event: spec.WatermarkStatus) -> None:
        if self.generators is None:  # with a generator its operator ignores upstream statuses
            self.input_watermark_status(event.idle, event.channel)

    def advance_processing_time(self, time: int) -> None:
        self.processing_time = time
        for operator in self.generators or ():
            operator.advance_processing_time(time)

    def end_channel(self, channel: int) -> None:
        self.open_channels.discard(channel)
        if self.generators is not None:
            self.generators[channel].process_watermark(LONG_MAX)
            self.generators[channel].finish()
        else:
            self.input_watermark(LONG_MAX, channel)

    def end_of_input(self) -> None:
        for channel in sorted(self.open_channels):
            self.end_channel(channel)

    # --- the valve -------------------------------------------------------------------------------

    def input_watermark(self, watermark: int, channel: int) -> None:
        before = self.valve.last_output_watermark
        self.valve.input_watermark(watermark, channel)
        holder = self.valve.holding_channel()
        if self.valve.last_output_watermark == before and holder is not None and holder != channel:
            self.listener.watermark_held(holder, self.valve.statuses[holder].watermark, before)

    def input_watermark_status(self, idle: bool, channel: int) -> None:
        if self.valve.statuses[channel].active == idle:
            self.listener.channel_status(channel, idle)
        self.valve.input_watermark_status(idle, channel)

    # the valve's output: the window operator's input
    def emit_watermark(self, watermark: int) -> None:
        if self.observed:
            self.listener.input_watermark(watermark, self.valve.holding_channel())
        self.deliver(watermark)

    def emit_watermark_status(self, idle: bool) -> None:
        self.listener.input_status(idle)

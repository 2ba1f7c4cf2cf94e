"""Watermark generators (`org.apache.flink.api.common.eventtime`) and the two legacy extractors.

A generator sees each record's timestamp (`on_event`) and is asked for a watermark on every periodic
emit (`on_periodic_emit`); it answers through a `WatermarkOutput`, which Flink's
`TimestampsAndWatermarksOperator.WatermarkEmitter` implements (`timestamps_and_watermarks.py`).

- `BoundedOutOfOrdernessWatermarks(bound)`: keeps `maxTimestamp`, starting at
  `Long.MIN_VALUE + bound + 1` so that the first watermark is `Long.MIN_VALUE`, and emits
  `maxTimestamp - bound - 1` in Java `long` (it cannot wrap: `maxTimestamp` never falls below its start).
  `AscendingTimestampsWatermarks` is bound 0.
- `WatermarksWithIdleness(generator, timeout, clock)`: idleness is only judged on a periodic emit. The
  first emit that saw no record since the previous one starts a countdown on the clock; an emit
  strictly more than `timeout` after that start marks the output idle instead of emitting.
- The legacy `AssignerWithPeriodicWatermarks` extractors keep their state while *extracting* the
  timestamp (`extract_timestamp`), and `getCurrentWatermark()` is what the adapter
  `WatermarkStrategyWithPeriodicWatermarks` emits on each periodic emit:
  `BoundedOutOfOrdernessTimestampExtractor` emits `max - bound`, never lower than it emitted before;
  `AscendingTimestampExtractor` emits `ts - 1` of the highest timestamp (`Long.MIN_VALUE` before any),
  and a lower timestamp only reaches its `LoggingHandler` (logged, the record kept).
- `PunctuatedEmission`: the contract's `punctuated: true`, a generator that emits in `onEvent`, right
  after each record, and nothing on a periodic emit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from reference.errors import InvalidSpec
from reference.javalong import LONG_MAX, LONG_MIN, ladd, lsub
from window_contract import case as spec
from window_contract.facts import (
    NEGATIVE_BOUND_MESSAGE,
    NON_POSITIVE_IDLENESS_MESSAGE,
    negative_legacy_bound_message,
)


class WatermarkOutput(Protocol):
    """`org.apache.flink.api.common.eventtime.WatermarkOutput`."""

    def emit_watermark(self, watermark: int) -> None: ...
    def mark_idle(self) -> None: ...
    def mark_active(self) -> None: ...


class WatermarkGenerator(Protocol):
    """`org.apache.flink.api.common.eventtime.WatermarkGenerator`."""

    def on_event(self, timestamp: int, output: WatermarkOutput) -> None: ...
    def on_periodic_emit(self, output: WatermarkOutput) -> None: ...


class TimestampAssigner(Protocol):
    """`TimestampAssigner.extractTimestamp`: the record's timestamp as the generator will see it."""

    def extract_timestamp(self, timestamp: int) -> int: ...


class RecordTimestampAssigner:
    """`RecordTimestampAssigner`: the record keeps the timestamp it carries (the new API's default)."""

    def extract_timestamp(self, timestamp: int) -> int:
        return timestamp


class BoundedOutOfOrdernessWatermarks:
    """`BoundedOutOfOrdernessWatermarks`: `maxTimestamp - bound - 1` on each periodic emit."""

    def __init__(self, bound: int) -> None:
        if bound < 0:  # checkArgument(!maxOutOfOrderness.isNegative(), ...)
            raise InvalidSpec(NEGATIVE_BOUND_MESSAGE, "watermark.bound")
        self.out_of_orderness = bound
        # start so that the lowest watermark is Long.MIN_VALUE
        self.max_timestamp = ladd(ladd(LONG_MIN, bound), 1)

    def on_event(self, timestamp: int, output: WatermarkOutput) -> None:
        self.max_timestamp = max(self.max_timestamp, timestamp)

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        output.emit_watermark(lsub(lsub(self.max_timestamp, self.out_of_orderness), 1))


class AscendingTimestampsWatermarks(BoundedOutOfOrdernessWatermarks):
    """`AscendingTimestampsWatermarks` (`forMonotonousTimestamps`): bounded out-of-orderness with bound 0."""

    def __init__(self) -> None:
        super().__init__(0)


class IdlenessTimer:
    """`WatermarksWithIdleness.IdlenessTimer`, on a clock of nanoseconds. A start of 0 means "no
    countdown", as in Flink (a countdown started at clock 0 starts again at the next check)."""

    def __init__(self, clock: Callable[[], int], idle_timeout: int) -> None:
        self.clock = clock
        self.counter = self.last_counter = 0
        self.start_of_inactivity_nanos = 0
        nanos = idle_timeout * 1_000_000  # Duration.toNanos(), Long.MAX_VALUE when it overflows
        self.max_idle_time_nanos = nanos if nanos <= LONG_MAX else LONG_MAX

    def activity(self) -> None:
        self.counter += 1

    def check_if_idle(self) -> bool:
        if self.counter != self.last_counter:  # activity since the last check: reset the countdown
            self.last_counter = self.counter
            self.start_of_inactivity_nanos = 0
            return False
        if self.start_of_inactivity_nanos == 0:  # the first check without activity starts it
            self.start_of_inactivity_nanos = self.clock()
            return False
        return lsub(self.clock(), self.start_of_inactivity_nanos) > self.max_idle_time_nanos


class WatermarksWithIdleness:
    """`WatermarksWithIdleness`: the wrapped generator's watermarks, or `markIdle` on a periodic emit
    once the `IdlenessTimer` says no record came for longer than the timeout."""

    def __init__(self, watermarks: WatermarkGenerator, idle_timeout: int, clock: Callable[[], int]) -> None:
        if idle_timeout <= 0:
            raise InvalidSpec(NON_POSITIVE_IDLENESS_MESSAGE, "watermark.idleness")
        self.watermarks = watermarks
        self.idleness_timer = IdlenessTimer(clock, idle_timeout)
        self.is_idle_now = False

    def on_event(self, timestamp: int, output: WatermarkOutput) -> None:
        self.watermarks.on_event(timestamp, output)
        self.idleness_timer.activity()
        self.is_idle_now = False

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        if self.idleness_timer.check_if_idle():
            if not self.is_idle_now:
                output.mark_idle()
                self.is_idle_now = True
        else:
            self.watermarks.on_periodic_emit(output)


class BoundedOutOfOrdernessTimestampExtractor:
    """The legacy `BoundedOutOfOrdernessTimestampExtractor`: `currentMaxTimestamp - bound`, and never
    lower than the watermark it emitted last (`lastEmittedWatermark`)."""

    def __init__(self, bound: int) -> None:
        if bound < 0:
            raise InvalidSpec(negative_legacy_bound_message(bound), "watermark.legacy_bound")
        self.max_out_of_orderness = bound
        self.current_max_timestamp = ladd(LONG_MIN, bound)
        self.last_emitted_watermark = LONG_MIN

    def extract_timestamp(self, timestamp: int) -> int:
        self.current_max_timestamp = max(self.current_max_timestamp, timestamp)
        return timestamp

    def get_current_watermark(self) -> int:
        potential = lsub(self.current_max_timestamp, self.max_out_of_orderness)
        if potential >= self.last_emitted_watermark:
            self.last_emitted_watermark = potential
        return self.last_emitted_watermark


class AscendingTimestampExtractor:
    """The legacy `AscendingTimestampExtractor`: `currentTimestamp - 1` (`Long.MIN_VALUE` before any
    record); a timestamp below the highest goes to the default `LoggingHandler`, which only logs."""

    def __init__(self) -> None:
        self.current_timestamp = LONG_MIN

    def extract_timestamp(self, timestamp: int) -> int:
        if timestamp >= self.current_timestamp:
            self.current_timestamp = timestamp
        return timestamp

    def get_current_watermark(self) -> int:
        return LONG_MIN if self.current_timestamp == LONG_MIN else self.current_timestamp - 1


class LegacyExtractor(Protocol):
    def extract_timestamp(self, timestamp: int) -> int: ...
    def get_current_watermark(self) -> int: ...


class PeriodicWatermarksAdapter:
    """The generator `WatermarkStrategyWithPeriodicWatermarks` makes of a legacy extractor: nothing on
    an event (the extractor saw the timestamp when it extracted it), `getCurrentWatermark()` on each
    periodic emit."""

    def __init__(self, extractor: LegacyExtractor) -> None:
        self.extractor = extractor

    def on_event(self, timestamp: int, output: WatermarkOutput) -> None:
        pass

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        output.emit_watermark(self.extractor.get_current_watermark())


class PunctuatedEmission:
    """A generator that emits in `onEvent`: after each record, what `generator` would emit on a
    periodic emit; periodic emits add nothing."""

    def __init__(self, generator: WatermarkGenerator) -> None:
        self.generator = generator

    def on_event(self, timestamp: int, output: WatermarkOutput) -> None:
        self.generator.on_event(timestamp, output)
        self.generator.on_periodic_emit(output)

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        pass


def timestamp_assigner(generator: spec.WatermarkGenerator) -> TimestampAssigner:
    """The channel's timestamp assigner: the legacy extractor (built when the job is, so its
    constructor's check comes first), or the record's own timestamp."""
    match generator:
        case spec.BoundedOutOfOrdernessTimestampExtractor(bound):
            return BoundedOutOfOrdernessTimestampExtractor(bound)
        case spec.AscendingTimestampExtractor():
            return AscendingTimestampExtractor()
    return RecordTimestampAssigner()


def create(generator: spec.WatermarkGenerator, assigner: TimestampAssigner,
           clock: Callable[[], int]) -> WatermarkGenerator:
    """The generator one channel's `TimestampsAndWatermarksOperator` builds when it opens: the new API's,
    or the legacy `assigner`'s adapter; punctuated or not; with idleness on `clock` (nanoseconds)."""
    created: WatermarkGenerator
    match generator:
        case spec.BoundedOutOfOrdernessWatermarks(bound):
            created = BoundedOutOfOrdernessWatermarks(bound)
        case spec.MonotonousWatermarks():
            created = AscendingTimestampsWatermarks()
        case _:
            created = PeriodicWatermarksAdapter(assigner)  # type: ignore[arg-type]
    if generator.punctuated:
        created = PunctuatedEmission(created)
    if generator.idleness is not None:
        created = WatermarksWithIdleness(created, generator.idleness, clock)
    return created


def nanos(millis: int) -> int:
    """The case's processing time (ms) as the input activity clock's `relativeTimeNanos()`; it saturates
    at `Long.MAX_VALUE`, past about 292 years of processing time."""
    return min(millis * 1_000_000, LONG_MAX)

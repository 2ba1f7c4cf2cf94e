"""The watermarks the window operator receives when Flink makes them: generators, periodic emission,
idleness, and the merge of several input channels. A fold over one case's events, in their order.

Derived from Flink 2.3's classes (read in its source and checked against the bytecode of
`flink-dist-2.3.0.jar`), one small class each:

- `BoundedOutOfOrdernessWatermarks(bound)`: `maxTimestamp` starts at `Long.MIN_VALUE + bound + 1`,
  `onEvent` keeps the maximum, `onPeriodicEmit` emits `maxTimestamp - bound - 1` (Java `long`
  arithmetic: both sums wrap). `forMonotonousTimestamps()` is `AscendingTimestampsWatermarks`, the
  same class with bound 0.
- The legacy `BoundedOutOfOrdernessTimestampExtractor(bound)`: `currentMaxTimestamp` starts at
  `Long.MIN_VALUE + bound`, grows in `extractTimestamp`; `getCurrentWatermark` is
  `currentMaxTimestamp - bound`, kept only when `>= lastEmittedWatermark` (which starts at
  `Long.MIN_VALUE`). The legacy `AscendingTimestampExtractor`: `currentTimestamp` (from
  `Long.MIN_VALUE`) follows every timestamp `>=` it (a smaller one goes to the monotony-violation
  handler, by default `LoggingHandler`, and changes nothing); the watermark is `currentTimestamp - 1`,
  or `Long.MIN_VALUE` while it is `Long.MIN_VALUE`. Every generator is thus a function of the largest
  timestamp its channel has seen, which lets `spark_impl.api` feed it one maximum per batch of records.
- `WatermarksWithIdleness`: `onEvent` counts activity; `onPeriodicEmit` asks `IdlenessTimer.checkIfIdle`:
  activity since the last check resets the timer (not idle); the first check without activity starts
  it at the clock's `relativeTimeNanos` (0 means "not started"); a later check is idle once
  `now - start > timeout` in nanoseconds (a timeout whose nanoseconds overflow is `Long.MAX_VALUE`).
  Idle, it calls `markIdle` once and emits nothing; otherwise the wrapped generator's periodic emit.
  The clock is the case's processing time (`TimestampsAndWatermarksOperator`'s `PausableRelativeClock`
  over the processing-time service's clock), in milliseconds times 10^6, saturating at
  `Long.MAX_VALUE` past the range (as the Flink harness's clock).
- `TimestampsAndWatermarksOperator` (one per channel): the record goes downstream first, then
  `onEvent` (a punctuated generator emits there); with `interval > 0` a processing-time timer at
  `now + interval` from time 0, which fires once the clock has passed it (`now > due`: a task's
  processing-time service waits `due - now + 1` ms), calls `onPeriodicEmit` and registers the next at
  `now + interval` with `now` the clock's time when it fired, so a clock that jumps several intervals
  fires it once. Its `WatermarkEmitter` forwards only watermarks above the last it forwarded, sends
  `ACTIVE` first when it had sent `IDLE`, and `markIdle` sends `IDLE` once. Statuses from upstream are
  dropped (`processWatermarkStatus` is empty), so a `watermark_status` event of a channel with a
  generator changes nothing. At the end of a channel `StreamTask.endData` sends `Long.MAX_VALUE`
  through `processWatermark` (`advanceToEndOfEventTime`) *before* `finish()` makes the last periodic
  emit, which the emitter then drops: a channel that ends sends `ACTIVE` if it was idle, then
  `Long.MAX_VALUE`, and nothing else.
- `StatusWatermarkValve` (the window operator's input, one entry per channel, all starting active,
  aligned, at `Long.MIN_VALUE`): a watermark counts only while the valve and its channel are active
  and only when it exceeds the channel's last one; an unaligned channel becomes aligned once its
  watermark reaches the last output; the output is the minimum over aligned channels, emitted when it
  exceeds the last output. A channel going idle leaves the aligned set; if every channel is then
  idle, the valve goes idle, and flushes the maximum over all channels (when above the last output)
  only if the channel's watermark was the last output (2.3's bytecode; Flink's later source flushes
  unconditionally); otherwise, if the channel's watermark was the last output, the minimum is sought
  again. A channel
  coming back is aligned at once when its watermark is `>=` the last output (no output then).
  A channel without a generator that ends sends `Long.MAX_VALUE` into the valve, which ignores it
  while the channel is idle (its source announced idleness and sends no status at its end).

Where the fold runs. Which watermark the operator receives depends on the order of events *across*
channels, so this is a sequential fold over a case's events, but it touches only watermarks, statuses
and one number per channel: the suite's cases are small, so `input_watermarks` runs on the driver and
turns each case into the single-input stream the window operator sees (`operator_events`), which the
relational pipeline or the per-key replay then computes in parallel as for any case. At scale
(`spark_impl.api`) periodic emission needs only each channel's largest timestamp and whether it had
records between two timer firings, one aggregate per (channel, firing), and the same fold runs over
those aggregates on the driver.

Ordering choices where Flink's tasks run concurrently (the case fixes one order): channels fire their
periodic timers in channel order, and at a processing-time advance the window operator's own clock
advances before the watermarks that the upstream timers emit reach it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spark_impl.javalong import LONG_MAX, LONG_MIN, add, sub
from window_contract.case import (
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    EndOfChannel,
    MonotonousWatermarks,
    ProcessingTime,
    Record,
    Watermark,
    WatermarkGenerator,
    WatermarkStatus,
)
from window_contract.facts import (
    NEGATIVE_BOUND_MESSAGE,
    NEGATIVE_INTERVAL_MESSAGE,
    NON_POSITIVE_IDLENESS_MESSAGE,
    negative_legacy_bound_message,
)

NANOS_PER_MILLI = 1_000_000


# --- what Flink rejects ------------------------------------------------------------------------


def api_time_message(case: Case) -> str | None:
    """Flink's message for what it rejects while the job is written, before the window assigner:
    `ExecutionConfig.setAutoWatermarkInterval`, the legacy extractor's constructor, `withIdleness`."""
    g = case.watermark_generator
    if g is None:
        return None
    if g.interval < 0:
        return NEGATIVE_INTERVAL_MESSAGE
    if isinstance(g, BoundedOutOfOrdernessTimestampExtractor) and g.bound < 0:
        return negative_legacy_bound_message(g.bound)
    if g.idleness is not None and g.idleness <= 0:
        return NON_POSITIVE_IDLENESS_MESSAGE
    return None


def job_start_message(case: Case) -> str | None:
    """Flink's message for what fails when the job starts: `BoundedOutOfOrdernessWatermarks`' constructor
    runs in `TimestampsAndWatermarksOperator.open` (after every check at job build)."""
    g = case.watermark_generator
    if isinstance(g, BoundedOutOfOrdernessWatermarks) and g.bound < 0:
        return NEGATIVE_BOUND_MESSAGE
    return None


# --- the generators ----------------------------------------------------------------------------


@dataclass
class _BoundedOutOfOrderness:
    """`BoundedOutOfOrdernessWatermarks` (and `AscendingTimestampsWatermarks`, bound 0)."""

    bound: int
    max_timestamp: int = 0

    def __post_init__(self) -> None:
        self.max_timestamp = add(add(LONG_MIN, self.bound), 1)

    def on_event(self, ts: int) -> None:
        self.max_timestamp = max(self.max_timestamp, ts)

    def current(self) -> int:
        return sub(sub(self.max_timestamp, self.bound), 1)


@dataclass
class _LegacyBoundedOutOfOrderness:
    """The legacy `BoundedOutOfOrdernessTimestampExtractor`: `max - bound`, never lower than before."""

    bound: int
    current_max_timestamp: int = 0
    last_emitted: int = LONG_MIN

    def __post_init__(self) -> None:
        self.current_max_timestamp = add(LONG_MIN, self.bound)

    def on_event(self, ts: int) -> None:
        self.current_max_timestamp = max(self.current_max_timestamp, ts)

    def current(self) -> int:
        potential = sub(self.current_max_timestamp, self.bound)
        if potential >= self.last_emitted:
            self.last_emitted = potential
        return self.last_emitted


@dataclass
class _LegacyAscending:
    """The legacy `AscendingTimestampExtractor`: `currentTimestamp - 1`; lower timestamps are violations."""

    current_timestamp: int = LONG_MIN

    def on_event(self, ts: int) -> None:
        if ts >= self.current_timestamp:
            self.current_timestamp = ts

    def current(self) -> int:
        return LONG_MIN if self.current_timestamp == LONG_MIN else self.current_timestamp - 1


def make_generator(spec: WatermarkGenerator):
    """The generator one channel's `TimestampsAndWatermarksOperator` creates from the strategy."""
    if isinstance(spec, BoundedOutOfOrdernessWatermarks):
        return _BoundedOutOfOrderness(spec.bound)
    if isinstance(spec, MonotonousWatermarks):
        return _BoundedOutOfOrderness(0)
    if isinstance(spec, BoundedOutOfOrdernessTimestampExtractor):
        return _LegacyBoundedOutOfOrderness(spec.bound)
    assert isinstance(spec, AscendingTimestampExtractor)
    return _LegacyAscending()


@dataclass
class IdlenessTimer:
    """`WatermarksWithIdleness.IdlenessTimer` on the case's processing time (nanoseconds)."""

    max_idle_nanos: int
    counter: int = 0
    last_counter: int = 0
    start_of_inactivity: int = 0  # 0: not started

    @classmethod
    def of(cls, timeout_millis: int) -> IdlenessTimer:
        nanos = timeout_millis * NANOS_PER_MILLI
        return cls(nanos if nanos <= LONG_MAX else LONG_MAX)  # Duration.toNanos overflows: MAX_VALUE

    def activity(self) -> None:
        self.counter += 1

    def check_if_idle(self, now_millis: int) -> bool:
        now = min(now_millis * NANOS_PER_MILLI, LONG_MAX)
        if self.counter != self.last_counter:
            self.last_counter, self.start_of_inactivity = self.counter, 0
            return False
        if self.start_of_inactivity == 0:
            self.start_of_inactivity = now
            return False
        return sub(now, self.start_of_inactivity) > self.max_idle_nanos


# --- the channels and the valve ----------------------------------------------------------------


ACTIVE, IDLE = "active", "idle"


@dataclass
class WatermarkEmitter:
    """`TimestampsAndWatermarksOperator.WatermarkEmitter`: what one channel sends downstream, as
    ("watermark", w) and ("status", ACTIVE | IDLE) items."""

    current_watermark: int = LONG_MIN
    idle: bool = False
    sent: list = field(default_factory=list)

    def emit_watermark(self, ts: int) -> None:
        if ts <= self.current_watermark:
            return
        self.current_watermark = ts
        self.mark_active()
        self.sent.append(("watermark", ts))

    def mark_idle(self) -> None:
        if not self.idle:
            self.idle = True
            self.sent.append(("status", IDLE))

    def mark_active(self) -> None:
        if self.idle:
            self.idle = False
            self.sent.append(("status", ACTIVE))


class ChannelGenerator:
    """One channel's `TimestampsAndWatermarksOperator` with its generator (wrapped in
    `WatermarksWithIdleness` when the strategy has a timeout) and its periodic timer."""

    def __init__(self, spec: WatermarkGenerator) -> None:
        self.generator = make_generator(spec)
        self.punctuated = spec.punctuated
        self.idleness = IdlenessTimer.of(spec.idleness) if spec.idleness is not None else None
        self.is_idle_now = False
        self.interval = spec.interval
        self.next_timer = spec.interval if spec.interval > 0 else None
        self.emitter = WatermarkEmitter()

    def on_event(self, ts: int) -> None:
        self.generator.on_event(ts)
        if self.punctuated:
            self.emitter.emit_watermark(self.generator.current())
        if self.idleness is not None:
            self.idleness.activity()
            self.is_idle_now = False

    def on_processing_time(self, now: int) -> None:
        """Fire the periodic timer once the clock has passed it (`onProcessingTime`), once however far."""
        if self.next_timer is None or self.next_timer >= now:
            return
        self.next_timer = add(now, self.interval)
        if self.idleness is not None and self.idleness.check_if_idle(now):
            if not self.is_idle_now:
                self.emitter.mark_idle()
                self.is_idle_now = True
        elif not self.punctuated:  # a punctuated generator's onPeriodicEmit emits nothing
            self.emitter.emit_watermark(self.generator.current())

    def end(self) -> None:
        """`processWatermark(Long.MAX_VALUE)` at the end of input; `finish()`'s emit is then dropped."""
        self.next_timer = None
        self.emitter.emit_watermark(LONG_MAX)

    def take(self) -> list:
        sent, self.emitter.sent = self.emitter.sent, []
        return sent


@dataclass
class _SubpartitionStatus:
    watermark: int = LONG_MIN
    active: bool = True
    aligned: bool = True


class StatusWatermarkValve:
    """`StatusWatermarkValve`: the window operator's watermark from its channels'. Each input method
    returns the watermarks it outputs (0 or more, increasing)."""

    def __init__(self, channels: int) -> None:
        self.channels = [_SubpartitionStatus() for _ in range(channels)]
        self.last_output = LONG_MIN
        self.active = True

    def input_watermark(self, channel: int, ts: int) -> list[int]:
        status = self.channels[channel]
        if not (self.active and status.active) or ts <= status.watermark:
            return []
        status.watermark = ts
        if not status.aligned and ts >= self.last_output:
            status.aligned = True
        return self._new_min()

    def input_status(self, channel: int, idle: bool) -> list[int]:
        status = self.channels[channel]
        if idle and status.active:
            status.active = status.aligned = False
            if not any(s.active for s in self.channels):
                out = self._flush_max() if status.watermark == self.last_output else []
                self.active = False
                return out
            return self._new_min() if status.watermark == self.last_output else []
        if not idle and not status.active:
            status.active = True
            if status.watermark >= self.last_output:
                status.aligned = True
            self.active = True
        return []

    def _new_min(self) -> list[int]:
        aligned = [s.watermark for s in self.channels if s.aligned]
        if aligned and min(aligned) > self.last_output:
            self.last_output = min(aligned)
            return [self.last_output]
        return []

    def _flush_max(self) -> list[int]:
        highest = max(s.watermark for s in self.channels)
        if highest > self.last_output:
            self.last_output = highest
            return [highest]
        return []

    def receive(self, channel: int, sent: list) -> list[int]:
        """What a channel sent (`WatermarkEmitter` items), through the valve."""
        out: list[int] = []
        for kind, value in sent:
            out += self.input_watermark(channel, value) if kind == "watermark" else self.input_status(
                channel, value == IDLE)
        return out


class WatermarkFold:
    """The input watermarks of one window operator, event by event: the channels' generators (if the
    case has one) and the valve. Each method returns the watermarks the operator receives."""

    def __init__(self, channels: int, generator: WatermarkGenerator | None) -> None:
        self.valve = StatusWatermarkValve(channels)
        self.generators = [ChannelGenerator(generator) for _ in range(channels)] if generator else None
        self.open = [True] * channels
        self.processing_time = 0

    def record(self, channel: int, ts: int) -> list[int]:
        if self.generators is None:
            return []
        gen = self.generators[channel]
        gen.on_event(ts)
        return self.valve.receive(channel, gen.take())

    def advance_processing_time(self, time: int) -> list[int]:
        self.processing_time = max(self.processing_time, time)
        if self.generators is None:
            return []
        out: list[int] = []
        for channel, gen in enumerate(self.generators):
            if self.open[channel]:
                gen.on_processing_time(self.processing_time)
                out += self.valve.receive(channel, gen.take())
        return out

    def watermark(self, channel: int, ts: int) -> list[int]:
        """An explicit watermark (only in a case without a generator)."""
        return self.valve.input_watermark(channel, ts)

    def status(self, channel: int, idle: bool) -> list[int]:
        # TimestampsAndWatermarksOperator.processWatermarkStatus drops statuses from upstream.
        return [] if self.generators is not None else self.valve.input_status(channel, idle)

    def end(self, channel: int) -> list[int]:
        self.open[channel] = False
        if self.generators is not None:
            gen = self.generators[channel]
            gen.end()
            return self.valve.receive(channel, gen.take())
        return self.valve.input_watermark(channel, LONG_MAX)

    def end_of_input(self) -> list[int]:
        """Every channel still open ends, in channel order."""
        return [w for channel, is_open in enumerate(self.open) if is_open for w in self.end(channel)]


# --- a case through the fold -------------------------------------------------------------------


@dataclass(frozen=True)
class OperatorStream:
    """What the window operator of a case sees: `events` (records, watermarks, processing-time
    advances on one input, ending with the end-of-input watermarks; no end of input left to add),
    `origin[i]` the case position of `events[i]` (`len(case.events)` for the end of input), and
    `watermarks`, the (index in `events`, watermark) of every input watermark."""

    events: tuple
    origin: tuple[int, ...]
    watermarks: tuple[tuple[int, int], ...]


def operator_stream(case: Case) -> OperatorStream:
    """Fold `case` through its channels' generators and the valve (module docstring for the order)."""
    fold = WatermarkFold(case.channels, case.watermark_generator)
    events: list = []
    origin: list[int] = []
    marks: list[tuple[int, int]] = []

    def put(at: int, *items) -> None:
        for item in items:
            if isinstance(item, Watermark):
                marks.append((len(events), item.timestamp))
            events.append(item)
            origin.append(at)

    for at, e in enumerate(case.events):
        if isinstance(e, Record):
            put(at, Record(e.key, e.value, e.ts), *map(Watermark, fold.record(e.channel, e.ts)))
        elif isinstance(e, ProcessingTime):
            put(at, e, *map(Watermark, fold.advance_processing_time(e.time)))
        elif isinstance(e, Watermark):
            put(at, *map(Watermark, fold.watermark(e.channel, e.timestamp)))
        elif isinstance(e, WatermarkStatus):
            put(at, *map(Watermark, fold.status(e.channel, e.idle)))
        else:
            assert isinstance(e, EndOfChannel)
            put(at, *map(Watermark, fold.end(e.channel)))
    if case.end_of_input:
        put(len(case.events), *map(Watermark, fold.end_of_input()))
    return OperatorStream(tuple(events), tuple(origin), tuple(marks))

"""Watermarks: which watermark the operator receives, and when event time ends.

Flink's rules: the operator's watermark is `Long.MIN_VALUE` until one arrives; a watermark generator's output
reaches it unchanged, each millisecond of it; only watermarks move it (a punctuated generator sees its record after
the window operator took it); and a bounded input ends with `Watermark(Long.MAX_VALUE)`. The switches below change
one of these each, in the inputs in front of the operator (`received`, `reference.dialects.dialect.Dialect.parts`)
or, for the first watermark, in the operator (`StartsAtWatermark`). Where each key has a watermark of its own:
`reference.dialects.keys`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from window_contract import case
from window_contract.facts import LONG_MAX, LONG_MIN


@dataclass(frozen=True)
class WatermarkSwitches:
    """The switches of watermarks; every default is Flink's."""

    #: The operator's watermark before the first one arrives (`Long.MIN_VALUE` in Flink).
    initial_watermark: int = LONG_MIN
    #: What a watermark generator's output gains before the operator receives it (an engine whose watermark
    #: is `max - bound` where Flink's generator gives `max - bound - 1`: 1).
    generated_watermark_offset: int = 0
    #: A watermark generator's watermark reaches the operator as the generator makes it, a millisecond at a time;
    #: "session_gap_hundredth": for session windows, rounded down to a stride of `gap / 100` (1 to 100) and sent
    #: on only when that raises it (Hazelcast Jet's planner throttles a source's watermarks to the windows'
    #: `preferredWatermarkStride`: `floorFrameTs(max - lag)`; a tumbling or sliding window's stride, its slide,
    #: changes nothing, as its windows end on the slide's multiples).
    generated_watermark_stride: Literal["millisecond", "session_gap_hundredth"] = "millisecond"
    #: Only watermarks move the operator's watermark; True, in a case that lists its watermarks: a record
    #: moves it too, to the record's timestamp less one, once the operator has taken the record (as a
    #: punctuated `forMonotonousTimestamps()` would beside the listed watermarks: a stream time that is the
    #: largest timestamp seen, for every key: Kafka Streams).
    records_advance_watermark: bool = False
    #: A channel's generator sees a record after the window operator took it (a punctuated watermark follows its
    #: record); True: before, so that the operator judges the record against the watermark the record itself
    #: moved (Bytewax's `EventClock`, whose `on_item` gives the item's watermark with the item: with Flink's
    #: legacy `BoundedOutOfOrdernessTimestampExtractor` of bound 0, every record is behind its own watermark).
    generator_sees_record_first: bool = False
    #: Event time ends at `Long.MAX_VALUE` (a bounded input's last watermark); "max_minus_window": at
    #: `Long.MAX_VALUE - size` (`- gap` for sessions), the last time whose windows end without overflow, so
    #: that no watermark goes beyond what a record there gives (Kafka Streams' stream time, which only a record
    #: moves: `TimeWindows.windowsFor` fails beyond); "never": time has no end, and the end of input and a listed
    #: `Watermark(Long.MAX_VALUE)` are each a heartbeat just late enough to close every window so far, after which
    #: input goes on: the watermark `latest + size - 1` (a session's `latest + 2 * gap`), where `latest` is the
    #: largest timestamp so far (a watermark `w` counts as `w + 1`, a heartbeat as itself plus the generator's
    #: bound) (Quix Streams, whose time is its largest timestamp: the adapter's heartbeat at `latest + size +
    #: grace`, or `latest + 1 + 2 * gap + grace`).
    event_time_ends: Literal["long_max", "max_minus_window", "never"] = "long_max"

    def received(self, receive: Callable[[int], None], driven: case.Case) -> Callable[[int], None]:
        """How the operator receives a watermark of `driven`, before it is recorded: a generated one gains
        `generated_watermark_offset` and is rounded down to `generated_watermark_stride`, and one not above
        `initial_watermark` never arrives."""
        generated = driven.watermark_generator is not None
        offset = self.generated_watermark_offset if generated else 0
        stride = watermark_stride(self, driven) if generated else 1
        if not offset and stride == 1 and self.initial_watermark == LONG_MIN:
            return receive

        def received(watermark: int) -> None:
            if watermark != LONG_MAX:
                watermark += offset
                # `floorFrameTs(w + 1) - 1`: Jet's watermark is Flink's + 1
                watermark = max(LONG_MIN, watermark - (watermark + 1) % stride)
            if watermark > self.initial_watermark:
                receive(watermark)
        return received


def watermark_stride(dialect: WatermarkSwitches, driven: case.Case) -> int:
    """The stride `generated_watermark_stride` rounds `driven`'s generated watermarks to
    (`WindowAggregateTransform.preferredWatermarkStride` of a session window: `gap / 100` between 1 and 100)."""
    if dialect.generated_watermark_stride == "session_gap_hundredth" and isinstance(driven.window, case.Session):
        return min(100, max(1, driven.window.gap // 100))
    return 1


class StartsAtWatermark:
    """`initial_watermark`: the operator's watermark before the first one arrives (with
    `windows_close_at="end"`, the operator decides on one less, as on every watermark; `WatermarkSwitches.received`
    keeps the watermarks below it away)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.timers.current_watermark = self.dialect.initial_watermark - self.dialect.decides_on_less


class RecordsAdvance:
    """`records_advance_watermark`: the inputs take a record as a watermark at its timestamp less one, on its
    channel, once the operator has taken the record (ignored unless it raises the channel's watermark); with
    `late_when_in_no_window=False` (`windowing`: the operator), only a record that some window holds (the others
    vanish: Pathway's time is the largest time of the rows its windows hold)."""

    def __init__(self, inputs, windowing=None) -> None:
        self.inputs, self.windowing = inputs, windowing

    def __getattr__(self, name):
        return getattr(self.inputs, name)

    def after_element(self, record: case.Record, timestamp: int) -> None:
        self.inputs.after_element(record, timestamp)
        if self.windowing is None or self.windowing.assigner.assign_windows(timestamp, 0, record.value):
            self.inputs.process_watermark(case.Watermark(timestamp - 1, record.channel))


def grace_of(driven: case.Case) -> int:
    """The grace period a job on an engine without watermarks gets for `driven`'s watermarks: a bounded
    out-of-orderness generator's bound, else 0."""
    match driven.watermark_generator:
        case case.BoundedOutOfOrdernessWatermarks(bound):
            return bound
    return 0


class EndsWithHeartbeats:
    """`event_time_ends="never"`: the inputs take the end of input, and a listed `Watermark(Long.MAX_VALUE)`, as a
    heartbeat just late enough to close every window so far (see the switch), and track the largest timestamp."""

    def __init__(self, inputs, driven: case.Case) -> None:
        self.inputs, self.latest, self.grace = inputs, 0, grace_of(driven)
        window = driven.window
        self.reach = 1 + 2 * window.gap if isinstance(window, case.Session) else window.size

    def __getattr__(self, name):
        return getattr(self.inputs, name)

    def heartbeat(self) -> int:
        """The watermark of a heartbeat at `latest + reach + grace`, which it makes the latest timestamp."""
        self.latest += self.reach + self.grace
        return self.latest - self.grace - 1

    def after_element(self, record: case.Record, timestamp: int) -> None:
        self.latest = max(self.latest, timestamp)
        self.inputs.after_element(record, timestamp)

    def process_watermark(self, watermark: case.Watermark) -> None:
        if watermark.timestamp == LONG_MAX:
            watermark = case.Watermark(self.heartbeat(), watermark.channel)
        else:
            self.latest = max(self.latest, watermark.timestamp + 1)
        self.inputs.process_watermark(watermark)

    def end_of_input(self) -> None:
        watermark = self.heartbeat()
        for channel in sorted(self.inputs.open_channels):
            self.inputs.input_watermark(watermark, channel)


def last_watermark(driven: case.Case) -> int:
    """`event_time_ends="max_minus_window"`: the watermark a record at `Long.MAX_VALUE - size` (`- gap`) gives,
    the generator's lag behind it (a listed watermark's: one) taken off."""
    match driven.window:
        case case.Tumbling(size) | case.Sliding(size):
            end = LONG_MAX - size
        case case.Session(gap):
            end = LONG_MAX - gap
        case _:
            return LONG_MAX
    match driven.watermark_generator:
        case case.BoundedOutOfOrdernessWatermarks(bound):
            return end - bound - 1
        case case.BoundedOutOfOrdernessTimestampExtractor(bound):
            return end - bound
    return end - 1


def ending(build: Callable[[], tuple], last: int) -> tuple:
    """`build()`'s operator and inputs, whose inputs deliver no watermark beyond `last`."""
    operator, inputs = build()
    deliver, delivered = inputs.deliver, [LONG_MIN]

    def ending(watermark: int) -> None:
        if min(watermark, last) > delivered[0]:
            delivered[0] = min(watermark, last)
            deliver(delivered[0])
    inputs.deliver = ending
    return operator, inputs


def seeing_first(build: Callable[[], tuple]) -> tuple:
    """`build()`'s operator and inputs, whose generators see each record before the operator does
    (`generator_sees_record_first`)."""
    operator, inputs = build()
    return operator, GeneratorSeesRecordFirst(inputs)


class GeneratorSeesRecordFirst:
    """Inputs whose channel's generator sees a record as its timestamp is taken, before the operator does."""

    def __init__(self, inputs) -> None:
        self.inputs = inputs

    def __getattr__(self, name):
        return getattr(self.inputs, name)

    def timestamp(self, record: case.Record) -> int:
        timestamp = self.inputs.timestamp(record)
        self.inputs.after_element(record, timestamp)
        return timestamp

    def after_element(self, record: case.Record, timestamp: int) -> None:
        pass

"""Bytewax 0.21 as an engine under test (`bytewax`), run as a process in its own environment.

`./dev setup` installs `bytewax` into `.venv-bytewax` (the `bytewax` extra); the suite starts this module there
(`engines/venv_engines.py`) and speaks `window-process/1` with it (`engines/serving.py`). Bytewax's pins would not
clash with Spark's, but its dataflows run in Rust (timely dataflow): a panic there or a dataflow that never ends
can only be stopped by ending the process, which the protocol's request timeout does.

Each Flink case becomes the dataflow a Bytewax user writes for the same job, run by `bytewax.testing.run_main`
(one worker, the current thread) on a `TestingSource` of the case's events, one item a batch as a Flink operator
sees one record at a time:

- **Time**: a Flink millisecond is a Bytewax millisecond: an event time `t` is the aware datetime
  `1970-01-01T00:00Z + t ms` (`moment`), which holds years 1 to 9999; a time beyond fails the job where the
  user's conversion raises (`OverflowError`), a `runtime` error.
- **Keys**: `op.key_on` by the record's key; Bytewax keeps windows, clocks and watermarks per key.
- **Assigners** (`bytewax.operators.windowing`): `TumblingEventTimeWindows(size, offset)` is
  `TumblingWindower(length=size, align_to=epoch + offset)`, `SlidingEventTimeWindows(size, slide, offset)` is
  `SlidingWindower(length=size, offset=slide, align_to=epoch + offset)`, `EventTimeSessionWindows(gap)` is
  `SessionWindower(gap)`. What a constructor rejects (`ValueError`) is the case's `invalid_spec`, in Bytewax's
  words, and so is a size, slide, gap or offset that the job cannot convert (`OverflowError`: a `timedelta`
  holds up to 999,999,999 days). The window function is `collect_window` (the window's items, emitted once
  when it closes).
- **Watermarks that Flink makes** (`watermark_generator`, punctuated): Bytewax's own `EventClock(ts_getter,
  wait_for_system_duration)`, whose watermark (`_EventClockLogic.on_item`) is the largest timestamp of the key
  minus the wait, plus the system time since that timestamp came: the system clock is frozen (`now_getter`
  returns the epoch, `to_system_utc` never wakes the runtime), so the watermark moves only with timestamps.
  Flink's generators lag `max - bound - 1` (`forBoundedOutOfOrderness`, `forMonotonousTimestamps` with bound 0)
  or `max - bound` and `max - 1` (the legacy extractors); Bytewax's watermark one above Flink's says the same
  (below), so the wait is the lag less one millisecond: `bound`, `0`, `bound - 1`, `0`.
- **Listed watermarks**: Bytewax's sources carry no watermark, and its `ClockLogic` is the user's to write: the
  adapter's `SourceWatermarkClock` takes the watermark from marker items that the source sends to every key of the
  case (`SourceWatermark`), as Flink's watermark reaches every key. Flink's `Watermark(t)` says that no record at
  or before `t` follows; Bytewax's watermark `w` makes items with `timestamp < w` late, so the same statement is
  `t + 1` (`Long.MAX_VALUE`, the end of time, is `UTC_MAX`). A marker is stamped `UTC_MIN`, behind every
  watermark: `_WindowLogic.on_batch` sends it down the late stream, where the user's job leaves it out.
- **Closing**: Bytewax closes a window when its `close_time <= watermark` (`_SlidingWindowerLogic.close_for`),
  a session when `close_time < watermark - gap` (`_SessionWindowerLogic.close_for`); at the end of input
  (`TestingSource`'s end, `_EventClockLogic.on_eof`) the watermark is `UTC_MAX` and every window closes. A case
  without end of input ends its source with `TestingSource.ABORT()`: the dataflow stops there, nothing flushed.
- **Lateness**: Bytewax judges each item, not its windows: an item with `timestamp < watermark` goes down the
  `late` stream (`_WindowLogic.on_batch`), once for each window `late_for` names; with Flink's
  `sideOutputLateData` the job keeps that stream (`late`), without it the job ignores it (`dropped`). Each record
  is reported once. Bytewax has no allowed lateness.

What Bytewax reports and how it is read, never corrected:

- a firing is a window that `collect_window` emitted, its key and items, with the window's `WindowMetadata` from
  the `meta` stream: a tumbling or sliding window is `[open_time, close_time)`; a session's metadata is its first
  and last timestamp, `[open_time, close_time]`, which Flink names `[first, last + gap)`;
- Bytewax's items carry no timestamp: a firing's timestamp is the window's last millisecond, as the user's job
  computes it from the metadata; the engine is position-free (an output does not say at which input it came) and
  gives no firing's watermark;
- an exception in the dataflow fails the job: a `runtime` error with the innermost exception, after the outputs
  the sinks got;
- a sliding assignment of more than `WINDOWS_PER_ELEMENT_LIMIT` windows an element stops the case at that
  element (the contract's `TOO_MANY_WINDOWS`): the dataflow runs the events before it and aborts.

Not declared, so never sent here: triggers other than the event-time one (Bytewax's windows emit at close),
allowed lateness, global and count windows (no windower), evictors, processing time (Bytewax's `SystemClock`
reads the wall clock), periodic watermark emission and idleness (Bytewax's watermark moves on every item),
channels, and extreme values (datetimes end at year 9999).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from engines.serving import serve
from window_contract.case import (
    AscendingTimestampExtractor,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    MonotonousWatermarks,
    Record,
    Session,
    Sliding,
    Tumbling,
    Watermark,
    WatermarkGenerator,
    WindowSpec,
)
from window_contract.facts import LONG_MAX, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.observation import Error, Firing, LateRecord, Observation, TimeWindow

try:
    import bytewax.operators as op
    from bytewax.dataflow import Dataflow
    from bytewax.operators.windowing import (
        UTC_MAX,
        UTC_MIN,
        ClockLogic,
        EventClock,
        SessionWindower,
        SlidingWindower,
        TumblingWindower,
        collect_window,
    )
    from bytewax.testing import TestingSink, TestingSource, run_main
except ImportError as missing:  # the engine's own environment, made by ./dev setup
    raise SystemExit(f"Bytewax is not installed ({missing}): "
                     f"`./dev setup bytewax` installs bytewax into .venv-bytewax") from missing

NAME = "bytewax"

FEATURES = frozenset({
    "assigner.tumbling", "assigner.sliding", "assigner.session", "offset", "trigger.event_time",
    "late_side_output", "negative_timestamps", "unbounded_input",
    "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.legacy_bounded_out_of_orderness",
    "watermark.legacy_ascending", "watermark.punctuated",
})

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MILLISECOND = timedelta(milliseconds=1)


def moment(ms: int) -> datetime:
    """Flink's event time `ms` as the user's job converts it (`OverflowError` beyond years 1 to 9999)."""
    return EPOCH + ms * MILLISECOND


def millis(at: datetime) -> int:
    return (at - EPOCH) // MILLISECOND


# --- the job's items -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """A record of the case, with its index among the case's events (how the adapter tells records apart)."""

    index: int
    key: str
    value: int
    ts: int


@dataclass(frozen=True)
class SourceWatermark:
    """Flink's `Watermark(timestamp)`, sent to one key."""

    key: str
    timestamp: int


def items(case: Case) -> list[Item | SourceWatermark]:
    """The case's events as the source's items: each record, each listed watermark once for every key."""
    keys = sorted({r.key for r in case.records})
    out: list[Item | SourceWatermark] = []
    for index, event in enumerate(case.events):
        if isinstance(event, Record):
            out.append(Item(index, event.key, event.value, event.ts))
        elif isinstance(event, Watermark):
            out.extend(SourceWatermark(key, event.timestamp) for key in keys)
    return out


# --- the clock -----------------------------------------------------------------------------------


class SourceWatermarkClock:
    """The user's `Clock` for watermarks that come with the source (Bytewax's `Clock.build` protocol)."""

    def build(self, resume_state: datetime | None) -> SourceWatermarkLogic:
        return SourceWatermarkLogic(UTC_MIN if resume_state is None else resume_state)


class SourceWatermarkLogic(ClockLogic):
    """A key's watermark is the highest listed so far, `t + 1` for Flink's `t`; a record's timestamp is its own."""

    def __init__(self, watermark: datetime) -> None:
        self.watermark = watermark

    def before_batch(self) -> None:
        pass

    def on_item(self, item: Item | SourceWatermark) -> tuple[datetime, datetime]:
        if isinstance(item, SourceWatermark):
            self.watermark = max(self.watermark, UTC_MAX if item.timestamp == LONG_MAX else moment(item.timestamp + 1))
            return UTC_MIN, self.watermark
        return moment(item.ts), self.watermark

    def on_notify(self) -> datetime:
        return self.watermark

    def on_eof(self) -> datetime:
        return UTC_MAX

    def to_system_utc(self, timestamp: datetime) -> datetime | None:
        return None

    def snapshot(self) -> datetime:
        return self.watermark


def wait(generator: WatermarkGenerator) -> int:
    """`EventClock`'s wait for Flink's generator: its lag behind the largest timestamp, less one (module docstring)."""
    match generator:
        case BoundedOutOfOrdernessWatermarks(bound):
            return bound
        case BoundedOutOfOrdernessTimestampExtractor(bound):
            return bound - 1
        case MonotonousWatermarks() | AscendingTimestampExtractor():
            return 0
    raise TypeError(f"bytewax does not declare the generator {generator!r}")


def clock(case: Case):
    """The case's sense of time: Bytewax's `EventClock` with a frozen system clock, or the source's watermarks."""
    if case.watermark_generator is None:
        return SourceWatermarkClock()
    lag = wait(case.watermark_generator) * MILLISECOND
    return EventClock(lambda item: moment(item.ts), wait_for_system_duration=lag, now_getter=lambda: EPOCH,
                      to_system_utc=lambda _: None)


# --- the windows ---------------------------------------------------------------------------------


def windower(spec: WindowSpec):
    """Bytewax's windower for Flink's assigner; its constructor checks it (module docstring)."""
    match spec:
        case Tumbling(size, offset):
            return TumblingWindower(length=size * MILLISECOND, align_to=moment(offset))
        case Sliding(size, slide, offset):
            return SlidingWindower(length=size * MILLISECOND, offset=slide * MILLISECOND, align_to=moment(offset))
        case Session(gap):
            return SessionWindower(gap=gap * MILLISECOND)
    raise TypeError(f"bytewax does not declare the assigner {spec!r}")


def window_of(spec: WindowSpec, open_time: datetime, close_time: datetime) -> TimeWindow:
    """The window Flink names for Bytewax's metadata: a session's `close_time` is its last timestamp."""
    end = millis(close_time) + (spec.gap if isinstance(spec, Session) else 0)
    return TimeWindow(millis(open_time), end)


def stamp(item: Item | SourceWatermark) -> int:
    """The event time the windower gets an item at, in milliseconds: a record's own, and a listed watermark's
    marker `UTC_MIN`, behind every window, for which `late_for` still lists every window that holds it."""
    return item.ts if isinstance(item, Item) else (UTC_MIN - EPOCH) // MILLISECOND


def windows_of_element(spec: WindowSpec, ts: int) -> int:
    """How many windows Bytewax's sliding windower gives an element (`_SlidingWindowerLogic.intersects`)."""
    if not isinstance(spec, Sliding) or spec.slide <= 0:
        return 1
    since = ts - spec.offset
    return since // spec.slide - (since - spec.size) // spec.slide


# --- a run ---------------------------------------------------------------------------------------


@dataclass
class Outputs:
    """What the dataflow's three sinks got: windows emitted, late items, window metadata."""

    down: list
    late: list
    meta: list


def run_dataflow(case: Case, source: list, end_of_input: bool) -> tuple[Outputs, Exception | None]:
    """The case's dataflow on `source`, ended (`end_of_input`) or aborted; the exception that failed it, if any."""
    flow = Dataflow("case")
    stream = op.input("events", flow, TestingSource(source if end_of_input else [*source, TestingSource.ABORT()]))
    keyed = op.key_on("key", stream, lambda item: item.key)
    windows = collect_window("window", keyed, clock(case), windower(case.window))
    outputs = Outputs([], [], [])
    op.output("down", windows.down, TestingSink(outputs.down))
    op.output("late", windows.late, TestingSink(outputs.late))
    op.output("meta", windows.meta, TestingSink(outputs.meta))
    try:
        run_main(flow)
    except Exception as failed:
        return outputs, failed
    return outputs, None


def innermost(error: BaseException) -> BaseException:
    while error.__cause__ is not None:
        error = error.__cause__
    return error


def message(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def run_case(case: Case) -> Observation:
    """One case: Bytewax's rejection, or its dataflow's outputs (stopped at an element with too many windows)."""
    try:
        windower(case.window)
    except (ValueError, OverflowError) as rejected:  # Bytewax's check, or a duration beyond `timedelta`'s
        return Observation.invalid_spec(message(rejected))
    source, end_of_input, stop = items(case), case.end_of_input, None
    crowded = next((i for i, item in enumerate(source)
                    if windows_of_element(case.window, stamp(item)) > WINDOWS_PER_ELEMENT_LIMIT), None)
    if crowded is not None:
        source, end_of_input, stop = source[:crowded], False, Error("runtime", TOO_MANY_WINDOWS)
    print(f"bytewax: {case.window} {case.watermark_generator}, {len(case.events)} events", file=sys.stderr, flush=True)
    outputs, failed = run_dataflow(case, source, end_of_input)
    error = Error("runtime", message(innermost(failed))) if failed is not None else stop
    return observation(case, outputs, error)


def observation(case: Case, outputs: Outputs, error: Error | None) -> Observation:
    """What the sinks got, in the observation format (position-free; each late record once)."""
    metadata = {(key, window_id): meta for key, (window_id, meta) in outputs.meta}
    firings = []
    for key, (window_id, contents) in outputs.down:
        meta = metadata[(key, window_id)]
        window = window_of(case.window, meta.open_time, meta.close_time)
        firings.append(Firing(None, key, window, window.end - 1, tuple(item.value for item in contents), None))
    late_items = {item.index: item for _, (_, item) in outputs.late if isinstance(item, Item)}
    late = tuple(LateRecord(None, item.key, item.value, item.ts) for _, item in sorted(late_items.items()))
    return Observation(tuple(firings), late if case.late_side_output else (), () if case.late_side_output else late,
                       error)


def run_cases(cases: Sequence[Case]) -> list[Observation]:
    return [run_case(case) for case in cases]


if __name__ == "__main__":
    serve(NAME, FEATURES, run_cases)

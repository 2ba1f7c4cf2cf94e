"""Apache Beam's Python SDK as an engine under test (`beam`, issue 14), run as a process.

`apache-beam` lives in an environment of its own (`.venv-beam`, made by `./dev setup`): it pins
`pyarrow<26`, `protobuf`, `grpcio` and friends, which the Spark environment has no reason to follow. The
suite starts this module there (`engines/venv_engines.py`) and speaks the project's protocol with it
(`window-process/1`, docs/protocol.md): `python -m engines.beam` says hello, then answers each run request.

Each Flink case becomes what a Beam user would write for the same job, run by Beam's direct runner
(the one that runs a `TestStream`) in streaming mode:

- **Time**: a Flink millisecond is a Beam millisecond (`Timestamp(micros=ms * 1000)`): Beam's runner API
  carries watermarks in milliseconds, and its Java SDK counts in them.
- **Records** keep their order: each is one `TestStream.add_elements` of one `TimestampedValue`, so every
  record is a bundle of its own, as a Flink operator sees one record at a time. The element is keyed by
  `(case, key)` and carries `(case, index of the record)`, so cases run side by side keyed apart.
- **Watermarks**: Flink's `Watermark(t)` says that no record with `ts <= t` follows; Beam's watermark `t`
  says that none with `ts < t` follows, so the same statement is `advance_watermark_to(t + 1)`. Both then
  fire a window at `maxTimestamp` (Flink's `EventTimeTrigger` at `t >= end - 1`, Beam's `AfterWatermark` at
  `t + 1 >= end`). A watermark no higher than the last is left out (Flink ignores it). The end of input,
  or `Watermark(Long.MAX_VALUE)`, is `advance_watermark_to_infinity`; a processing-time event is
  `advance_processing_time` by the clock's step.
- **Assigners**: `TumblingEventTimeWindows(size, offset)` is `FixedWindows(size, offset)`,
  `SlidingEventTimeWindows(size, slide, offset)` is `SlidingWindows(size, slide, offset)`,
  `EventTimeSessionWindows(gap)` is `Sessions(gap)`, `GlobalWindows` is `GlobalWindows`. Beam's
  constructors check their parameters: what they reject is the case's `invalid_spec`, in Beam's words.
- **Triggers**: none given is Beam's `DefaultTrigger` (a time window's `EventTimeTrigger` is Beam's default),
  or for the global window, whose Flink default is `NeverTrigger`, Beam's never-firing `_Never`; an explicit
  `EventTimeTrigger` is `AfterWatermark(late=AfterCount(1))` (fire at the watermark, then once for every late
  element); `CountTrigger(n)` is `Repeatedly(AfterCount(n))`; `NeverTrigger` is `_Never`.
- **Panes**: Flink keeps a window's contents after a firing (`ACCUMULATING`); `PurgingTrigger(t)` is `t`
  with `DISCARDING` panes. `allowed_lateness` is `WindowInto(allowed_lateness=...)`.

What Beam reports and how it is read, never corrected:

- a pane is a firing: its window (`IntervalWindow` in milliseconds, or the global window), its timestamp
  (Beam's default `TimestampCombiner.OUTPUT_AT_EOW`, the window's `max_timestamp()`, floored to the
  millisecond as Beam's runner API carries it) and its values;
- a pane does not say at which input event Beam emitted it, nor at which watermark: the engine is
  position-free (`at` and the firing's `watermark` are `None`, docs/protocol.md);
- Beam has no late-data side output and no counter of what it drops: a record is **dropped** when the
  trigger driver (`GeneralTriggerDriver.process_elements`, the streaming `GroupByKey`'s) got it with a window
  and added it to the state of none: its windows had expired, or their trigger had finished. The adapter
  watches the driver's state to see it (`WatchedState`), as a counter would;
- a case whose records fall in more than `WINDOWS_PER_CASE` windows is stopped before it runs, a
  `runtime` error that says so: the direct runner takes about 10 ms a window;
- an exception while the pipeline runs fails the job: a `runtime` error, in Beam's words, after the panes it
  emitted. Cases run together share a pipeline; when it fails, each of them runs alone.

Not declared, so never sent here: processing-time windows and triggers (Beam has no processing-time
windows, and its `AfterProcessingTime` counts from the first element of a pane, not Flink's aligned
timers), `ContinuousEventTimeTrigger` (Beam has no event-time timer trigger), evictors and count windows
(none in Beam), the late side output (none), input that does not end (the direct runner advances the
watermark to infinity when a `TestStream` ends), watermark generators and channels (upstream of the
operator), and extreme values (Beam's timestamps end near `Long.MAX_VALUE / 1000` ms).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import count

from engines.serving import serve
from window_contract.case import (
    Case,
    CountTrigger,
    EventTimeTrigger,
    Global,
    NeverTrigger,
    ProcessingTime,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TriggerSpec,
    Tumbling,
    Watermark,
    WindowSpec,
)
from window_contract.facts import LONG_MAX
from window_contract.observation import Error, Firing, GlobalWindow, LateRecord, Observation, TimeWindow

try:
    import apache_beam as beam
    from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions
    from apache_beam.runners.direct import transform_evaluator
    from apache_beam.testing.test_stream import TestStream
    from apache_beam.transforms import trigger as beam_trigger
    from apache_beam.transforms import window as beam_window
    from apache_beam.transforms.trigger import AccumulationMode, GeneralTriggerDriver
    from apache_beam.utils.timestamp import Duration, Timestamp
except ImportError as missing:  # the engine's own environment, made by ./dev setup
    raise SystemExit(f"Apache Beam is not installed ({missing}): "
                     f"`./dev setup beam` installs apache-beam into .venv-beam") from missing

NAME = "beam"

FEATURES = frozenset({
    "assigner.tumbling", "assigner.sliding", "assigner.session", "assigner.global", "offset",
    "trigger.event_time", "trigger.count", "trigger.purging", "trigger.never",
    "allowed_lateness", "negative_timestamps",
})

#: How many cases share one pipeline: a pipeline costs about half a second to start, and the direct
#: runner's cost per case grows with the pipeline's width.
CASES_PER_PIPELINE = 10

#: The direct runner spends about 10 ms on each window a record is in (its state, its timers, its
#: pane), so a sliding window of 10,000 slides costs minutes a record: past this many windows for the
#: case's records, the case is stopped before it runs (`too_many_windows`).
WINDOWS_PER_CASE = 2_000


def millis(ms: int) -> Timestamp:
    return Timestamp(micros=ms * 1000)


def duration(ms: int) -> Duration:
    return Duration(micros=ms * 1000)


# --- the job -------------------------------------------------------------------------------------


def window_fn(spec: WindowSpec):
    """The Beam `WindowFn` a Beam user writes for Flink's assigner; its constructor checks it."""
    match spec:
        case Tumbling(size, offset):
            return beam_window.FixedWindows(duration(size), millis(offset))
        case Sliding(size, slide, offset):
            return beam_window.SlidingWindows(duration(size), duration(slide), millis(offset))
        case Session(gap):
            return beam_window.Sessions(duration(gap))
        case Global():
            return beam_window.GlobalWindows()
    raise TypeError(f"beam does not declare the assigner {spec!r}")


def trigger_fn(spec: TriggerSpec | None, window: WindowSpec):
    """Beam's trigger for Flink's (module docstring); purging is the accumulation mode, not a trigger."""
    match spec:
        case None:
            return beam_trigger._Never() if isinstance(window, Global) else beam_trigger.DefaultTrigger()
        case EventTimeTrigger():
            return beam_trigger.AfterWatermark(late=beam_trigger.AfterCount(1))
        case CountTrigger(count):
            return beam_trigger.Repeatedly(beam_trigger.AfterCount(count))
        case PurgingTrigger(inner):
            return trigger_fn(inner, window)
        case NeverTrigger():
            return beam_trigger._Never()
    raise TypeError(f"beam does not declare the trigger {spec!r}")


def window_into(case: Case, label: str):
    """`WindowInto` with the case's window, trigger, panes and allowed lateness (Beam checks them)."""
    purging = isinstance(case.trigger, PurgingTrigger)
    return label >> beam.WindowInto(
        window_fn(case.window), trigger=trigger_fn(case.trigger, case.window),
        accumulation_mode=AccumulationMode.DISCARDING if purging else AccumulationMode.ACCUMULATING,
        allowed_lateness=duration(case.allowed_lateness))


def is_batch(case: Case) -> bool:
    """A case whose only watermark is its end: its records can share a `TestStream` with other such cases."""
    return case.end_of_input and not any(isinstance(e, Watermark | ProcessingTime) for e in case.events)


def test_stream(tagged: Sequence[tuple[tuple[int, int], Case]]) -> TestStream:
    """The cases' events as a `TestStream` (module docstring); several only when all are batch cases."""
    stream, watermark, clock = TestStream(), None, 0
    for tag, case in tagged:
        for index, event in enumerate(case.events):
            if isinstance(event, Record):
                element = ((tag, event.key), (tag, index))
                stream = stream.add_elements([beam_window.TimestampedValue(element, millis(event.ts))])
            elif isinstance(event, Watermark) and (watermark is None or event.timestamp > watermark):
                watermark = event.timestamp
                stream = (stream.advance_watermark_to_infinity() if watermark == LONG_MAX
                          else stream.advance_watermark_to(millis(watermark + 1)))
            elif isinstance(event, ProcessingTime) and event.time > clock:
                stream = stream.advance_processing_time(duration(event.time - clock))
                clock = event.time
    return stream if watermark == LONG_MAX else stream.advance_watermark_to_infinity()


# --- what Beam does ------------------------------------------------------------------------------


@dataclass
class Seen:
    """What one pipeline did: its panes by case tag `(run, case)`, and the records `(tag, index)` its
    trigger drivers got with a window and those they kept."""

    panes: dict[tuple[int, int], list[tuple]]
    windowed: set[tuple[tuple[int, int], int]]
    kept: set[tuple[tuple[int, int], int]]


#: The pipelines running, by id: the DoFn and the watched drivers write here (the direct runner runs
#: them in this process; they are pickled by reference to this module).
SEEN: dict[int, Seen] = {}
RUNS = count()


class Panes(beam.DoFn):
    """Collects each pane the `GroupByKey` emits: key, window, timestamp and values."""

    def __init__(self, run: int) -> None:
        self.run = run

    def process(self, pane, window=beam.DoFn.WindowParam, timestamp=beam.DoFn.TimestampParam):
        (tag, key), values = pane
        SEEN[self.run].panes[tag].append((key, window, timestamp, [index for _, index in values]))


class WatchedState:
    """The keyed state a trigger driver works on, with the elements it adds to a window's contents noted."""

    def __init__(self, state, kept: set) -> None:
        self.state, self.kept = state, kept

    def add_state(self, window, tag, value) -> None:
        if tag is GeneralTriggerDriver.ELEMENTS:
            self.kept.add(value)
        self.state.add_state(window, tag, value)

    def __getattr__(self, name):
        return getattr(self.state, name)


class WatchedDriver:
    """The streaming `GroupByKey`'s trigger driver, seen from outside: which elements came with a window,
    which it kept. It runs Beam's own driver and changes nothing."""

    def __init__(self, driver) -> None:
        self.driver = driver

    def process_elements(self, state, windowed_values, output_watermark, input_watermark):
        windowed_values = list(windowed_values)
        for wv in windowed_values:
            if wv.windows and (seen := seen_by(wv.value)) is not None:
                seen.windowed.add(wv.value)
        if windowed_values and (seen := seen_by(windowed_values[0].value)) is not None:
            state = WatchedState(state, seen.kept)
        return self.driver.process_elements(state, windowed_values, output_watermark, input_watermark)

    def __getattr__(self, name):
        return getattr(self.driver, name)


def seen_by(value) -> Seen | None:
    """The run an element belongs to: its case tag `(run, case)` is unique to a pipeline."""
    (run, _), _ = value
    return SEEN.get(run)


def watch_trigger_drivers() -> None:
    """The direct runner's `GroupByKey` evaluators get their trigger drivers watched (once a process)."""
    create_trigger_driver = transform_evaluator.create_trigger_driver
    if getattr(create_trigger_driver, "watched", False):
        return

    def create(*args, **kwargs):
        driver = create_trigger_driver(*args, **kwargs)
        return WatchedDriver(driver) if isinstance(driver, GeneralTriggerDriver) else driver

    create.watched = True
    transform_evaluator.create_trigger_driver = create


def run_together(cases: Sequence[Case]) -> list[Observation]:
    """One pipeline: one `TestStream`, then per case its filter, `WindowInto`, `GroupByKey` and panes.
    A pipeline that fails fails every case in it: several cases then run again, each alone."""
    watch_trigger_drivers()
    for case in cases:  # the tail of stderr is what the suite quotes when a request fails
        print(f"beam: {case.window} {case.trigger} lateness {case.allowed_lateness}, {len(case.events)} events",
              file=sys.stderr, flush=True)
    run = next(RUNS)
    tagged = [((run, i), case) for i, case in enumerate(cases)]
    seen = SEEN[run] = Seen(defaultdict(list), set(), set())
    options = PipelineOptions(runner="DirectRunner")
    options.view_as(StandardOptions).streaming = True
    try:
        with beam.Pipeline(options=options) as pipeline:
            source = pipeline | "Events" >> test_stream(tagged)
            for tag, case in tagged:
                label = f"case {tag[1]}"
                (source
                 | f"{label}: keyed apart" >> beam.Filter(lambda element, tag=tag: element[0][0] == tag)
                 | window_into(case, f"{label}: WindowInto")
                 | f"{label}: GroupByKey" >> beam.GroupByKey()
                 | f"{label}: panes" >> beam.ParDo(Panes(run)))
    except Exception as failed:
        if len(cases) > 1:
            return [o for case in cases for o in run_together([case])]
        return [observation(tag, case, seen, Error("runtime", message(failed))) for tag, case in tagged]
    finally:
        del SEEN[run]
    return [observation(tag, case, seen) for tag, case in tagged]


def observation(tag: tuple[int, int], case: Case, seen: Seen, error: Error | None = None) -> Observation:
    """What Beam did with one case, in the observation format (position-free)."""
    records = {index: e for index, e in enumerate(case.events) if isinstance(e, Record)}
    firings = tuple(
        Firing(None, key, GlobalWindow() if isinstance(window, beam_window.GlobalWindow)
               else TimeWindow(window.start.micros // 1000, window.end.micros // 1000),
               timestamp.micros // 1000, tuple(records[i].value for i in indexes), None)
        for key, window, timestamp, indexes in seen.panes[tag])
    dropped = tuple(LateRecord(None, r.key, r.value, r.ts) for i, r in records.items()
                    if (tag, i) in seen.windowed - seen.kept)
    return Observation(firings, (), dropped, error)


def message(error: Exception) -> str:
    """Beam's exception as the failed job names it: its type, then its message."""
    return f"{type(error).__name__}: {error}"


def windows(case: Case) -> int:
    """How many windows the case's records are assigned (a sliding window's `ceil(size / slide)` each)."""
    records = sum(isinstance(e, Record) for e in case.events)
    window = case.window
    return records * -(-window.size // window.slide) if isinstance(window, Sliding) and window.slide > 0 else records


def too_many_windows(case: Case) -> Error:
    return Error("runtime", f"the case's records are in {windows(case):,} windows: beyond the {WINDOWS_PER_CASE:,} "
                            f"that Beam's direct runner goes through in time (about 10 ms a window; stopped)")


def rejection(case: Case) -> str | None:
    """Beam's own message when it will not build the case's `WindowInto`, or None."""
    try:
        window_into(case, "check")
    except Exception as rejected:
        return message(rejected)
    return None


def run_cases(cases: Sequence[Case]) -> list[Observation]:
    """Each case's observation: Beam's rejections first, the cases with too many windows stopped, then
    the batch cases a pipeline for every `CASES_PER_PIPELINE`, and every other case a pipeline of its own."""
    observations: dict[int, Observation] = {}
    batch, alone = [], []
    for i, case in enumerate(cases):
        if (rejected := rejection(case)) is not None:
            observations[i] = Observation.invalid_spec(rejected)
        elif windows(case) > WINDOWS_PER_CASE:
            observations[i] = Observation(error=too_many_windows(case))
        else:
            (batch if is_batch(case) else alone).append(i)
    groups = [batch[j:j + CASES_PER_PIPELINE] for j in range(0, len(batch), CASES_PER_PIPELINE)]
    for group in groups + [[i] for i in alone]:
        observations.update(zip(group, run_together([cases[i] for i in group]), strict=True))
    return [observations[i] for i in range(len(cases))]


# --- the process ---------------------------------------------------------------------------------


def main() -> None:
    serve(NAME, FEATURES, run_cases)  # what Beam prints is a log: `serve` keeps stdout for the protocol


if __name__ == "__main__":
    # Beam pickles the pipeline's functions, by value when they live in `__main__`: the DoFn and the
    # watched drivers must share this module's `SEEN`, so the process runs the imported module's main.
    from engines.beam import main as imported_main

    imported_main()

"""Cases whose watermarks Flink makes: generators per channel, the valve, idleness, channels that end.

`generated_watermark_cases(features=...)` draws a tumbling, sliding, cumulative or session event-time window (as
the features allow) and a stream over 1 to 4 input channels, in one of two modes:

- *generator*: a `watermark_generator` of every type (`WatermarkStrategy.forBoundedOutOfOrderness`,
  `forMonotonousTimestamps`, the legacy `BoundedOutOfOrdernessTimestampExtractor` and
  `AscendingTimestampExtractor`), periodic (intervals from 0) or punctuated, with or without
  `withIdleness`, and bounds of 0, small, or near `Long.MAX_VALUE` (with `extreme_values`); the stream
  holds records and processing-time advances (steps, and jumps across several intervals);
- *explicit*: the case's own `watermark` events on each channel, with `watermark_status` events.

In both, channels are skewed (each has its own lag behind the stream's frontier), a channel may fall
silent, come back behind the others or level with them, end early (`end_of_channel`), or go idle
and then end. The stream is a `st.lists` of small typed steps, each of which the shrinker can
delete; `hypothesis.event()` labels each family.

With `mixed` (what the property suite draws), a case takes the whole window specification the features
allow (`strategies.specs.window_specs`: triggers that fire on arrival, count, delta, continuous and
purging ones, processing-time triggers, timeouts and windows, sessions, allowed lateness and the side
output, evictors), and the stream reaches the orders in which Flink's classes emit: the clock landing
exactly on the periodic timer's due time or just past it (`Due`), overshooting it and then, after a
record that raises the maximum, a step shorter than the interval (`Overshoot`,
`TimestampsAndWatermarksOperator.onProcessingTime` schedules from the time it fired), a channel idle,
active and idle again beside three or more channels (`Flap`), every channel idle in turn, the last back
below the output (`Quiet`), `watermark_status` events a generator's operator ignores (`Noise`), a
`CountTrigger` that fires on the record a punctuated watermark follows (`arrival_triggers`), and clock
steps in explicit mode too (the operator's processing-time timers beside the valve's watermarks).
Without it the family is the one the census and the corpus draw.
Every case drawn fits: `window_contract.features.required_features(case) <= features`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from hypothesis import event, reject
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from strategies.features import supported, within_long_range
from strategies.specs import INVALID_ONE_IN, window_specs
from strategies.weights import built_once, choice_of, integers, just, one_in, weighted
from window_contract.case import (
    GENERATORS,
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    CountTrigger,
    EndOfChannel,
    Event,
    ProcessingTime,
    PurgingTrigger,
    Record,
    Watermark,
    WatermarkGenerator,
    WatermarkStatus,
    cumulative,
    session,
    sliding,
    tumbling,
)
from window_contract.facts import LONG_MAX
from window_contract.features import end_reaches_the_operator, required_features

Mode = Literal["generator", "explicit"]

#: The most steps a stream has: enough for a silence, a comeback and an end on several channels.
MAX_STEPS = 16

#: Where the stream's frontier starts: far enough above 0 that channels lagging behind it stay >= 0.
START = 1000


@dataclass(frozen=True)
class Emit:
    """A record on `channel`, `lag` ms behind that channel's own frontier (its disorder)."""

    channel: int
    lag: int


@dataclass(frozen=True)
class Ahead:
    """The stream's frontier moves `by` ms ahead (event time)."""

    by: int


@dataclass(frozen=True)
class Advance:
    """Processing time advances by `by` ms (a step), or by `intervals` whole intervals and `by` (a jump)."""

    by: int
    intervals: int = 0


@dataclass(frozen=True)
class Behind:
    """A record on `channel` far behind every other channel (a channel that comes back late)."""

    channel: int
    lag: int


@dataclass(frozen=True)
class Mark:
    """An explicit `Watermark` on `channel`, `lag` ms behind its frontier (explicit mode)."""

    channel: int
    lag: int


@dataclass(frozen=True)
class Echo:
    """An explicit `Watermark` on `channel` equal to `source`'s last one (explicit mode): a channel that
    catches up exactly with another, or with the valve's last output, which some channel's watermark
    always is (`StatusWatermarkValve` aligns a channel whose watermark is not behind that output)."""

    channel: int
    source: int


@dataclass(frozen=True)
class Status:
    """A `watermark_status` event: `channel` goes idle or active (explicit mode)."""

    channel: int
    idle: bool


@dataclass(frozen=True)
class End:
    """`end_of_channel`: `channel` ends; its later steps are dropped."""

    channel: int


@dataclass(frozen=True)
class Comeback:
    """`channel` goes idle, the other channels move `jump` ms on, and it comes back behind them, after
    which they move on again: `StatusWatermarkValve` counts a channel that becomes active again in its
    minimum only once it catches up with the last output. With a `jump` of 0 the others hold still and
    it comes back level: aligned at once when its watermark is not behind that output (exactly at it
    when it held the output and another channel is level with it). Once it is back, the others move
    `then` ms on (in explicit mode): past it, when it came back ahead, so that whether it holds the
    output shows.

    In explicit mode the channel's source says idle and active (`watermark_status`); with a generator,
    `withIdleness` and periodic emits (which judge idleness for a punctuated generator too), the channel
    falls silent across two emits further apart than the timeout (`WatermarksWithIdleness`) and comes
    back with a record far behind (whose watermark does not rise: it stays idle). The second emit comes
    `edge` after the timeout: an interval and 1 ms later, 1 ms later (the first instant the
    `IdlenessTimer` says idle: more than the timeout has passed) or exactly at it (not idle yet).
    Elsewhere (no idleness to reach) it is a record far behind, like `Behind`."""

    channel: int
    jump: int
    edge: Literal["interval", "just_past", "at"]
    then: int = 1


@dataclass(frozen=True)
class Retire:
    """`channel` goes idle, then ends: a source that idles before it finishes. The valve ignores the
    `Long.MAX_VALUE` an idle channel's end brings (`StatusWatermarkValve.inputWatermark`), and when the
    last active channel then goes idle it flushes only what the channels really reached. In explicit
    mode the source says idle; with a generator, `withIdleness` and periodic emits, the channel falls
    silent past its timeout and an emit finds it idle (`judged_by` "emit"), or, when the timeout is
    shorter than the interval, the channel ends before the next emit and `finish()`'s last
    `onPeriodicEmit` is the first to find it idle (`judged_by` "finish")."""

    channel: int
    judged_by: Literal["emit", "finish"] = "emit"


@dataclass(frozen=True)
class Due:
    """Processing time moves to the periodic timer's next due time plus `past`: 0 lands exactly on it (no
    emit: the timer fires once the clock has passed it), 1 just past it (one emit), more than an
    interval past it (one emit, not one per interval). Mixed generator mode."""

    past: int


@dataclass(frozen=True)
class Overshoot:
    """The clock overshoots the due time by `past` (1 to interval - 1) and the timer fires; a record on
    `channel` then raises the highest timestamp, and the clock steps `interval - past + 1` on: past the
    old due time plus the interval, not past the firing time plus the interval, where Flink's next timer
    is (`onProcessingTime`: `registerTimer(now + watermarkInterval)`). Mixed generator mode."""

    channel: int
    past: int


@dataclass(frozen=True)
class Flap:
    """`channel` goes idle, the others move `jump` on, it comes back active with a watermark `lag` behind
    its frontier, and goes idle again; the others then move 1 on. Mixed explicit mode."""

    channel: int
    jump: int
    lag: int


@dataclass(frozen=True)
class Quiet:
    """`channel` goes idle, the others move 1 on and it comes back active (behind the output, unaligned,
    unless it was ahead); then every other channel goes idle, the highest watermark first, and `channel`
    last; then all come back active. The valve ends idle with a channel idle above its output and the last
    to go idle below it: Flink 2.3 flushes the highest watermark only when the last channel to go idle held
    the output (`StatusWatermarkValve.inputWatermarkStatus`). Mixed explicit mode."""

    channel: int


@dataclass(frozen=True)
class Noise:
    """A `watermark_status` event in a case with a generator: its `TimestampsAndWatermarksOperator`
    ignores upstream statuses. Mixed generator mode."""

    channel: int
    idle: bool


Step = (Emit | Ahead | Advance | Behind | Mark | Echo | Status | End | Comeback | Retire
        | Due | Overshoot | Flap | Quiet | Noise)


@built_once
def bounds(features: frozenset[str]) -> st.SearchStrategy[int]:
    """0, small, or (with `extreme_values`) near `Long.MAX_VALUE`; shrinks to 0."""
    near_max = (1, integers(LONG_MAX - 10, LONG_MAX)) if "extreme_values" in features else (0, st.nothing())
    branches = [(3, just(0)), (6, integers(1, 50))] + ([near_max] if near_max[0] else [])
    return weighted(*branches)


@built_once
@st.composite
def generators(draw, features: frozenset[str]) -> WatermarkGenerator:
    """A generator of a type, an emission and an idleness the features allow."""
    kinds = [k for k in GENERATORS if k.feature.name in features]
    emissions = [p for p, name in ((False, "watermark.periodic"), (True, "watermark.punctuated")) if name in features]
    if not kinds or not emissions:
        raise InvalidArgument("generator mode needs a watermark.* generator and an emission feature")
    kind = draw(choice_of(*kinds))
    options = {"punctuated": draw(choice_of(*emissions)),
               "interval": draw(weighted((4, integers(1, 50)), (1, just(0)))),
               "idleness": draw(idleness_timeouts()) if "watermark.idleness" in features else None}
    if kind in (BoundedOutOfOrdernessWatermarks, BoundedOutOfOrdernessTimestampExtractor):
        options["bound"] = draw(bounds(features))
    if draw(one_in(INVALID_ONE_IN // 2)):  # twice as often as a rejected window: three parameters to reject
        options |= draw(rejected_parameters(options))
    return kind(**options)


@built_once
def idleness_timeouts() -> st.SearchStrategy[int | None]:
    """No idleness, a timeout of a few intervals, or one of 10^6 ms and more, where the `IdlenessTimer`'s
    nanoseconds (`Duration.toNanos()`, the clock's `relativeTimeNanos()`) leave no slack for a
    factor that is slightly off."""
    return weighted((2, st.none()), (3, integers(1, 60)), (1, integers(10**6, 2 * 10**6)))


@st.composite
def rejected_parameters(draw, options: dict) -> dict:
    """One or more of the parameters Flink checks, made invalid: a negative
    `pipeline.auto-watermark-interval`, a negative bound (the legacy extractor's constructor checks it
    when the job is built, `forBoundedOutOfOrderness`'s generator when the operator opens), or
    `withIdleness` of 0 or less: mostly all but the interval, now and then all of them or any of them.
    With several, the order of Flink's checks decides the message; the interval is checked first and
    would hide the others."""
    names = [name for name in ("interval", "bound", "idleness") if options.get(name) is not None]
    invalid = {"interval": integers(-50, -1), "bound": weighted((1, just(-1)), (1, integers(-5000, -2))),
               "idleness": weighted((1, just(0)), (1, integers(-60, -1)))}
    chosen = draw(weighted((3, just(set(names) - {"interval"} or set(names))), (1, just(set(names))),
                           (1, st.sets(st.sampled_from(names), min_size=1))))
    return {name: draw(invalid[name]) for name in names if name in chosen}


@built_once
def step_kinds(mode: Mode, channels: int, features: frozenset[str], mixed: bool = False) -> st.SearchStrategy[type]:
    """Records most often; clock steps in generator mode, watermarks and statuses in explicit mode; with
    `mixed`, the steps that reach the orders of emission and clock steps in explicit mode too."""
    several = channels > 1
    kinds = [(8, Emit), (3, Ahead)]
    kinds += [(4, Advance)] if mode == "generator" else [(4, Mark)]
    if mixed and mode == "generator":
        kinds += [(3, Due), (2, Overshoot)] + ([(3, Noise)] if "channel.status" in features else [])
    if mixed and mode == "explicit":
        kinds += [(2, Advance)] + ([(3, Flap), (2, Quiet)] if several and "channel.status" in features else [])
    kinds += [(1, Behind)] if several else []
    kinds += [(2, Echo)] if several and mode == "explicit" else []
    kinds += [(3, Status), (2, Comeback)] if several and mode == "explicit" and "channel.status" in features else []
    kinds += [(1, Comeback)] if several and mode == "generator" and "watermark.idleness" in features else []
    kinds += [(1, End)] if several and "channel.end" in features else []
    idles = "channel.status" in features if mode == "explicit" else "watermark.idleness" in features
    kinds += [(1, Retire)] if several and idles and "channel.end" in features else []
    return weighted(*((w, just(k)) for w, k in kinds))


@built_once
@st.composite
def steps(draw, mode: Mode, channels: int, features: frozenset[str], mixed: bool = False) -> Step:
    kind = draw(step_kinds(mode, channels, features, mixed))
    channel = draw(integers(0, channels - 1))
    if kind is Emit:
        return Emit(channel, draw(weighted((3, just(0)), (3, integers(1, 20)), (1, integers(21, 200)))))
    if kind is Ahead:
        return Ahead(draw(integers(1, 50)))
    if kind is Advance:
        return Advance(draw(integers(0, 60)), draw(weighted((3, just(0)), (1, integers(2, 5)))))
    if kind is Behind:
        return Behind(channel, draw(integers(100, 500)))
    if kind is Mark:
        return Mark(channel, draw(weighted((2, just(0)), (2, integers(1, 30)))))
    if kind is Echo:
        return Echo(channel, draw(integers(0, channels - 1)))
    if kind is Status:
        return Status(channel, draw(st.booleans()))
    if kind is Retire:
        return Retire(channel, draw(choice_of("emit", "finish")))
    if kind is Due:
        return Due(draw(weighted((2, just(0)), (2, just(1)), (1, integers(2, 120)))))
    if kind is Overshoot:
        return Overshoot(channel, draw(integers(1, 49)))
    if kind is Flap:
        return Flap(channel, draw(weighted((2, integers(1, 50)), (1, just(0)))),
                    draw(weighted((1, just(0)), (1, integers(1, 100)))))
    if kind is Quiet:
        return Quiet(channel)
    if kind is Noise:
        return Noise(channel, draw(weighted((3, just(True)), (1, just(False)))))
    if kind is Comeback:
        return Comeback(channel, draw(weighted((2, integers(1, 100)), (1, just(0)))),
                        draw(weighted((2, just("interval")), (1, just("just_past")), (1, just("at")))),
                        draw(weighted((1, just(1)), (1, integers(2, 100)))))
    return End(channel)


def play(steps_: list[Step], skews: list[int], generator: WatermarkGenerator | None, negative: bool) -> list[Event]:
    """The events of `steps_`: each channel's frontier is the stream's minus its skew; nothing follows
    a channel's end; processing time only moves forward."""
    interval = max(generator.interval, 0) if generator else 0  # a rejected negative one emits nothing
    idles = interval > 0 and generator is not None and (generator.idleness or 0) > 0
    frontier, now, ended, events = START, 0, set(), []
    due = interval  # the periodic timer `open()` registers at `now + interval`, the clock reading 0

    def others_move(channel: int, by: int) -> None:
        """Every other channel that has not ended moves `by` on: a watermark (explicit mode) or a record."""
        nonlocal frontier
        frontier += by
        for other in sorted(set(range(len(skews))) - ended - {channel}):
            ts = frontier - skews[other]
            events.append(Record("a", len(events) + 1, ts, other) if generator else Watermark(ts, other))

    def tick(by: int) -> None:
        """The clock moves `by` on; past the due time the periodic timer fires and the next is due an
        interval after the clock's reading (`TimestampsAndWatermarksOperator.onProcessingTime`)."""
        nonlocal now, due
        now += by
        events.append(ProcessingTime(now))
        if interval and now > due:
            due = now + interval

    def record(channel: int, lag: int) -> None:
        ts = frontier - skews[channel] - lag
        events.append(Record("a", len(events) + 1, ts if negative else max(0, ts), channel))

    def end(channel: int) -> None:
        ended.add(channel)
        events.append(EndOfChannel(channel))

    def fall_silent(channel: int, past: int, emit: bool = True) -> None:
        """`channel` hears nothing from an emit (its idleness timer starts) until `past` after its
        timeout: at an emit, or (not `emit`) at whatever time that is."""
        tick(interval + 1)
        others_move(channel, 1)
        tick(max(generator.idleness + past, interval + 1) if emit else generator.idleness + past)

    for step in steps_:
        channel = getattr(step, "channel", None)
        if channel in ended:
            continue
        match step:
            case Comeback(_, jump, _, then) if generator is None:
                events.append(WatermarkStatus(channel, True))
                others_move(channel, jump)
                events.append(WatermarkStatus(channel, False))
                others_move(channel, then)
            case Comeback(_, jump, edge) if idles:
                others_move(channel, jump)
                fall_silent(channel, {"interval": interval + 1, "just_past": 1, "at": 0}[edge])  # idle once past it
                record(channel, jump)
                tick(interval + 1)  # active again, behind the last output
                others_move(channel, 1)
                tick(interval + 1)
            case Comeback(_, jump, _):
                record(channel, jump)
            case Ahead(by):
                frontier += by
            case Advance(by, intervals):
                tick(by + intervals * interval)
            case Due(past) if interval:
                tick(due + past - now)
            case Overshoot(_, past) if interval > 1:
                past = min(past, interval - 1)
                tick(due + past - now)
                frontier += 1
                record(channel, 0)
                tick(interval - past + 1)
            case Due() | Overshoot():  # no periodic emission (interval 0)
                tick(1)
            case Emit(_, lag) | Behind(_, lag):
                record(channel, lag)
            case Flap(_, jump, lag):
                events.append(WatermarkStatus(channel, True))
                others_move(channel, jump)
                events.append(WatermarkStatus(channel, False))
                events.append(Watermark(frontier - skews[channel] - lag, channel))
                events.append(WatermarkStatus(channel, True))
                others_move(channel, 1)
            case Quiet():
                events.append(WatermarkStatus(channel, True))
                others_move(channel, 1)
                events.append(WatermarkStatus(channel, False))
                order = sorted(set(range(len(skews))) - ended - {channel}, key=lambda c: skews[c]) + [channel]
                events += [WatermarkStatus(c, True) for c in order] + [WatermarkStatus(c, False) for c in order]
            case Noise(_, idle):
                events.append(WatermarkStatus(channel, idle))
            case Mark(_, lag):
                events.append(Watermark(frontier - skews[channel] - lag, channel))
            case Echo(_, source):
                heard = [e.timestamp for e in events if isinstance(e, Watermark) and e.channel == source]
                if heard:
                    events.append(Watermark(heard[-1], channel))
            case Status(_, idle):
                events.append(WatermarkStatus(channel, idle))
            case Retire() if generator is None:
                events.append(WatermarkStatus(channel, True))
                end(channel)
            case Retire(_, judged_by) if idles:
                fall_silent(channel, 1, judged_by == "emit")
                end(channel)
            case End() | Retire():  # a generator without idleness: the channel just ends
                end(channel)
    return events


@built_once
def windows(features: frozenset[str]) -> st.SearchStrategy:
    """A small event-time window of a kind the features allow."""
    options = []
    if "assigner.tumbling" in features:
        options.append(st.sampled_from([1, 5, 10, 100]).map(tumbling))
    if "assigner.sliding" in features:
        options.append(st.sampled_from([5, 10, 50]).map(lambda slide: sliding(2 * slide, slide)))
    if "assigner.cumulative" in features:
        options.append(st.sampled_from([5, 10]).map(lambda step: cumulative(step, 3 * step)))
    if "assigner.session" in features:
        options.append(st.sampled_from([5, 30]).map(session))
    if not options:
        raise InvalidArgument("generated_watermark_cases needs a tumbling, sliding, cumulative or session assigner")
    return st.one_of(options)


#: The assigners a mixed case leaves out: the global and count windows know no event time, and dynamic
#: sessions take their gaps from the records' values, which the watermark streams do not draw.
UNMIXED_ASSIGNERS = frozenset({"assigner.global", "assigner.count", "assigner.dynamic_session"})


def mixed_specs(features: frozenset[str]) -> st.SearchStrategy[Case]:
    """A whole window specification (`strategies.specs.window_specs`) on a time window: any trigger,
    evictor, allowed lateness and side output the features allow, event or processing time."""
    return window_specs(features - UNMIXED_ASSIGNERS)


@built_once
@st.composite
def arrival_triggers(draw, features: frozenset[str]):
    """A `CountTrigger` of 1 to 3, purging now and then: it fires while the record is processed, before the
    generator sees it (`TimestampsAndWatermarksOperator.processElement`), so its firings carry the
    watermark from before a punctuated one."""
    trigger = CountTrigger(draw(integers(1, 3)))
    return PurgingTrigger(trigger) if "trigger.purging" in features and draw(st.booleans()) else trigger


def report_mix(case: Case, drawn: list[Step]) -> None:
    """Label what a mixed case puts beside the watermarks, and the orders its steps reach."""
    trigger = case.trigger
    while trigger is not None:
        event(f"watermarks mixed: {trigger.tag} trigger")
        trigger = getattr(trigger, "inner", None)
    if case.evictor is not None:
        event(f"watermarks mixed: {case.evictor.tag} evictor")
    if case.allowed_lateness:
        event("watermarks mixed: allowed lateness" + (" and side output" if case.late_side_output else ""))
    if case.time == "processing":
        event("watermarks mixed: processing-time window")
    if case.window.tag == "session":
        event("watermarks mixed: session windows")
    names = {Due: "the clock at or just past a due time", Overshoot: "an overshoot, a record, a short step",
             Quiet: f"every channel idle, the last one back below the output, among {case.channels}",
             Flap: f"a channel idle, active, idle among {case.channels}", Noise: "watermark_status beside a generator"}
    for kind in {type(step) for step in drawn} & set(names):
        event(f"watermarks order: {names[kind]}")


def modes(features: frozenset[str]) -> list[Mode]:
    found: list[Mode] = []
    if any(k.feature.name in features for k in GENERATORS):
        found.append("generator")
    if "channels" in features:
        found.append("explicit")
    return found


def report(case: Case) -> None:
    """Label the case's families with `hypothesis.event()`."""
    generator, events = case.watermark_generator, case.events
    if generator is None:
        event("watermarks: explicit, on several channels" if case.channels > 1 else "watermarks: explicit")
    else:
        event(f"watermarks: generator {generator.tag}")
        event("watermarks: punctuated" if generator.punctuated
              else f"watermarks: periodic{', interval 0' if generator.interval == 0 else ''}")
        if generator.idleness is not None:
            event("watermarks: with idleness")
        bound = getattr(generator, "bound", None)
        if bound == 0:
            event("watermarks: bound 0")
        elif bound is not None and bound > LONG_MAX // 2:
            event("watermarks: bound near Long.MAX_VALUE")
        times = [e.time for e in events if isinstance(e, ProcessingTime)]
        steps_ = zip([0, *times], times, strict=False)
        if generator.interval and any(b - a >= 2 * generator.interval for a, b in steps_):
            event("watermarks: clock jumps across several intervals")
    if any(isinstance(e, WatermarkStatus) for e in events):
        event("watermarks: watermark_status events")
    if any(isinstance(e, EndOfChannel) for e in events):
        event("watermarks: a channel ends early")
    if case.channels > 1:
        heard = {e.channel for e in events if isinstance(e, Record | Watermark)}
        if len(heard) < case.channels:
            event("watermarks: a channel falls silent")


@built_once
def step_lists(mode: Mode, channels: int, features: frozenset[str], mixed: bool, max_steps: int) -> st.SearchStrategy:
    """Up to `max_steps` steps."""
    return st.lists(steps(mode, channels, features, mixed), max_size=max_steps)


@built_once
@st.composite
def generated_watermark_cases(draw, features=None, *, mode: Mode | None = None, channels: int | None = None,
                              max_steps: int = MAX_STEPS, mixed: bool = False) -> Case:
    """A watermark case that fits `features`; `mode` and `channels` fix what is otherwise drawn; with
    `mixed`, a whole window specification and the steps that reach the orders of emission (module
    docstring), and three or more channels more often than two in explicit mode.

    Shrinks towards one channel, the first generator type with periodic emission, no idleness and
    bound 0, no skew, and a short stream (any step can be deleted; records shrink to no disorder)."""
    features = supported(features)
    allowed = modes(features)
    if mode is not None:
        if mode not in allowed:
            raise InvalidArgument(f"mode {mode!r} needs features the implementation does not declare")
        allowed = [mode]
    if not allowed:
        raise InvalidArgument("generated_watermark_cases needs a watermark.* generator or 'channels'")
    chosen: Mode = draw(choice_of(*allowed))
    most = 4 if "channels" in features else 1
    fewest = 2 if chosen == "explicit" else 1
    if channels is not None:
        count = channels
    elif mixed and chosen == "explicit" and most > 2:
        count = draw(weighted((1, just(2)), (2, integers(3, most))))
    else:
        count = draw(integers(fewest, most))
    generator = draw(generators(features)) if chosen == "generator" else None
    skews = [0] + [draw(weighted((1, just(0)), (2, integers(1, 100)))) for _ in range(count - 1)]
    drawn = draw(step_lists(chosen, count, features, mixed, max_steps))
    events = play(drawn, skews, generator, "negative_timestamps" in features)
    if mixed:
        spec = draw(mixed_specs(features))
        if generator is not None and "trigger.count" in features and draw(one_in(3)):
            spec = replace(spec, trigger=draw(arrival_triggers(features)))
    else:
        spec = Case(window=draw(windows(features)),
                    late_side_output="late_side_output" in features and draw(st.booleans()))
    case = within_long_range(replace(spec, events=tuple(events), channels=count, watermark_generator=generator,
                                     end_of_input="unbounded_input" not in features or not draw(one_in(4))), features)
    if "unbounded_input" not in features and not end_reaches_the_operator(case):
        reject()  # every channel ends idle: the window operator sees no end, an input without end (rarely drawn)
    assert required_features(case) <= features, f"drawn a case beyond the features: {case}"
    if any(isinstance(step, Comeback) for step in drawn):
        event("watermarks: a channel comes back behind the others")
    report(case)
    if mixed:
        report_mix(case, drawn)
    return case

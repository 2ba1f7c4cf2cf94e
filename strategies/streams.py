"""Input streams that look like real out-of-order data and hit the window edges on purpose.

A stream is drawn structure first: its `Shape` (which keys, how much disorder, how many steps, the
first record value, whether the watermark may jump far or to `Long.MAX_VALUE`), then a list of
*steps*, then where its event-time clock starts. Each step is a small frozen dataclass that says
*what kind* of thing happens relative to the stream's running state (the event-time clock, the last
watermark, the processing-time clock, each key's last timestamp), not absolute times: `play` turns it
into events. Deleting a step while shrinking therefore keeps the rest meaningful, and a failing case
shrinks to a few events.

Records:

- `NearClock`: the clock advances a little and a record arrives at most `disorder` behind it;
- `Straggler`: a record a little older than its key's last one (for sessions: one that may merge
  into a session the watermark has not closed, though its own window is late, or bridge two);
- `SwappedPair`: two records of a key, the later one first (for sessions: two sessions, then
  possibly the record that bridges them);
- `AtEdge`: a record at a window's start, `end - 1` or `end` (or, for sessions, at `t + gap - 1`,
  `t + gap`, `t + gap + 1`, which merge or just fail to merge), or, with a time evictor, exactly at
  (or one past) its cutoff `max(ts) - size`;
- `LateBurst`: a few records at or behind the last watermark, or around `watermark - lateness`;
- `Burst`: a few records of a key close together, so that windows hold several elements (what count
  triggers, evictors and purging act on);
- `Bridge`: records of a key at two times just more than a window (a gap) apart, then one between
  them (for sessions: two sessions, then the record that merges them into one);
- `AtCleanup`: a watermark exactly at (or one either side of) the cleanup time `maxTimestamp +
  lateness` of the window of a record a window behind its key's latest, then that record (for
  sessions: a record whose own window is late but which may merge into its key's live session).

Watermarks and clocks:

- `Periodic`: bounded out-of-orderness, `clock - lag`, never lower than the last one;
- `AtMaxTimestamp`: exactly at a window's `maxTimestamp` or at its cleanup time, or one either side;
- `Repeated`, `Lower`: watermarks that must be ignored;
- `Jump`: the clock and the watermark jump several windows ahead (with `Shape.far_jumps`, up to a
  thousand);
- `EndOfTime`: `Watermark(Long.MAX_VALUE)` in the middle of a case (with `Shape.end_of_time`): every
  window fires and is cleaned up, and what follows is late;
- `ProcessingAdvance`: processing time advances (never back), sometimes exactly to a processing-time
  window's `maxTimestamp` or just past it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from hypothesis import strategies as st

from strategies.features import supported
from strategies.specs import fires_until_wrap, processing_timeouts, time_unit
from strategies.weights import built_once, choice_of, integers, one_in, weighted
from window_contract.case import (
    FIRE_DELAY,
    MERGING_ASSIGNERS,
    Case,
    Count,
    Cumulative,
    DeltaEvictor,
    DeltaTrigger,
    DynamicSession,
    Event,
    Global,
    ProcessingTime,
    Record,
    Session,
    Sliding,
    Tumbling,
    Watermark,
)
from window_contract.facts import EXTREME, LONG_MAX, LONG_MIN
from window_contract.features import required_features

#: The keys of most streams, and of streams with many keys.
KEYS = ("a", "b", "c", "d", "e", "f", "g", "h")

#: Keys that differ in a way a careless key column might not see: case, a trailing space, composed
#: and decomposed accents (NFC vs NFD of "é"), an embedded NUL; and an emoji outside the BMP.
LOOK_ALIKE_KEYS = (("a", "A", "a "), ("\u00e9", unicodedata.normalize("NFD", "\u00e9")), ("a", "a\x00", "\U0001f600"))

#: First record values beyond 2^53, where a value read as a double loses its last digits, and at
#: the ends of the `long` range.
LARGE_FIRST_VALUES = (2**53 - 1, LONG_MAX - 1000, LONG_MIN)

#: A watermark or edge exactly on its target, or one either side.
ONE_EITHER_SIDE = st.sampled_from([0, -1, 1])

#: Times stay within +-NORMAL_RANGE unless a stream is drawn in a band of the `long` range.
NORMAL_RANGE = 2**40

#: How many steps the usual stream has at most, and how long a long stream is.
MAX_STEPS = 14
LONG_STEPS = (48, 60)


@dataclass(frozen=True)
class Frame:
    """Where a stream's times may lie, and where its event-time clock starts."""

    lowest: int
    highest: int
    origin: st.SearchStrategy[int]

    def clamp(self, t: int) -> int:
        return min(self.highest, max(self.lowest, t))


def _near_zero(unit: int, negative: bool) -> st.SearchStrategy[int]:
    # Mostly below 0 when negative times are supported: Java's truncating `%` differs there.
    return integers(-5 * unit, 2 * unit) if negative else integers(0, 3 * unit)


@built_once
def normal_frame(unit: int, negative: bool) -> Frame:
    """Times near 0: from `-NORMAL_RANGE` if negative timestamps are supported, else from 0."""
    return Frame(-NORMAL_RANGE if negative else 0, NORMAL_RANGE, _near_zero(unit, negative))


@built_once
def band_frame(unit: int, negative: bool) -> Frame:
    """Times anywhere below `2^62` in magnitude (the `extreme_values` threshold), the clock starting
    just inside `+-2^62` or near 0: where an implementation that switches its arithmetic at that
    threshold (as `spark_impl` switches pipelines) meets windows that wrap around `Long.MIN_VALUE`."""
    top = EXTREME - 1
    near_top = st.integers(max(0, top - 4 * unit), top)
    near_bottom = st.integers(-top, min(-1, -top + 4 * unit))
    origins = [near_top, near_bottom] if negative else [near_top]
    return Frame(-top if negative else 0, top, st.one_of(*origins, _near_zero(unit, negative)))


@built_once
def long_range_frame(unit: int, negative: bool) -> Frame:
    """Times anywhere in Java's `long` range, the clock starting near `Long.MAX_VALUE` (or, with
    negative timestamps, near `Long.MIN_VALUE`)."""
    near_max = st.integers(max(0, LONG_MAX - 4 * unit), LONG_MAX)
    near_min = st.integers(LONG_MIN + 1, min(-1, LONG_MIN + 4 * unit))
    origins = st.one_of(near_max, near_min) if negative else near_max
    return Frame(LONG_MIN + 1 if negative else 0, LONG_MAX, origins)


def window_edges(spec: Case, t: int) -> list[int]:
    """Timestamps on the edges of the windows near `t`: start, `end - 1`, `end`, and the previous
    window's `end - 1`. Floor alignment (FLINK-26334) in Python integers: only used to aim."""
    w = spec.window
    if isinstance(w, Tumbling) and w.size > 0:
        start = t - (t - w.offset) % w.size
        return [start, start + w.size - 1, start + w.size, start - 1]
    if isinstance(w, Sliding) and w.slide > 0 and w.size > 0:
        start = t - (t - w.offset) % w.slide
        earlier = start - w.slide
        return [start, start + w.size - 1, start + w.size, earlier + w.size - 1, earlier + w.size]
    if isinstance(w, Cumulative) and w.step > 0 and w.size > 0:
        # The step's window, then its period's last and first: each end, its end - 1, and the period's start.
        start, period = t - (t - w.offset) % w.step, t - (t - w.offset) % w.size
        return [start, start + w.step - 1, start + w.step, period + w.size - 1, period + w.size,
                period + w.step - 1, period]
    if isinstance(w, Session) and w.gap > 0:
        # [t, t + gap) touches [t + gap, ...) and [t - gap, t): adjacent sessions merge; one further
        # away they do not.
        return [t, t + w.gap - 1, t + w.gap, t + w.gap + 1, t - w.gap, t - w.gap - 1]
    return [t]


def window_ends(spec: Case, t: int) -> list[int]:
    """The `maxTimestamp` (`end - 1`) of the windows near `t`."""
    w = spec.window
    if isinstance(w, Session) and w.gap > 0:
        return [t + w.gap - 1, t - 1]
    edges = window_edges(spec, t)
    return edges[1::2] if len(edges) > 1 else edges


# --- the structure of a stream --------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """What is drawn before any step: the keys, the disorder (how far behind the clock a record and
    the watermark may lag), the time unit, the value of the first record, the number of steps, and
    which far-reaching watermark steps the stream may take."""

    keys: tuple[str, ...]
    disorder: int
    unit: int
    first_value: int
    min_steps: int
    max_steps: int
    processing_weight: int
    merging: bool
    far_jumps: bool
    end_of_time: bool
    #: The positive timeouts of the spec's `ProcessingTimeoutTrigger`s, which processing time advances by.
    timeouts: tuple[int, ...] = ()

    def key(self) -> st.SearchStrategy[int]:
        """The index of a key in `keys` (records of a key are compared by index, not by text)."""
        return integers(0, len(self.keys) - 1)


#: One to three plain keys.
PLAIN_KEY_SETS = st.integers(1, 3).map(lambda n: KEYS[:n])

#: One to three plain keys mostly; sometimes four to eight, sometimes keys that look alike.
KEY_SETS = weighted(
    (13, PLAIN_KEY_SETS),
    (1, st.integers(4, len(KEYS)).map(lambda n: KEYS[:n])),
    (2, st.sampled_from(LOOK_ALIKE_KEYS)),
)

#: The first record's value: 1 mostly, sometimes beyond 2^53 or at an end of the `long` range.
FIRST_VALUES = weighted((15, st.just(1)), (1, choice_of(*LARGE_FIRST_VALUES)))


@built_once
def gap_first_values(unit: int) -> st.SearchStrategy[int]:
    """The first record's value where it is the record's session gap (`withDynamicGap(value)`; values
    then count up by one): within the time unit mostly, now and then 0 or -1 (the job fails at the first
    record, Flink's `0 < gap`), or a few below `Long.MAX_VALUE` (`ts + gap` wraps, then the value wraps
    to `Long.MIN_VALUE` and the job fails after a few records)."""
    return weighted((10, integers(1, unit)), (2, integers(-1, 0)), (1, integers(LONG_MAX - 2, LONG_MAX)))


@built_once
@st.composite
def shapes(draw, spec: Case, *, max_steps: int, families: bool = True) -> Shape:
    """The structure of a stream for `spec`; with `families`, each rare family once in ten to forty
    streams."""
    unit = time_unit(spec.window)
    keys = draw(KEY_SETS if families else PLAIN_KEY_SETS, label="keys")
    # Lagging watermarks: records and the watermark trail the clock by many windows.
    disorder = draw(weighted((15, integers(0, 2 * unit)), (int(families), integers(10 * unit, 50 * unit))))
    first_value = draw(FIRST_VALUES) if families else 1
    if families and {DeltaTrigger.feature.name, DeltaEvictor.feature.name} & required_features(spec):
        # A delta is computed in doubles, which beyond 2^53 lose a value's last digits: half the time there.
        first_value = draw(weighted((1, st.just(1)), (1, choice_of(*LARGE_FIRST_VALUES))))
    if isinstance(spec.window, DynamicSession):
        first_value = draw(gap_first_values(unit))
    long = families and draw(one_in(40), label="long stream")
    min_steps, most = LONG_STEPS if long else (1, max_steps)
    return Shape(
        keys=keys, disorder=disorder, unit=unit, first_value=first_value, min_steps=min_steps,
        max_steps=most, processing_weight=3 if {"time.processing", FIRE_DELAY.name} & required_features(spec) else 1,
        merging=isinstance(spec.window, MERGING_ASSIGNERS),
        # A continuous event-time trigger on the global window fires once for every interval the
        # watermark passes: a jump of a thousand windows costs thousands of firings, and the end of
        # event time firings without end.
        far_jumps=families and draw(one_in(16)) and not fires_until_wrap(spec),
        end_of_time=families and draw(one_in(10)) and not fires_until_wrap(spec),
        timeouts=processing_timeouts(spec),
    )


# --- the running state ------------------------------------------------------------------------


class Stream:
    """The state steps are played against, and the events they produced."""

    def __init__(self, spec: Case, shape: Shape, frame: Frame, origin: int) -> None:
        self.spec, self.shape, self.frame = spec, shape, frame
        self.unit = shape.unit
        # Only event-time windows are ever late: elsewhere a watermark aimed at a cleanup time
        # would only jump far (and fire a continuous trigger on the global window per interval).
        can_be_late = spec.time == "event" and not isinstance(spec.window, Global | Count)
        self.lateness = spec.allowed_lateness if can_be_late else 0
        self.clock = origin
        self.last_watermark: int | None = None
        self.now = 0  # processing time starts at 0
        self.events: list[Event] = []
        self.last_ts: dict[int, int] = {}  # by key index
        self.next_value = shape.first_value

    def record(self, key: int, ts: int) -> None:
        self.last_ts[key] = ts = self.frame.clamp(ts)
        self.events.append(Record(self.shape.keys[key], self.next_value, ts))
        # Wraps within the `long` range, so a stream that starts at its top stays valid.
        self.next_value = self.next_value + 1 if self.next_value < LONG_MAX else LONG_MIN

    def watermark(self, t: int) -> None:
        t = self.frame.clamp(t)
        self.last_watermark = t
        self.events.append(Watermark(t))

    def advance(self, by: int) -> None:
        self.clock = self.frame.clamp(self.clock + by)

    def key_time(self, key: int) -> int:
        """The key's last timestamp, or the clock before its first record."""
        return self.last_ts.get(key, self.clock)

    def evictor_cutoff(self, key: int) -> int | None:
        """`max(ts) - size` of a time evictor over the key's records so far (`None`: no time evictor)."""
        size = getattr(self.spec.evictor, "size", None)
        if size is None or key not in self.last_ts:
            return None
        key_name = self.shape.keys[key]
        return max(e.ts for e in self.events if isinstance(e, Record) and e.key == key_name) - size

    def below_watermark(self) -> int:
        return self.last_watermark if self.last_watermark is not None else self.clock


# --- record steps -----------------------------------------------------------------------------


@dataclass(frozen=True)
class NearClock:
    """The clock advances by `advance` and a record arrives `lag` behind it."""

    key: int
    advance: int
    lag: int

    @staticmethod
    def draw(draw, shape: Shape) -> NearClock:
        return NearClock(draw(shape.key()), draw(integers(0, 2 * shape.unit)), draw(integers(0, shape.disorder)))

    def play(self, s: Stream) -> None:
        s.advance(self.advance)
        s.record(self.key, s.clock - self.lag)


@dataclass(frozen=True)
class Straggler:
    """A record `back` older than its key's last one."""

    key: int
    back: int

    @staticmethod
    def draw(draw, shape: Shape) -> Straggler:
        return Straggler(draw(shape.key()), draw(integers(1, 2 * shape.unit)))

    def play(self, s: Stream) -> None:
        s.record(self.key, s.key_time(self.key) - self.back)


@dataclass(frozen=True)
class SwappedPair:
    """Two records of a key, `ahead` of its last one and `back` before that, the later one first."""

    key: int
    ahead: int
    back: int

    @staticmethod
    def draw(draw, shape: Shape) -> SwappedPair:
        # About a window (a gap) apart: for sessions, two sessions and then often the bridge.
        unit = shape.unit
        return SwappedPair(draw(shape.key()), draw(integers(max(1, unit - 1), 2 * unit)),
                           draw(integers(1, unit + 1)))

    def play(self, s: Stream) -> None:
        later = s.key_time(self.key) + self.ahead
        s.clock = s.frame.clamp(max(s.clock, later))
        s.record(self.key, later)
        s.record(self.key, later - self.back)


@dataclass(frozen=True)
class AtEdge:
    """A record on edge `edge` of `window_edges` near the clock `windows_back` windows ago (sessions:
    near the key's last record); with a time evictor, edge 5 is its cutoff (`windows_back` odd: one
    past it)."""

    key: int
    edge: int
    windows_back: int

    @staticmethod
    def draw(draw, shape: Shape) -> AtEdge:
        return AtEdge(draw(shape.key()), draw(integers(0, 5)), draw(integers(0, 2)))

    def play(self, s: Stream) -> None:
        cutoff = s.evictor_cutoff(self.key)
        if cutoff is not None and self.edge == 5:
            # TimeEvictor keeps `ts > max(ts) - size`: the cutoff itself goes, one past it stays.
            edges = [cutoff + self.windows_back % 2]
        elif isinstance(s.spec.window, Session):
            # Relative to the key's own last record: sessions merge per key.
            edges = window_edges(s.spec, s.key_time(self.key))
        else:
            edges = window_edges(s.spec, s.clock - self.windows_back * s.unit)
        s.record(self.key, edges[self.edge % len(edges)])


@dataclass(frozen=True)
class LateBurst:
    """`count` records of consecutive keys, `depth` and more behind the last watermark (or, with
    `around_lateness`, around `watermark - lateness`, the element's lateness edge)."""

    key: int
    count: int
    depth: int
    around_lateness: bool

    @staticmethod
    def draw(draw, shape: Shape) -> LateBurst:
        return LateBurst(draw(shape.key()), draw(integers(1, 3)), draw(integers(0, 2 * shape.unit)),
                         draw(st.booleans()))

    def play(self, s: Stream) -> None:
        top = s.below_watermark()
        if self.around_lateness and 0 < s.lateness <= top - s.frame.lowest:
            # ts + allowedLateness <= watermark is the element's lateness test: aim at its edge.
            top = top - s.lateness + s.unit
        for i in range(self.count):
            s.record((self.key + i) % len(s.shape.keys), top - self.depth - i)


@dataclass(frozen=True)
class Burst:
    """`count` records of a key within `spread` before the clock."""

    key: int
    count: int
    spread: int

    @staticmethod
    def draw(draw, shape: Shape) -> Burst:
        return Burst(draw(shape.key()), draw(integers(2, 4)), draw(integers(0, shape.unit)))

    def play(self, s: Stream) -> None:
        for i in range(self.count):
            s.record(self.key, s.clock - (self.spread * i) // self.count)


@dataclass(frozen=True)
class Bridge:
    """Records of a key at two times more than a window (a gap) apart, `2 + more` of them, then one
    between them that touches both."""

    key: int
    advance: int
    apart: int
    between: int
    more: int

    @staticmethod
    def draw(draw, shape: Shape) -> Bridge:
        unit = shape.unit
        return Bridge(draw(shape.key()), draw(integers(0, unit)), draw(integers(1, unit)),
                      draw(integers(0, unit)), draw(integers(0, 3)))

    def play(self, s: Stream) -> None:
        first = s.key_time(self.key) + self.advance
        second = first + s.unit + self.apart  # windows [t, t + gap) that do not touch
        s.clock = s.frame.clamp(max(s.clock, second))
        # Each side holds one or more elements: merging adds up what the two sides held.
        for i in range(2 + self.more):
            s.record(self.key, (first, second)[i % 2])
        # Any time in [second - gap, first + gap] touches both sessions.
        s.record(self.key, min(first + s.unit, second - s.unit + self.between))


@dataclass(frozen=True)
class AtCleanup:
    """A watermark at the cleanup time of a window a window behind the key's last record (plus
    `delta`), then a record in that window (at its start or `maxTimestamp` for `edge` 0 and 1)."""

    key: int
    back: int
    edge: int
    delta: int

    @staticmethod
    def draw(draw, shape: Shape) -> AtCleanup:
        return AtCleanup(draw(shape.key()), draw(integers(0, shape.unit)), draw(integers(0, 2)),
                         draw(ONE_EITHER_SIDE))

    def play(self, s: Stream) -> None:
        ts = s.key_time(self.key) - s.unit + self.back
        if not isinstance(s.spec.window, Session) and self.edge < 2:
            edges = window_edges(s.spec, ts)
            ts = edges[self.edge % len(edges)]
        own_max_timestamp = window_ends(s.spec, ts)[0]
        s.watermark(max(s.below_watermark(), s.frame.clamp(own_max_timestamp + s.lateness) + self.delta))
        s.record(self.key, ts)


# --- watermark and clock steps ----------------------------------------------------------------


@dataclass(frozen=True)
class Periodic:
    """A watermark `lag` behind the clock; a periodic generator repeats its last watermark rather
    than going back."""

    lag: int

    @staticmethod
    def draw(draw, shape: Shape) -> Periodic:
        return Periodic(draw(integers(0, shape.disorder)))

    def play(self, s: Stream) -> None:
        s.watermark(max(s.clock - self.lag, s.below_watermark()))


@dataclass(frozen=True)
class AtMaxTimestamp:
    """A watermark at the `maxTimestamp` (with `plus_lateness`: the cleanup time) of a window
    `windows_back` windows behind, plus `delta`."""

    which: int
    windows_back: int
    plus_lateness: bool
    delta: int

    @staticmethod
    def draw(draw, shape: Shape) -> AtMaxTimestamp:
        return AtMaxTimestamp(draw(integers(0, 3)), draw(integers(0, 1)), draw(st.booleans()),
                              draw(ONE_EITHER_SIDE))

    def play(self, s: Stream) -> None:
        ends = window_ends(s.spec, max(s.clock, s.below_watermark()) - self.windows_back * s.unit)
        t = ends[self.which % len(ends)]
        if self.plus_lateness:
            t = s.frame.clamp(t + s.lateness)
        s.watermark(t + self.delta)


@dataclass(frozen=True)
class Repeated:
    """The last watermark again (ignored)."""

    @staticmethod
    def draw(draw, shape: Shape) -> Repeated:
        return Repeated()

    def play(self, s: Stream) -> None:
        s.watermark(s.below_watermark())


@dataclass(frozen=True)
class Lower:
    """A watermark `back` below the last one (ignored)."""

    back: int

    @staticmethod
    def draw(draw, shape: Shape) -> Lower:
        return Lower(draw(integers(1, shape.unit)))

    def play(self, s: Stream) -> None:
        s.watermark(s.below_watermark() - self.back)


@dataclass(frozen=True)
class Jump:
    """The clock jumps `windows` windows ahead and the watermark follows it."""

    windows: int

    @staticmethod
    def draw(draw, shape: Shape) -> Jump:
        far = shape.far_jumps and draw(st.booleans())
        return Jump(draw(integers(11, 1000) if far else integers(2, 10)))

    def play(self, s: Stream) -> None:
        s.advance(self.windows * s.unit)
        s.watermark(s.clock)


@dataclass(frozen=True)
class EndOfTime:
    """`Watermark(Long.MAX_VALUE)` before the input ends: every window fires and is cleaned up."""

    @staticmethod
    def draw(draw, shape: Shape) -> EndOfTime:
        return EndOfTime()

    def play(self, s: Stream) -> None:
        # Not clamped to the frame: Long.MAX_VALUE is the end of event time in every frame.
        s.last_watermark = LONG_MAX
        s.events.append(Watermark(LONG_MAX))


@dataclass(frozen=True)
class ProcessingAdvance:
    """Processing time advances by `advance` (with `edge`: to the `maxTimestamp` of the processing-time
    window there, plus `edge`); it never goes back. Under a `ProcessingTimeoutTrigger` one advance in
    three is half its timeout, the timeout or one more: two records half a timeout apart, then a
    clock just past the first one's timeout, tell a timer reset by the second record from one that
    was not."""

    advance: int
    edge: int | None

    @staticmethod
    def draw(draw, shape: Shape) -> ProcessingAdvance:
        return ProcessingAdvance(draw(processing_advances(shape.unit, shape.timeouts)), draw(choice_of(None, 0, 1)))

    def play(self, s: Stream) -> None:
        now = s.now + self.advance
        if self.edge is not None:
            now = max(s.now, min(window_ends(s.spec, now)) + self.edge)
        s.now = max(s.now, min(max(now, 0), s.frame.highest, LONG_MAX))
        s.events.append(ProcessingTime(s.now))


@built_once
def processing_advances(unit: int, timeouts: tuple[int, ...]) -> st.SearchStrategy[int]:
    """How far processing time advances: up to two units, and under timeouts a third of the time by half
    of one, one, or one more (`ProcessingAdvance`)."""
    advances = integers(0, 2 * unit)
    if not timeouts:
        return advances
    return weighted((2, advances), (1, choice_of(*sorted({a for t in timeouts for a in (t // 2, t, t + 1)}))))


Step = (NearClock | Straggler | SwappedPair | AtEdge | LateBurst | Periodic | AtMaxTimestamp | Repeated | Lower
        | Jump | Burst | Bridge | AtCleanup | EndOfTime | ProcessingAdvance)


@built_once
def step_kinds(merging: bool, processing_weight: int, end_of_time: bool) -> st.SearchStrategy[type[Step]]:
    """The kind of a step: records near the clock three times as often as any other kind, processing
    advances `processing_weight` times, `EndOfTime` (twice) only when the stream may end event time."""
    kinds = [NearClock, Straggler, SwappedPair, AtEdge, LateBurst, Periodic, AtMaxTimestamp, Repeated, Lower, Jump,
             Burst, Bridge, AtCleanup] + ([EndOfTime] * 2 if end_of_time else [])
    # Sessions live by merging: bridges and late elements next to a live session twice as often.
    merges = [Bridge, AtCleanup] if merging else []
    # Records first: sampled_from shrinks toward its first element.
    return st.sampled_from([NearClock] * 2 + kinds + merges + [ProcessingAdvance] * processing_weight)


@built_once
@st.composite
def steps(draw, shape: Shape) -> Step:
    """One step: its kind (structure), then its values, by the kind's own `draw`."""
    kind = draw(step_kinds(shape.merging, shape.processing_weight, shape.end_of_time))
    return kind.draw(draw, shape)


@built_once
def step_lists(shape: Shape, least: int) -> st.SearchStrategy[list[Step]]:
    """`least` to `shape.max_steps` steps."""
    return st.lists(steps(shape), min_size=least, max_size=shape.max_steps)


@built_once
@st.composite
def out_of_order_streams(draw, spec: Case, *, features=None, max_steps: int = MAX_STEPS,
                         frame: Frame | None = None, families: bool = True) -> tuple[Event, ...]:
    """The events of a stream for `spec`: several keys, bounded disorder, late bursts, watermarks on
    the edges, ignored watermarks, processing-time advances, and now and then many or look-alike
    keys, values beyond 2^53, a long stream, lagging or far-jumping watermarks or `Long.MAX_VALUE`.
    Negative times only when `features` includes `negative_timestamps`; times within `frame`
    (default: near 0); without `families`, none of the rare stream families.

    Shrinks towards fewer steps (any step can go), then towards one plain key, records near the
    clock, small lags and a clock starting near 0."""
    features = supported(features)
    shape = draw(shapes(spec, max_steps=max_steps, families=families))
    # A list drawn on its own is short (two or three past its least length on average): draw its
    # least length first, up to two thirds of the most, so streams average half the most steps.
    least = draw(integers(shape.min_steps, max(shape.min_steps, 2 * shape.max_steps // 3)), label="least steps")
    played = draw(step_lists(shape, least), label="steps")
    if frame is None:
        frame = normal_frame(shape.unit, "negative_timestamps" in features)
    stream = Stream(spec, shape, frame, draw(frame.origin, label="origin"))
    for step in played:
        step.play(stream)
    return tuple(stream.events)

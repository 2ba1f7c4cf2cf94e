"""Input streams that look like real out-of-order data and hit the window edges on purpose.

A stream is drawn as independent *steps* (structure first: how many keys, how much disorder, how
many steps; `st.lists` would average about five steps, too few records), which are then played
against a running state: the source's event-time clock, the last watermark and the processing-time
clock. Because each step says *what kind* of thing happens relative to that state (a record a little
behind the clock, a burst of late records, a watermark exactly at a window's `maxTimestamp` plus the
allowed lateness, ...) and not absolute times, deleting steps while shrinking keeps the rest
meaningful, and a failing case shrinks to a few events.

Steps:

- `record`: the clock advances a little and a record arrives at most `disorder` behind it;
- `straggler`: a record a little older than its key's last one (for sessions: one that may merge
  into a session the watermark has not closed, though its own window is late, or bridge two);
- `swapped pair`: two records of a key, the later one first (for sessions: two sessions, then
  possibly the record that bridges them);
- `edge record`: a record at a window's start, `end - 1` or `end` (or, for sessions, at
  `t + gap - 1`, `t + gap`, `t + gap + 1`, which merge or just fail to merge), or, with a time
  evictor, exactly at (or one past) its cutoff `max(ts) - size`;
- `late burst`: a few records at or behind the last watermark, or around `watermark - lateness`;
- `burst`: a few records of a key close together, so that windows hold several elements (what
  count triggers, evictors and purging act on);
- `bridge`: records of a key at two times just more than a window (a gap) apart, then one between
  them (for sessions: two sessions, then the record that merges them into one);
- `late edge`: a watermark exactly at (or one either side of) the cleanup time `maxTimestamp +
  lateness` of the window of a record a window behind its key's latest (often at that window's
  start or `end - 1`), then that record (for sessions: a record whose own window is late but
  which may merge into its key's live session);
- `watermark`: bounded out-of-orderness, `clock - lag` (sometimes lower than the last one);
- `edge watermark`: exactly at a window's `maxTimestamp`, at `maxTimestamp + lateness`, or one
  either side;
- `repeat watermark`, `lower watermark`: watermarks that must be ignored;
- `jump`: the clock and the watermark jump several windows ahead;
- `processing`: processing time advances (never back), sometimes exactly to a processing-time
  window's `maxTimestamp` or just past it.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from conformance.case import (
    Case,
    Event,
    ProcessingTime,
    Record,
    Session,
    Sliding,
    Tumbling,
    Watermark,
)
from conformance.facts import LONG_MAX, LONG_MIN
from conformance.features import required_features
from strategies.features import supported
from strategies.specs import time_unit

KEYS = ("a", "b", "c", "d")

#: Times stay within +-NORMAL_RANGE unless a stream is drawn at the ends of the `long` range.
NORMAL_RANGE = 2**40


@dataclass(frozen=True)
class Frame:
    """Where a stream's times may lie, and where its event-time clock starts."""

    lowest: int
    highest: int
    origin: st.SearchStrategy[int]

    def clamp(self, t: int) -> int:
        return min(self.highest, max(self.lowest, t))


def normal_frame(unit: int, negative: bool) -> Frame:
    """Times near 0: from `-NORMAL_RANGE` if negative timestamps are supported, else from 0."""
    lowest = -NORMAL_RANGE if negative else 0
    # Mostly below 0 when negative times are supported: Java's truncating `%` differs there.
    return Frame(lowest, NORMAL_RANGE, st.integers(-5 * unit, 2 * unit) if negative else st.integers(0, 3 * unit))


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


# --- steps ------------------------------------------------------------------------------------


def _steps(n_keys: int, unit: int, disorder: int, processing_weight: int,
           merging: bool) -> st.SearchStrategy[tuple]:
    key = st.integers(0, n_keys - 1)
    plain = [
        st.tuples(st.just("record"), key, st.integers(0, 2 * unit), st.integers(0, disorder)),
        st.tuples(st.just("straggler"), key, st.integers(1, 2 * unit)),
        # About a window (a gap) apart: for sessions, two sessions and then often the bridge.
        st.tuples(st.just("swapped pair"), key, st.integers(max(1, unit - 1), 2 * unit), st.integers(1, unit + 1)),
        st.tuples(st.just("edge record"), key, st.integers(0, 5), st.integers(0, 2)),
        st.tuples(st.just("late burst"), key, st.integers(1, 3), st.integers(0, 2 * unit), st.booleans()),
        st.tuples(st.just("watermark"), st.integers(0, disorder)),
        st.tuples(st.just("edge watermark"), st.integers(0, 3), st.integers(0, 1), st.booleans(),
                  st.sampled_from([0, -1, 1])),
        st.tuples(st.just("repeat watermark")),
        st.tuples(st.just("lower watermark"), st.integers(1, unit)),
        st.tuples(st.just("jump"), st.integers(2, 10)),
        st.tuples(st.just("burst"), key, st.integers(2, 4), st.integers(0, unit)),
        st.tuples(st.just("bridge"), key, st.integers(0, unit), st.integers(1, unit), st.integers(0, unit),
                  st.integers(0, 3)),
        st.tuples(st.just("late edge"), key, st.integers(0, unit), st.integers(0, 2), st.sampled_from([0, -1, 1])),
    ]
    processing = st.tuples(st.just("processing"), st.integers(0, 2 * unit), st.sampled_from([None, 0, 1]))
    # Sessions live by merging: bridges and late elements next to a live session twice as often.
    merges = plain[-2:] if merging else []
    # Records first: one_of shrinks toward its first branch.
    return st.one_of(plain[:1] * 3 + plain[1:] + merges + [processing] * processing_weight)


class _Player:
    """Plays steps against the stream's state and collects the events."""

    def __init__(self, spec: Case, frame: Frame, origin: int, keys: tuple[str, ...]) -> None:
        self.spec, self.frame, self.keys = spec, frame, keys
        self.unit = time_unit(spec.window)
        self.lateness = spec.allowed_lateness
        self.clock = origin
        self.last_watermark: int | None = None
        self.now = 0  # processing time starts at 0
        self.events: list[Event] = []
        self.last_ts: dict[int, int] = {}  # by key index

    def record(self, key: int, ts: int) -> None:
        values = sum(isinstance(e, Record) for e in self.events) + 1
        self.last_ts[key] = ts = self.frame.clamp(ts)
        self.events.append(Record(self.keys[key], values, ts))

    def watermark(self, t: int) -> None:
        t = self.frame.clamp(t)
        self.last_watermark = t
        self.events.append(Watermark(t))

    def evictor_cutoff(self, key: int) -> int | None:
        """`max(ts) - size` of a time evictor over the key's records so far (`None`: no time evictor)."""
        size = getattr(self.spec.evictor, "size", None)
        if size is None or key not in self.last_ts:
            return None
        newest = max(e.ts for e in self.events if isinstance(e, Record) and e.key == self.keys[key])
        return newest - size

    def below_watermark(self) -> int:
        return self.last_watermark if self.last_watermark is not None else self.clock

    def play(self, step: tuple) -> None:
        kind, *args = step
        clamp = self.frame.clamp
        if kind == "record":
            key, advance, lag = args
            self.clock = clamp(self.clock + advance)
            self.record(key, self.clock - lag)
        elif kind == "straggler":
            key, back = args
            self.record(key, self.last_ts.get(key, self.clock) - back)
        elif kind == "swapped pair":
            key, ahead, back = args
            later = self.last_ts.get(key, self.clock) + ahead
            self.clock = clamp(max(self.clock, later))
            self.record(key, later)
            self.record(key, later - back)
        elif kind == "edge record":
            key, which, back = args
            cutoff = self.evictor_cutoff(key)
            if cutoff is not None and which == 5:
                # TimeEvictor keeps `ts > max(ts) - size`: the cutoff itself goes, one past it stays.
                edges = [cutoff + back % 2]
            elif isinstance(self.spec.window, Session):
                # Relative to the key's own last record: sessions merge per key.
                edges = window_edges(self.spec, self.last_ts.get(key, self.clock))
            else:
                edges = window_edges(self.spec, self.clock - back * self.unit)
            self.record(key, edges[which % len(edges)])
        elif kind == "late burst":
            key, count, depth, around_lateness = args
            top = self.below_watermark()
            if around_lateness and 0 < self.lateness <= top - self.frame.lowest:
                # ts + allowedLateness <= watermark is the element's lateness test: aim at its edge.
                top = top - self.lateness + self.unit
            for i in range(count):
                self.record((key + i) % len(self.keys), top - depth - i)
        elif kind == "burst":
            key, count, spread = args
            for i in range(count):
                self.record(key, self.clock - (spread * i) // count)
        elif kind == "bridge":
            key, advance, apart, between, more = args
            first = self.last_ts.get(key, self.clock) + advance
            second = first + self.unit + apart  # windows [t, t + gap) that do not touch
            self.clock = clamp(max(self.clock, second))
            # Each side holds one or more elements: merging adds up what the two sides held.
            for i in range(2 + more):
                self.record(key, (first, second)[i % 2])
            # Any time in [second - gap, first + gap] touches both sessions.
            self.record(key, min(first + self.unit, second - self.unit + between))
        elif kind == "late edge":
            key, back, which, delta = args
            ts = self.last_ts.get(key, self.clock) - self.unit + back
            if not isinstance(self.spec.window, Session) and which < 2:
                edges = window_edges(self.spec, ts)
                ts = edges[which % len(edges)]  # the window's start or maxTimestamp
            own_max_timestamp = window_ends(self.spec, ts)[0]
            self.watermark(max(self.below_watermark(), clamp(own_max_timestamp + self.lateness) + delta))
            self.record(key, ts)
        elif kind == "watermark":
            # A periodic watermark generator repeats its last watermark rather than going back.
            self.watermark(max(self.clock - args[0], self.below_watermark()))
        elif kind == "edge watermark":
            which, back, plus_lateness, delta = args
            ends = window_ends(self.spec, max(self.clock, self.below_watermark()) - back * self.unit)
            t = ends[which % len(ends)]
            if plus_lateness:
                t = clamp(t + self.lateness)
            self.watermark(t + delta)
        elif kind == "repeat watermark":
            self.watermark(self.below_watermark())
        elif kind == "lower watermark":
            self.watermark(self.below_watermark() - args[0])
        elif kind == "jump":
            self.clock = clamp(self.clock + args[0] * self.unit)
            self.watermark(self.clock)
        elif kind == "processing":
            advance, edge = args
            now = self.now + advance
            if edge is not None:
                now = max(self.now, min(window_ends(self.spec, now)) + edge)
            self.now = max(self.now, min(max(now, 0), self.frame.highest, LONG_MAX))
            self.events.append(ProcessingTime(self.now))


def _uses_processing_time(spec: Case) -> bool:
    return "time.processing" in required_features(spec)


@st.composite
def out_of_order_streams(draw, spec: Case, features=None, max_steps: int = 14,
                         frame: Frame | None = None) -> tuple[Event, ...]:
    """The events of a stream for `spec`: several keys, bounded disorder, late bursts, watermarks
    on the edges, ignored watermarks, processing-time advances. Negative times only when
    `features` includes `negative_timestamps`."""
    features = supported(features)
    unit = time_unit(spec.window)
    if frame is None:
        frame = normal_frame(unit, "negative_timestamps" in features)
    n_keys = draw(st.integers(1, 3))
    disorder = draw(st.integers(0, 2 * unit))
    step = _steps(n_keys, unit, disorder, 3 if _uses_processing_time(spec) else 1,
                  isinstance(spec.window, Session))
    steps = [draw(step) for _ in range(draw(st.integers(1, max_steps), label="steps"))]
    player = _Player(spec, frame, draw(frame.origin), KEYS[:n_keys])
    for step in steps:
        player.play(step)
    return tuple(player.events)


def long_range_frame(unit: int, negative: bool) -> Frame:
    """Times anywhere in Java's `long` range, the clock starting near `Long.MAX_VALUE` (or, with
    negative timestamps, near `Long.MIN_VALUE`)."""
    near_max = st.integers(max(0, LONG_MAX - 4 * unit), LONG_MAX)
    near_min = st.integers(LONG_MIN + 1, min(-1, LONG_MIN + 4 * unit))
    origins = st.one_of(near_max, near_min) if negative else near_max
    return Frame(LONG_MIN + 1 if negative else 0, LONG_MAX, origins)

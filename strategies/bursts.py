"""Bursts of periodic timers: a continuous trigger with a small interval, and the clock or the watermark
jumping far ahead of its next fire time (issue 48).

`ContinuousEventTimeTrigger.of(1 ms)` (or `ContinuousProcessingTimeTrigger`) under a watermark (clock)
that jumps 100,000 ms fires 100,000 periodic timers in one advance, each registering the next. Under a
`PurgingTrigger` the first one fires the window's contents and the others find it empty: a burst that
emits nothing and ends where the next fire time passes the watermark (or the window's `maxTimestamp`),
which implementations step over in one move, and which once ran into the contract's old limit on
timers per advance. `burst_cases(features)` draws such cases: the global window or a tumbling or session
window long enough to hold the burst (a window it outlasts fires at its end and is cleaned up), one to
three keys, records between jumps of a few hundred to `MAX_BURST` intervals (landing on a fire time, or
between two), and small steps after them. A trigger that does not purge fires its contents at every
fire time, so its jumps stay short (`SHORT_JUMP` intervals): a burst of firings is as long as the
observation.

Only bursts that end: the fire times stay far from `Long.MAX_VALUE` (no end of input for event time,
whose `Watermark(Long.MAX_VALUE)` would run the chain there; the end of input fires no processing-time
timer), and the intervals are positive, so the real Flink runner fires every timer of them in a second
or two. The chains that never end are hand cases (`cases/timers/bursts.json`).

Shrinks towards one key, one record and one short jump of an event-time global window, with interval 1.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import event
from hypothesis import strategies as st

from strategies.features import supported
from strategies.weights import weighted
from window_contract.case import (
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Global,
    ProcessingTime,
    PurgingTrigger,
    Record,
    Session,
    Tumbling,
    Watermark,
    WindowSpec,
)

#: The most periodic timers one jump fires for one window: beyond the contract's old limit of 100,000 a
#: step, and within what the Flink runner (a few million timers a second) and PyFlink's Python operator
#: (about 70,000 a second) fire in a few seconds.
MAX_BURST = 150_000
#: The longest jump, in intervals, under a trigger that keeps its contents (one firing per interval).
SHORT_JUMP = 20
#: A window holds at least this many intervals, so that most bursts end on the watermark or the clock,
#: not at the window's end.
WINDOW_INTERVALS = 2 * MAX_BURST


def burst_domains(features: frozenset[str]) -> list[str]:
    """The clocks whose continuous trigger `features` allow: "event", "processing"."""
    domains = []
    if {ContinuousEventTimeTrigger.feature.name, "unbounded_input"} <= features:
        domains.append("event")
    if {ContinuousProcessingTimeTrigger.feature.name, "time.processing"} <= features:
        domains.append("processing")
    return domains


def can_burst(features) -> bool:
    """Whether `features` allow a burst case: a continuous trigger and an assigner to put it on."""
    features = supported(features)
    return bool(burst_domains(features)) and bool(_assigners(features))


def _assigners(features: frozenset[str]) -> list[str]:
    return [name for name in ("global", "tumbling", "session") if f"assigner.{name}" in features]


@st.composite
def windows(draw, features: frozenset[str], time: str, interval: int) -> WindowSpec:
    """The global window, or a tumbling or session window `WINDOW_INTERVALS` intervals long or more, on `time`."""
    kind = draw(st.sampled_from(_assigners(features)))
    if kind == "global":
        return Global()
    length = interval * draw(st.integers(WINDOW_INTERVALS, 4 * WINDOW_INTERVALS))
    return Tumbling(length, time=time) if kind == "tumbling" else Session(length, time=time)


@st.composite
def jumps(draw, purging: bool, interval: int, max_burst: int) -> int:
    """How far the clock or the watermark moves: whole intervals and a remainder (0: onto a fire time)."""
    intervals = weighted((1, st.integers(1, SHORT_JUMP)), (3, st.integers(SHORT_JUMP, max_burst))) if purging \
        else st.integers(1, SHORT_JUMP)
    return draw(intervals) * interval + draw(st.integers(0, interval - 1))


@st.composite
def burst_cases(draw, features=None, *, max_burst: int = MAX_BURST) -> Case:
    """A continuous trigger (purging three times in four) with an interval of 1 to 10, on its own clock,
    and a stream of records and jumps of that clock of up to `max_burst` intervals (see the module
    docstring). Reports the burst with `hypothesis.event()`."""
    features = supported(features)
    time = draw(st.sampled_from(burst_domains(features)))
    interval = draw(st.integers(1, 10))
    continuous = (ContinuousEventTimeTrigger if time == "event" else ContinuousProcessingTimeTrigger)(interval)
    purging = "trigger.purging" in features and draw(weighted((3, st.just(True)), (1, st.just(False))))
    window = draw(windows(features, time, interval))
    keys = draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True))
    # Steps: a record of a key (its index) or a move of the clock (None), records first.
    plan = draw(st.lists(st.one_of(st.integers(0, len(keys) - 1), st.none()), min_size=1, max_size=8))
    now, value, events = 0, 0, []
    for step in [0, None, *plan]:
        if step is None:
            now += draw(jumps(purging, interval, max_burst))
            events.append(Watermark(now) if time == "event" else ProcessingTime(now))
        else:
            value += 1
            events.append(Record(keys[step], value, now + (1 if time == "event" else 0)))
    trigger = PurgingTrigger(continuous) if purging else continuous
    event(f"burst of periodic timers: {time} time, {'purging' if purging else 'keeping the contents'}")
    return replace(Case(window=window, trigger=trigger, events=tuple(events)),
                   end_of_input=time == "processing")


"""Window specifications: an assigner, a trigger, an evictor, the allowed lateness and the side output.

`window_specs(features)` draws a `Case` without events (the specification part of a case), mostly
valid and sometimes one Flink rejects (`invalid_spec`). Only the parts of the format whose features
are in `features` are drawn (generate to fit).

The kinds come from the contract's vocabulary (`window_contract.case.ASSIGNERS`, `TRIGGERS`,
`EVICTORS`): `ASSIGNER_PARAMETERS`, `TRIGGER_PARAMETERS` and `EVICTOR_PARAMETERS` map each kind to the
strategy of its parameters, and a kind the contract gains without a strategy here fails a test.

A `Scale` sets the magnitude of the parameters: `SMALL` (sizes of 1 to 10 and a few round ones, so
that streams hit window edges often), `WIDE` (any size up to 10^9), `BAND` (just inside `+-2^62`, the
`extreme_values` threshold, where `long` sums wrap without any value needing that feature) and
`EXTREME` (opt-in, up to `Long.MAX_VALUE`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import get_args

from hypothesis import strategies as st

from strategies.features import supported
from strategies.weights import built_once, choice_of, one_in, weighted
from window_contract.case import (
    ASSIGNERS,
    EVICTORS,
    FIRE_DELAY,
    MERGING_ASSIGNERS,
    AfterEndOfWindowTrigger,
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountEvictor,
    CountTrigger,
    Cumulative,
    DeltaEvictor,
    DeltaFunction,
    DeltaTrigger,
    DynamicSession,
    EventTimeTrigger,
    EvictorSpec,
    GapExtractor,
    Global,
    NeverTrigger,
    ProcessingTimeoutTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Session,
    Sliding,
    TimeEvictor,
    TriggerSpec,
    Tumbling,
    WindowSpec,
    innermost_trigger,
    nested_triggers,
)
from window_contract.facts import EXTREME, LONG_MAX, LONG_MIN, MAX_WINDOW_NUM

#: How often a drawn specification is valid: one in `INVALID_ONE_IN` is one Flink rejects.
INVALID_ONE_IN = 16

#: How deep wrapping triggers (`PurgingTrigger`, `ProcessingTimeoutTrigger`) nest: two wrappers at most.
PURGING_DEPTH = 2


def long_at_most(value: int) -> int:
    """`value`, saturated at `Long.MAX_VALUE` (huge windows times a few stay in the format's range)."""
    return min(value, LONG_MAX)


@built_once
def small_sizes() -> st.SearchStrategy[int]:
    """Window sizes, slides and gaps: mostly tiny (so timestamps land on edges), sometimes round."""
    return st.integers(1, 10) | st.sampled_from([15, 60, 1000])


@built_once
def quarter_to_twice(unit: int, ceiling: int) -> st.SearchStrategy[int]:
    """Continuous-trigger intervals of at least a quarter of the window (a window fires at most a few
    times per interval passed) and at most twice it (or `ceiling`)."""
    low = max(1, unit // 4)
    return st.integers(low, max(low, min(2 * unit, ceiling)))


@dataclass(frozen=True)
class Scale:
    """The magnitudes of a specification: `sizes` for sizes, slides and gaps, `intervals(unit)` for
    continuous triggers, and `ceiling`, which no window parameter exceeds (a sliding window's size a
    few slides long included). Continuous triggers are drawn only for windows of a unit up to
    `continuous_up_to`; `reaches_long_max`: the scale's times reach `Long.MAX_VALUE`."""

    name: str
    sizes: Callable[[], st.SearchStrategy[int]]
    ceiling: int
    intervals: Callable[[int], st.SearchStrategy[int]]
    continuous_up_to: int = LONG_MAX
    reaches_long_max: bool = False


SMALL = Scale("small", small_sizes, LONG_MAX, lambda unit: quarter_to_twice(unit, LONG_MAX))
WIDE = Scale("wide", lambda: st.integers(11, 10**9), LONG_MAX, lambda unit: quarter_to_twice(unit, LONG_MAX))
#: Parameters just inside `+-2^62`, and small windows beside them (the times are in the band then).
#: No continuous trigger on a window near 2^62: its next fire time `time + interval` wraps past
#: `Long.MAX_VALUE` and it fires for ever, or some 2^64 / interval times (the contract's `TOO_MANY_OUTPUTS`
#: after 100,000 firings, seconds in every implementation; over a purged window `NEVER_ENDS`, or an end
#: the Flink runner does not reach within its job's timeout); the opt-in extreme cases keep those.
BAND = Scale("near 2^62", lambda: st.integers(EXTREME - 2**20, EXTREME - 1) | st.just(EXTREME - 1) | small_sizes(),
             EXTREME - 1, lambda unit: quarter_to_twice(unit, EXTREME - 1), continuous_up_to=2**32)
#: Opt-in (`extreme_values`): huge parameters, and small ones near huge times. Huge intervals only:
#: a small one under a huge window would fire without end.
EXTREME_SCALE = Scale(
    "extreme",
    lambda: st.integers(EXTREME, LONG_MAX) | st.sampled_from([EXTREME, LONG_MAX - 1, LONG_MAX]) | small_sizes(),
    LONG_MAX, lambda unit: st.integers(EXTREME, LONG_MAX), reaches_long_max=True)


@dataclass(frozen=True)
class Drawing:
    """What the parameter strategies need to know: the features allowed and the scale."""

    features: frozenset[str]
    scale: Scale

    def allows(self, kind: type) -> bool:
        """Whether the features declare `kind` (and processing time, for a trigger that runs on it)."""
        return kind.feature.name in self.features and (
            "time.processing" in self.features or kind not in PROCESSING_TRIGGERS)


#: The triggers that run on processing time (the `time.processing` feature).
PROCESSING_TRIGGERS = (ProcessingTimeTrigger, ContinuousProcessingTimeTrigger, ProcessingTimeoutTrigger)


def time_unit(window: WindowSpec) -> int:
    """The window's natural time scale (slide, step, size or gap), at least 1."""
    for name in ("slide", "step", "size", "gap"):
        value = getattr(window, name, None)
        if isinstance(value, int) and not isinstance(window, Count):
            return max(1, abs(value))
    return 10


def fires_until_wrap(spec: Case) -> bool:
    """Whether a `Long.MAX_VALUE` watermark (the end of input) makes `spec` fire without end: a
    `ContinuousEventTimeTrigger` on the global window (whose `maxTimestamp` is `Long.MAX_VALUE`), which
    count windows are too, fires every interval up to there, where `time + interval` wraps, and on around
    the `long` range, for ever or until it lands on `Long.MAX_VALUE` (`reference.timer_chains`): 100,000
    firings of the window's contents in every implementation (`TOO_MANY_OUTPUTS`), or, over a purged
    window, a chain the Flink runner fires until its job's timeout."""
    return isinstance(spec.window, Global | Count) and isinstance(innermost_trigger(spec.trigger),
                                                                   ContinuousEventTimeTrigger)


def processing_timeouts(spec: Case) -> tuple[int, ...]:
    """The positive timeouts of the `ProcessingTimeoutTrigger`s around `spec`'s trigger, outermost first."""
    return tuple(t.timeout for t in nested_triggers(spec.trigger)
                 if isinstance(t, ProcessingTimeoutTrigger) and t.timeout > 0)


# --- assigners --------------------------------------------------------------------------------


@built_once
def offsets(bound: int, features: frozenset[str]) -> st.SearchStrategy[int]:
    """Offsets `abs(offset) < bound`, the bounds themselves included, when offsets are supported."""
    if "offset" not in features or bound <= 1:
        return st.just(0)
    inside = bound - 1
    return st.one_of(st.just(0), st.integers(-inside, inside), st.sampled_from([inside, -inside]))


@built_once
def times(features: frozenset[str]) -> st.SearchStrategy[str]:
    # Event time mostly: lateness, watermarks and merging live there.
    if "time.processing" not in features:
        return st.just("event")
    return st.sampled_from(["event"] * 3 + ["processing"])


@built_once
@st.composite
def sliding_sizes(draw, slide: int, ceiling: int = LONG_MAX) -> int:
    """`size` below, equal to, a multiple of, or not a multiple of `slide`, or five to twenty slides
    (an element in more than four windows); at most `ceiling`."""
    relations = ["multiple", "equal"] + (["not a multiple", "below"] if slide > 1 else []) + ["many windows"]
    relation = draw(choice_of(*relations))
    if relation == "equal":
        return slide
    if relation == "below":
        return draw(st.integers(1, slide - 1))
    k = draw(st.integers(5, 20) if relation == "many windows" else st.integers(2, 4))
    size = k * slide if relation != "not a multiple" else (k - 1) * slide + draw(st.integers(1, slide - 1))
    return min(long_at_most(size), ceiling)


@built_once
@st.composite
def tumbling_windows(draw, d: Drawing) -> Tumbling:
    size = draw(d.scale.sizes())
    return Tumbling(size, draw(offsets(size, d.features)), draw(times(d.features)))


@built_once
@st.composite
def sliding_windows(draw, d: Drawing) -> Sliding:
    slide = draw(d.scale.sizes())
    size = draw(sliding_sizes(slide, d.scale.ceiling))
    return Sliding(size, slide, draw(offsets(slide, d.features)), draw(times(d.features)))


@built_once
@st.composite
def cumulative_windows(draw, d: Drawing) -> Cumulative:
    """`CUMULATE(step, size, offset)`: a size of two to five steps, or one step (a tumbling window), or six to
    twenty (a record in many windows), at most the scale's ceiling; an offset within the size, or (Flink SQL checks
    none) beyond it either side, where the windows align to it modulo the size. Shrinks towards two steps, no
    offset."""
    step = draw(d.scale.sizes())
    steps = draw(weighted((4, st.integers(2, 5)), (1, st.just(1)), (1, st.integers(6, 20))))
    size = step * max(1, min(steps, d.scale.ceiling // step))
    offset = draw(offsets(size, d.features))
    if offset and draw(one_in(3)):
        offset = max(LONG_MIN, min(LONG_MAX, offset + draw(st.sampled_from([size, -size, 3 * size]))))
    return Cumulative(step, size, offset)


@built_once
@st.composite
def count_windows(draw, d: Drawing) -> Count:
    """`countWindow(size[, slide])`: mostly up to 5 elements; sometimes larger, a slide more than one
    past the size (elements between windows are never fired), or counts of 0 and below (Flink does
    not check them: `CountTrigger` fires on every element)."""
    size = draw(weighted((5, st.integers(1, 5)), (1, st.integers(6, 40)), (1, st.integers(-2, 0))))
    room = max(1, size)
    return Count(size, draw(count_slides(room)))


@built_once
def count_slides(room: int) -> st.SearchStrategy[int | None]:
    """A count window's slide for a size of `room` (at least 1): none, up to one past the size, more, or 0 and -1."""
    return weighted((2, st.none()), (2, st.integers(1, room + 1)), (1, st.integers(room + 2, 3 * room + 2)),
                    (1, st.integers(-1, 0)))


@built_once
@st.composite
def session_windows(draw, d: Drawing) -> Session:
    return Session(draw(d.scale.sizes()), draw(times(d.features)))


@built_once
@st.composite
def dynamic_session_windows(draw, d: Drawing) -> DynamicSession:
    """`withDynamicGap(extractor)`: the gaps come from the records (`strategies.streams` draws their
    values to reach a gap of 0 or less), so only the extractor and the time are drawn here."""
    return DynamicSession(draw(choice_of(*get_args(GapExtractor))), draw(times(d.features)))


#: Each assigner kind and the strategy of its parameters.
ASSIGNER_PARAMETERS: dict[type, Callable[[Drawing], st.SearchStrategy[WindowSpec]]] = {
    Tumbling: tumbling_windows,
    Sliding: sliding_windows,
    Cumulative: cumulative_windows,
    Session: session_windows,
    Global: lambda d: st.just(Global()),
    Count: count_windows,
    DynamicSession: dynamic_session_windows,
}

#: Time windows twice as often as the global and count windows: there is more to them.
ASSIGNER_WEIGHTS = {Tumbling: 2, Sliding: 2, Session: 2}


@built_once
@st.composite
def assigners(draw, d: Drawing) -> WindowSpec:
    """A valid window assigner among those `d.features` allows."""
    kind = draw(choice_of(*(k for k in ASSIGNERS if d.allows(k) for _ in range(ASSIGNER_WEIGHTS.get(k, 1)))))
    return draw(ASSIGNER_PARAMETERS[kind](d))


@built_once
@st.composite
def invalid_assigners(draw, drawing: Drawing) -> WindowSpec:
    """An assigner Flink rejects when the job is built (`invalid_spec`) or fails on (a processing-time
    sliding window's capacity), or, where the features leave no such assigner, a valid one. Only at the
    extreme scale an offset of `Long.MIN_VALUE`."""
    features = drawing.features
    d = Drawing(features, SMALL)
    kinds = [k for k in (Tumbling, Sliding, Session, Cumulative) if d.allows(k)]
    if not kinds:
        return draw(assigners(d))
    kind = draw(st.sampled_from(kinds))
    not_positive = st.integers(-3, 0)
    time = draw(times(features))
    if kind is Session:
        return Session(draw(not_positive), time)
    size = draw(small_sizes())
    if kind is Cumulative:
        return draw(invalid_cumulative_windows(size))
    if kind is Tumbling:
        if "offset" in features and draw(st.booleans()):
            return Tumbling(size, draw(st.sampled_from([size, -size, size + 1])), time)
        return Tumbling(draw(not_positive), 0, time)
    problems = ["slide", "size", "offset", "too many windows"]
    problems += ["int capacity"] if "time.processing" in features else []
    if "offset" in features and drawing.scale.reaches_long_max:
        problems += ["offset Long.MIN_VALUE"] * len(problems)  # the extreme scale's own: as often as the rest
    problem = draw(st.sampled_from(problems))
    if problem == "slide":
        return Sliding(size, draw(not_positive), 0, time)
    if problem == "size":
        return Sliding(draw(not_positive), size, 0, time)
    if problem == "offset" and "offset" in features:
        return Sliding(size, size, draw(st.sampled_from([size, -size])), time)
    if problem == "int capacity":
        # No window-count check for processing time: each element fails in `new ArrayList<>((int) (size /
        # slide))` when the cast is negative, or makes more windows than an element may have.
        slide, ratio = draw(st.integers(1, 3)), draw(st.sampled_from([2**30, 2**31 - 1, 2**31, 2**32 - 1, 2**32]))
        return Sliding(slide * ratio, slide, 0, "processing")
    if problem == "offset Long.MIN_VALUE":
        # Math.abs(Long.MIN_VALUE) is negative, so `abs(offset) < slide` lets a slide of 0 or below through
        # to `size / slide`: "/ by zero", or a negative capacity.
        return Sliding(size, draw(weighted((1, st.just(0)), (1, st.integers(-2, -1)))), LONG_MIN, time)
    return window_count_limit(size)


@built_once
def invalid_cumulative_windows(step: int) -> st.SearchStrategy[Cumulative]:
    """A `CUMULATE` Flink SQL rejects: a step or a size of 0 or below (each alone, or both), or a size that is
    no multiple of the step (between two multiples, or below the step)."""
    not_positive = st.integers(-3, 0)
    return st.one_of(
        st.builds(Cumulative, not_positive, st.just(2 * step)),
        st.builds(Cumulative, st.just(step), not_positive),
        st.builds(Cumulative, not_positive, not_positive),
        st.builds(Cumulative, st.just(step + 1), st.integers(2, 4).map(lambda k: k * (step + 1) - 1)),
        st.builds(Cumulative, st.just(step + 1), st.integers(1, step)))


def window_count_limit(slide: int) -> Sliding:
    """An event-time sliding window of `slide` at the 10,000,000 windows check (`SlidingEventTimeWindows`:
    `size / slide > MAX_WINDOW_NUM` in Java's truncating `long` division; processing time has none), on
    either side of it, as `slide % 3` says: `slide * 10,000,001` (0: rejected), or, for a slide above 1,
    the band above ten million slides that is no exact multiple, `slide * 10,000,000 + 1` (2, as
    `sliding(20_000_001, 2)`: accepted, the division truncates, and an element then has more windows than
    the contract compares) or `slide * 10,000,001 + 1` (1: rejected), where a check in exact or rounded
    arithmetic decides otherwise.
    The side comes from the slide already drawn, not from a draw of its own: the drawing of every other
    case (and the committed corpus, `conformance.corpus`) stays as it was."""
    side = slide % 3 if slide > 1 else 0
    if side == 0:
        return Sliding(slide * (MAX_WINDOW_NUM + 1), slide, 0, "event")
    return Sliding(slide * (MAX_WINDOW_NUM + (side == 1)) + 1, slide, 0, "event")


# --- triggers ---------------------------------------------------------------------------------


@built_once
def counts() -> st.SearchStrategy[int]:
    """`CountTrigger` counts: 1 to 4 mostly; sometimes above 4, or 0 and below (Flink does not check:
    such a trigger fires on every element)."""
    return weighted((6, st.integers(1, 4)), (1, st.integers(5, 30)), (1, st.integers(-2, 0)))


@built_once
def intervals(d: Drawing, window: WindowSpec) -> st.SearchStrategy[int]:
    """Continuous-trigger intervals at the scale's size, and now and then 0 (Flink's `onElement`
    computes `timestamp % interval` and the job fails with "/ by zero")."""
    return weighted((9, d.scale.intervals(time_unit(window))), (1, st.just(0)))


def brings_a_count_evictor(window: WindowSpec) -> bool:
    """`countWindow(size, slide)`: Flink builds it with `CountEvictor.of(size)`, which stays under any trigger."""
    return isinstance(window, Count) and window.slide is not None


def trigger_kinds(window: WindowSpec, d: Drawing, depth: int = 0) -> list[type]:
    """The explicit triggers `d.features` allows on `window`, as Java's types allow them, each as
    often as it should be drawn.

    `EventTimeTrigger` and `ProcessingTimeTrigger` need time windows, `NeverTrigger` is the global
    window's (on sessions Flink rejects it when the job is built: see `window_specs`). A
    `ContinuousEventTimeTrigger` on the global window fires every interval up to `Long.MAX_VALUE` at
    the end of input, without end (`fires_until_wrap`): only in cases without end of input, and not
    at a scale whose times reach `Long.MAX_VALUE`.
    `PurgingTrigger`s and `ProcessingTimeoutTrigger`s nest up to `PURGING_DEPTH`; a
    `ProcessingTimeoutTrigger` cannot merge, so it is drawn on sessions only as an invalid
    specification (`window_specs`).
    """
    if isinstance(window, Global | Count):
        # A CountTrigger that replaces countWindow(size, slide)'s own keeps its CountEvictor(size): twice,
        # so that firings of more than `size` elements show the evictor at work.
        counting = [CountTrigger] * (2 if brings_a_count_evictor(window) else 1)
        kinds = [*counting, NeverTrigger, ContinuousProcessingTimeTrigger]
        if "unbounded_input" in d.features and not d.scale.reaches_long_max:
            kinds += [ContinuousEventTimeTrigger] * 2
    else:
        # The triggers that keep state across elements and merge it for sessions (CountTrigger,
        # ContinuousEventTimeTrigger, whose timers and alignment make it the richest) twice; on
        # sessions, where that state is merged (`onMerge`), CountTrigger four times.
        counting = [CountTrigger] * (4 if isinstance(window, MERGING_ASSIGNERS) else 2)
        kinds = [EventTimeTrigger, *counting, ContinuousEventTimeTrigger, ContinuousEventTimeTrigger,
                 ProcessingTimeTrigger, ContinuousProcessingTimeTrigger]
    if time_unit(window) > d.scale.continuous_up_to:
        kinds = [k for k in kinds if k not in (ContinuousEventTimeTrigger, ContinuousProcessingTimeTrigger)]
    kinds = [k for k in kinds if d.allows(k)]
    if kinds and depth < PURGING_DEPTH and d.allows(PurgingTrigger):
        # A purging continuous trigger is what fires a window emptied by an earlier firing: twice.
        kinds += [PurgingTrigger] * (1 + (ContinuousEventTimeTrigger in kinds))
    merging = isinstance(window, MERGING_ASSIGNERS)
    if kinds and depth < PURGING_DEPTH and d.allows(ProcessingTimeoutTrigger) and not merging:
        kinds += [ProcessingTimeoutTrigger] * 2
    if d.allows(DeltaTrigger) and not merging:
        # DeltaTrigger cannot merge either: on sessions only as an invalid specification (`window_specs`).
        kinds += [DeltaTrigger]
    if depth == 0 and d.allows(AfterEndOfWindowTrigger) and isinstance(window, Tumbling | Sliding | Session):
        # Flink SQL's emit strategy, of its legacy group windows alone, never nested: twice, for its two firings.
        kinds += [AfterEndOfWindowTrigger] * 2
    return kinds


@built_once
def fire_delays(d: Drawing, window: WindowSpec) -> st.SearchStrategy[int | None]:
    """An early- or late-fire delay of Flink SQL's emit strategy: off, or 0 (a firing on every element) mostly;
    above 0 (a firing every delay of processing time) where the features take such a delay (`FIRE_DELAY`); now
    and then negative, which `WindowEmitStrategy` rejects."""
    branches = [(3, st.none()), (4, st.just(0)), (1, st.integers(-time_unit(window), -1))]
    if FIRE_DELAY.name in d.features:
        branches.append((2, st.integers(1, 2 * time_unit(window))))
    return weighted(*branches)


@built_once
def emit_strategies(d: Drawing, window: WindowSpec, depth: int) -> st.SearchStrategy[AfterEndOfWindowTrigger]:
    return st.builds(AfterEndOfWindowTrigger, fire_delays(d, window), fire_delays(d, window))


@built_once
@st.composite
def purging_triggers(draw, d: Drawing, window: WindowSpec, depth: int) -> PurgingTrigger:
    return PurgingTrigger(draw(explicit_triggers(d, window, depth + 1)))


@built_once
def timeouts(d: Drawing, window: WindowSpec) -> st.SearchStrategy[int]:
    """`ProcessingTimeoutTrigger` timeouts: within a window's time mostly, its edges (0: the timer for
    the element's own clock reading, 1, the unit), negative now and then (Flink checks nothing: the
    timer lies in the past and fires before the next input), and at the extreme scale up to
    `Long.MAX_VALUE` (`now + timeout` wraps into the past)."""
    unit = min(time_unit(window), d.scale.ceiling)
    wide = st.integers(EXTREME, LONG_MAX) if d.scale.reaches_long_max else st.integers(unit, 2 * unit)
    return weighted((4, st.integers(1, unit)), (3, st.sampled_from(sorted({0, 1, unit}))), (1, st.integers(-unit, -1)),
                    (1, wide))


@built_once
@st.composite
def processing_timeout_triggers(draw, d: Drawing, window: WindowSpec, depth: int) -> ProcessingTimeoutTrigger:
    """`ProcessingTimeoutTrigger.of(inner, timeout, resetTimerOnNewRecord, shouldClearOnTimeout)` around
    any trigger the window allows, each flag either way; half the time around its canonical use, a
    `CountTrigger` of 2 to 4 (Flink's example `of(CountTrigger.of(3), 100)`), whose firing on an element
    must take the timeout set by an earlier one with it."""
    kinds = trigger_kinds(window, d, depth + 1)
    if CountTrigger in kinds and draw(st.booleans()):
        inner: TriggerSpec = CountTrigger(draw(st.integers(2, 4)))
    else:
        inner = draw(explicit_triggers(d, window, depth + 1))
    return ProcessingTimeoutTrigger(inner, draw(timeouts(d, window)), draw(st.booleans()), draw(st.booleans()))


@built_once
def thresholds() -> st.SearchStrategy[float]:
    """`DeltaTrigger` / `DeltaEvictor` thresholds (a Java `double`) where the comparisons decide: the
    streams' values mostly go up by 1 a record, so their deltas are small integers; a threshold equal
    to one of them tells `>` from `>=`, half-way between them does not, and 0 or below takes everything
    (a delta evictor then empties the window, its last element included). Now and then huge: 2^64 and
    1e19 are the deltas across the whole `long` range (a value that wraps from `Long.MAX_VALUE`)."""
    return weighted((6, st.integers(0, 4).map(float)), (2, st.sampled_from([0.5, 1.5, 2.5])),
                    (1, st.sampled_from([-1.0, -0.5])), (1, st.sampled_from([1e19, 2.0**64])))


@built_once
def delta_functions() -> st.SearchStrategy[DeltaFunction]:
    return st.sampled_from(get_args(DeltaFunction))


#: Each trigger kind and the strategy of its parameters (`depth`: how many `PurgingTrigger`s it is in).
TRIGGER_PARAMETERS: dict[type, Callable[[Drawing, WindowSpec, int], st.SearchStrategy[TriggerSpec]]] = {
    EventTimeTrigger: built_once(lambda d, w, depth: st.just(EventTimeTrigger())),
    ProcessingTimeTrigger: built_once(lambda d, w, depth: st.just(ProcessingTimeTrigger())),
    CountTrigger: built_once(lambda d, w, depth: counts().map(CountTrigger)),
    ContinuousEventTimeTrigger: built_once(lambda d, w, depth: intervals(d, w).map(ContinuousEventTimeTrigger)),
    ContinuousProcessingTimeTrigger: built_once(
        lambda d, w, depth: intervals(d, w).map(ContinuousProcessingTimeTrigger)),
    PurgingTrigger: purging_triggers,
    NeverTrigger: built_once(lambda d, w, depth: st.just(NeverTrigger())),
    ProcessingTimeoutTrigger: processing_timeout_triggers,
    DeltaTrigger: built_once(lambda d, w, depth: st.builds(DeltaTrigger, thresholds(), delta_functions())),
    AfterEndOfWindowTrigger: emit_strategies,
}


@built_once
def trigger_choices(d: Drawing, window: WindowSpec, depth: int) -> st.SearchStrategy[type]:
    """One of `trigger_kinds`, as often as it is listed."""
    return st.sampled_from(trigger_kinds(window, d, depth))


@built_once
@st.composite
def explicit_triggers(draw, d: Drawing, window: WindowSpec, depth: int) -> TriggerSpec:
    """A trigger of `trigger_kinds(window, d, depth)`."""
    return draw(TRIGGER_PARAMETERS[draw(trigger_choices(d, window, depth))](d, window, depth))


@built_once
@st.composite
def triggers(draw, d: Drawing, window: WindowSpec) -> TriggerSpec | None:
    """`None` (the assigner's default) or an explicit trigger, possibly wrapped in `PurgingTrigger`;
    on a count window it replaces the `CountTrigger` that `countWindow` brings."""
    kinds = trigger_kinds(window, d)
    # The global window's default trigger never fires, and sessions merge their triggers' state:
    # give them an explicit one more often.
    defaults = 1 if isinstance(window, Global | Session | DynamicSession) else 3
    if not kinds or draw(st.integers(0, defaults + len(kinds) - 1)) < defaults:
        return None
    return draw(explicit_triggers(d, window, 0))


# --- evictors ---------------------------------------------------------------------------------


@built_once
@st.composite
def count_evictors(draw, d: Drawing, window: WindowSpec, after: bool) -> CountEvictor:
    """`CountEvictor.of(max_count)`: 0 to 4 mostly, sometimes above 4 or below 0 (Flink does not
    check: it evicts everything), and at the extreme scale near `Long.MIN_VALUE`, where Flink's
    `size - maxCount` wraps negative and nothing is evicted."""
    branches = [(6, st.integers(0, 4)), (1, st.integers(5, 30)), (1, st.integers(-3, -1))]
    branches += [(3, st.integers(LONG_MIN, LONG_MIN + 2))] if d.scale.reaches_long_max else []
    return CountEvictor(draw(weighted(*branches)), after)


@built_once
@st.composite
def time_evictors(draw, d: Drawing, window: WindowSpec, after: bool) -> TimeEvictor:
    """`TimeEvictor.of(size)`: at the edges too (0 keeps only the newest timestamp, `unit - 1` spans
    start to end - 1), up to two windows, and now and then negative (it keeps only what is newer than
    the newest element: nothing)."""
    return TimeEvictor(draw(time_evictor_sizes(time_unit(window), d.scale.ceiling)), after)


@built_once
def time_evictor_sizes(unit: int, ceiling: int) -> st.SearchStrategy[int]:
    """`time_evictors`' sizes for a window of `unit`."""
    edges = choice_of(*sorted({0, 1, max(0, unit - 1), unit}))
    return weighted((3, st.integers(0, min(long_at_most(2 * unit), ceiling))), (3, edges), (1, st.integers(-unit, -1)))


#: Each evictor kind and the strategy of its parameters (`after`: evict after the function).
EVICTOR_PARAMETERS: dict[type, Callable[[Drawing, WindowSpec, bool], st.SearchStrategy[EvictorSpec]]] = {
    CountEvictor: count_evictors,
    TimeEvictor: time_evictors,
    DeltaEvictor: built_once(
        lambda d, w, after: st.builds(DeltaEvictor, thresholds(), delta_functions(), st.just(after))),
}


@built_once
@st.composite
def evictors(draw, d: Drawing, window: WindowSpec) -> EvictorSpec | None:
    """`None` mostly; a count or delta evictor (not on sessions: the format forbids it) or a time evictor (on a
    count window it replaces the `CountEvictor` that `countWindow(size, slide)` brings, so there `None`, which
    keeps that one under any trigger, comes twice as often)."""
    on_sessions = isinstance(window, MERGING_ASSIGNERS)
    kinds = [None] * (4 if brings_a_count_evictor(window) else 2) + [
        k for k in EVICTORS if d.allows(k) and not (k in (CountEvictor, DeltaEvictor) and on_sessions)]
    kind = draw(choice_of(*kinds))
    if kind is None:
        return None
    after = draw(st.booleans()) if "evictor.after" in d.features else False
    return draw(EVICTOR_PARAMETERS[kind](d, window, after))


@built_once
@st.composite
def allowed_lateness(draw, unit: int, features: frozenset[str]) -> int:
    """0, small, a whole number of windows, large, anything from 10^6 to just below `Long.MAX_VALUE`,
    or `Long.MAX_VALUE` (cleanup never)."""
    if "allowed_lateness" not in features:
        return 0
    kind = draw(choice_of("zero", "small", "windows", "large", "max", "huge"))
    if kind == "zero":
        return 0
    if kind == "small":
        return draw(st.integers(1, unit))
    if kind == "windows":
        return long_at_most(unit * draw(st.integers(1, 3)))
    if kind == "large":
        return long_at_most(unit * draw(st.integers(50, 1000)))
    if kind == "huge":
        return draw(st.integers(10**6, LONG_MAX - 1))
    return LONG_MAX


@built_once
@st.composite
def window_specs(draw, features=None, *, scale: Scale = SMALL) -> Case:
    """A window specification: a `Case` with no events yet, its parameters at `scale`. One in
    `INVALID_ONE_IN` is invalid.

    Shrinks towards a valid tumbling window of size 1 with the default trigger, no evictor, no
    lateness and no side output."""
    features = supported(features)
    d = Drawing(features, scale)
    valid = not draw(one_in(INVALID_ONE_IN))
    window = draw(assigners(d) if valid else invalid_assigners(d))
    trigger = draw(triggers(d, window))
    if not valid and isinstance(window, MERGING_ASSIGNERS) and "trigger.never" in features and draw(st.booleans()):
        # A merging assigner with a trigger that cannot merge: Flink's WindowOperatorBuilder rejects it.
        trigger = NeverTrigger()
        if "trigger.purging" in features and draw(st.booleans()):
            trigger = PurgingTrigger(trigger)
    if isinstance(window, MERGING_ASSIGNERS) and d.allows(ProcessingTimeoutTrigger) and draw(one_in(INVALID_ONE_IN)):
        # ProcessingTimeoutTrigger does not override canMerge(): Flink rejects it on a valid session too.
        inner = draw(triggers(d, window))
        if inner is None or isinstance(inner, AfterEndOfWindowTrigger):  # a whole emit strategy nests in nothing
            inner = EventTimeTrigger()
        trigger = ProcessingTimeoutTrigger(inner, draw(timeouts(d, window)))
    if isinstance(window, MERGING_ASSIGNERS) and d.allows(DeltaTrigger) and draw(one_in(INVALID_ONE_IN)):
        # DeltaTrigger does not override canMerge() either: Flink rejects it on a valid session.
        trigger = draw(TRIGGER_PARAMETERS[DeltaTrigger](d, window, 0))
    return Case(
        window=window,
        trigger=trigger,
        evictor=None if isinstance(trigger, AfterEndOfWindowTrigger) else draw(evictors(d, window)),
        allowed_lateness=draw(allowed_lateness(time_unit(window), features)),
        late_side_output=draw(choice_of(False, True)) if "late_side_output" in features else False,
    )

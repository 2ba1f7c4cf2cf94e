"""Window specifications: an assigner, a trigger, an evictor, the allowed lateness and the side output.

`window_specs(features)` draws a `Case` without events (the specification part of a case), mostly
valid and sometimes one Flink rejects (`invalid_spec`). Parameters are small so that generated
streams hit window boundaries often; `parameters` lets the opt-in extreme strategy draw huge ones.
Only the parts of the format whose features are in `features` are drawn (generate to fit).
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from conformance.case import (
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountEvictor,
    CountTrigger,
    EventTimeTrigger,
    EvictorSpec,
    Global,
    NeverTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Session,
    Sliding,
    TimeEvictor,
    TriggerSpec,
    Tumbling,
    WindowSpec,
)
from conformance.facts import LONG_MAX, MAX_WINDOW_NUM
from strategies.features import ASSIGNERS, supported

#: How often a drawn specification is valid: one in `INVALID_ONE_IN` is one Flink rejects.
INVALID_ONE_IN = 16

Sizes = Callable[[], st.SearchStrategy[int]]


def long_at_most(value: int) -> int:
    """`value`, saturated at `Long.MAX_VALUE` (huge windows times a few stay in the format's range)."""
    return min(value, LONG_MAX)


def small_sizes() -> st.SearchStrategy[int]:
    """Window sizes, slides and gaps: mostly tiny (so timestamps land on edges), sometimes round."""
    return st.integers(1, 10) | st.sampled_from([15, 60, 1000])


def offsets(bound: int, features: frozenset[str]) -> st.SearchStrategy[int]:
    """Offsets `abs(offset) < bound`, the bounds themselves included, when offsets are supported."""
    if "offset" not in features or bound <= 1:
        return st.just(0)
    inside = bound - 1
    return st.one_of(st.just(0), st.integers(-inside, inside), st.sampled_from([inside, -inside]))


def times(features: frozenset[str]) -> st.SearchStrategy[str]:
    # Event time mostly: lateness, watermarks and merging live there.
    if "time.processing" not in features:
        return st.just("event")
    return st.sampled_from(["event"] * 3 + ["processing"])


@st.composite
def sliding_sizes(draw, slide: int) -> int:
    """`size` below, equal to, a multiple of, or not a multiple of `slide`."""
    relations = ["multiple", "equal"] + (["not a multiple", "below"] if slide > 1 else [])
    relation = draw(st.sampled_from(relations))
    if relation == "equal":
        return slide
    if relation == "below":
        return draw(st.integers(1, slide - 1))
    k = draw(st.integers(2, 4))
    size = k * slide if relation == "multiple" else (k - 1) * slide + draw(st.integers(1, slide - 1))
    return long_at_most(size)


@st.composite
def assigners(draw, features: frozenset[str], sizes: Sizes = small_sizes) -> WindowSpec:
    """A valid window assigner among those `features` allows."""
    # Time windows twice as often as the global and count windows: there is more to them.
    weights = {"tumbling": 2, "sliding": 2, "session": 2, "global": 1, "count": 1}
    kind = draw(st.sampled_from([a for a in ASSIGNERS if f"assigner.{a}" in features for _ in range(weights[a])]))
    if kind == "tumbling":
        size = draw(sizes())
        return Tumbling(size, draw(offsets(size, features)), draw(times(features)))
    if kind == "sliding":
        slide = draw(sizes())
        size = draw(sliding_sizes(slide))
        return Sliding(size, slide, draw(offsets(slide, features)), draw(times(features)))
    if kind == "session":
        return Session(draw(sizes()), draw(times(features)))
    if kind == "count":
        size = draw(st.integers(1, 5))
        return Count(size, draw(st.one_of(st.none(), st.integers(1, size + 1))))
    return Global()


@st.composite
def invalid_assigners(draw, features: frozenset[str]) -> WindowSpec:
    """An assigner Flink rejects when the job is built (`invalid_spec`), or, where the features
    leave no such assigner, a valid one."""
    kinds = [a for a in ("tumbling", "sliding", "session") if f"assigner.{a}" in features]
    if not kinds:
        return draw(assigners(features))
    kind = draw(st.sampled_from(kinds))
    not_positive = st.integers(-3, 0)
    time = draw(times(features))
    if kind == "session":
        return Session(draw(not_positive), time)
    size = draw(small_sizes())
    if kind == "tumbling":
        if "offset" in features and draw(st.booleans()):
            return Tumbling(size, draw(st.sampled_from([size, -size, size + 1])), time)
        return Tumbling(draw(not_positive), 0, time)
    problem = draw(st.sampled_from(["slide", "size", "offset", "too many windows"]))
    if problem == "slide":
        return Sliding(size, draw(not_positive), 0, time)
    if problem == "size":
        return Sliding(draw(not_positive), size, 0, time)
    if problem == "offset" and "offset" in features:
        return Sliding(size, size, draw(st.sampled_from([size, -size])), time)
    # The 10,000,000 windows check exists only for event time (SlidingEventTimeWindows).
    return Sliding(size * (MAX_WINDOW_NUM + 1), size, 0, "event")


def time_unit(window: WindowSpec) -> int:
    """The window's natural time scale (size, slide or gap), at least 1."""
    for name in ("slide", "size", "gap"):
        value = getattr(window, name, None)
        if isinstance(value, int) and not isinstance(window, Count):
            return max(1, abs(value))
    return 10


def _processing(features: frozenset[str]) -> bool:
    return "time.processing" in features


def trigger_kinds(window: WindowSpec, features: frozenset[str]) -> list[str]:
    """The explicit triggers `features` allows on `window`, as Java's types allow them.

    `EventTimeTrigger` and `ProcessingTimeTrigger` need time windows, `NeverTrigger` is the global
    window's (on sessions Flink rejects it when the job is built: see `window_specs`).
    `ContinuousEventTimeTrigger` is not drawn for the global window either: its maxTimestamp is
    Long.MAX_VALUE, so at the end of input it would fire every `interval` up to there (in Flink too).
    """
    if isinstance(window, Global):
        kinds = ["count", "never"] + (["continuous_processing_time"] if _processing(features) else [])
    else:
        # The triggers that keep state across elements and merge it for sessions (CountTrigger,
        # ContinuousEventTimeTrigger, whose timers and alignment make it the richest) twice.
        kinds = ["event_time", "count", "count", "continuous_event_time", "continuous_event_time"]
        kinds += ["processing_time", "continuous_processing_time"] if _processing(features) else []
    return [k for k in kinds if f"trigger.{k}" in features]


@st.composite
def simple_triggers(draw, kind: str, unit: int, intervals: Sizes | None = None) -> TriggerSpec:
    if kind == "event_time":
        return EventTimeTrigger()
    if kind == "processing_time":
        return ProcessingTimeTrigger()
    if kind == "count":
        return CountTrigger(draw(st.integers(1, 4)))
    if kind == "never":
        return NeverTrigger()
    # At least a quarter of the window: a window fires at most a few times per interval passed.
    interval = draw(intervals() if intervals is not None
                    else st.integers(max(1, unit // 4), long_at_most(2 * unit)))
    if kind == "continuous_event_time":
        return ContinuousEventTimeTrigger(interval)
    return ContinuousProcessingTimeTrigger(interval)


@st.composite
def triggers(draw, window: WindowSpec, features: frozenset[str],
             intervals: Sizes | None = None) -> TriggerSpec | None:
    """`None` (the assigner's default) or an explicit trigger, possibly wrapped in `PurgingTrigger`."""
    if isinstance(window, Count):
        return None  # countWindow brings its own trigger
    kinds = trigger_kinds(window, features)
    # The global window's default trigger never fires: give it an explicit one more often.
    defaults = [None] if isinstance(window, Global) else [None, None, None]
    purging = ["purging"] if kinds and "trigger.purging" in features else []
    if purging and "continuous_event_time" in kinds:
        # A purging continuous trigger is what fires a window emptied by an earlier firing.
        purging.append("purging_continuous")
    choice = draw(st.sampled_from(defaults + kinds + purging))
    unit = time_unit(window)
    if choice is None:
        return None
    if choice == "purging_continuous":
        return PurgingTrigger(draw(simple_triggers("continuous_event_time", unit, intervals)))
    if choice == "purging":
        return PurgingTrigger(draw(simple_triggers(draw(st.sampled_from(kinds)), unit, intervals)))
    return draw(simple_triggers(choice, unit, intervals))


@st.composite
def evictors(draw, window: WindowSpec, features: frozenset[str]) -> EvictorSpec | None:
    """`None` mostly; a count evictor (not on sessions: the format forbids it) or a time evictor."""
    if isinstance(window, Count):
        return None
    kinds = [None, None]
    if "evictor.count" in features and not isinstance(window, Session):
        kinds.append("count")
    if "evictor.time" in features:
        kinds.append("time")
    kind = draw(st.sampled_from(kinds))
    if kind is None:
        return None
    after = draw(st.booleans()) if "evictor.after" in features else False
    if kind == "count":
        return CountEvictor(draw(st.integers(0, 4)), after)
    unit = time_unit(window)
    # Sizes at the edges too: 0 keeps only the newest timestamp, `unit - 1` spans start to end - 1.
    edges = st.sampled_from(sorted({0, 1, max(0, unit - 1), unit}))
    return TimeEvictor(draw(st.one_of(st.integers(0, long_at_most(2 * unit)), edges)), after)


@st.composite
def allowed_lateness(draw, unit: int, features: frozenset[str]) -> int:
    """0, small, a whole number of windows, large, or `Long.MAX_VALUE` (cleanup never)."""
    if "allowed_lateness" not in features:
        return 0
    kind = draw(st.sampled_from(["zero", "small", "windows", "large", "max"]))
    if kind == "zero":
        return 0
    if kind == "small":
        return draw(st.integers(1, unit))
    if kind == "windows":
        return long_at_most(unit * draw(st.integers(1, 3)))
    if kind == "large":
        return long_at_most(unit * draw(st.integers(50, 1000)))
    return LONG_MAX


@st.composite
def window_specs(draw, features=None, sizes: Sizes = small_sizes, intervals: Sizes | None = None) -> Case:
    """A window specification: a `Case` with no events yet. One in `INVALID_ONE_IN` is invalid."""
    features = supported(features)
    valid = draw(st.sampled_from([True] * (INVALID_ONE_IN - 1) + [False]))
    window = draw(assigners(features, sizes) if valid else invalid_assigners(features))
    trigger = draw(triggers(window, features, intervals))
    if not valid and isinstance(window, Session) and "trigger.never" in features and draw(st.booleans()):
        # A merging assigner with a trigger that cannot merge: Flink's WindowOperatorBuilder rejects it.
        trigger = NeverTrigger()
        if "trigger.purging" in features and draw(st.booleans()):
            trigger = PurgingTrigger(trigger)
    unit = time_unit(window)
    return Case(
        window=window,
        trigger=trigger,
        evictor=draw(evictors(window, features)),
        allowed_lateness=draw(allowed_lateness(unit, features)),
        late_side_output=draw(st.sampled_from([False, True])) if "late_side_output" in features else False,
    )

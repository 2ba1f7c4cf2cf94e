"""Whole cases, batches of cases, and the opt-in cases at the ends of the `long` range.

- `cases(features)`: a window specification and an out-of-order stream for it, with or without end
  of input; times stay below `2^62` in magnitude (the `extreme_values` threshold), and without that feature
  no sum of Flink's wraps (`strategies.features.within_long_range`). Most cases are
  small; the rare families of `strategies.families` (reported with `hypothesis.event()`) reach the
  band just inside `+-2^62`, wide window sizes, large and non-positive counts, many or look-alike
  keys, huge values, long streams and far watermarks.
- `case_batches(features)`: lists of cases for one `run` call; shrinking removes whole cases. With
  `bursts`, some are bursts of periodic timers (`strategies.bursts`).
- `extreme_cases(features)`: separate and opt-in (needs `extreme_values`): huge window parameters,
  timestamps and watermarks near `Long.MAX_VALUE` / `Long.MIN_VALUE`, and the `Long.MIN_VALUE`
  "no timestamp" marker, where Flink's `long` arithmetic wraps around.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import assume, event
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from strategies.bursts import burst_cases, can_burst
from strategies.families import families
from strategies.features import supported, within_long_range
from strategies.situations import aim, label, reads_situations
from strategies.specs import BAND, EXTREME_SCALE, SMALL, WIDE, fires_until_wrap, time_unit, window_specs
from strategies.streams import (
    MAX_STEPS,
    band_frame,
    long_range_frame,
    normal_frame,
    out_of_order_streams,
)
from strategies.weights import built_once, choice_of, weighted
from strategies.wrapped import wrapped_session_cases
from window_contract.case import Case, DynamicSession, Record
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.features import required_features

#: With `case_batches(bursts=True)`, one case in this many is a burst of periodic timers.
BURSTS_ONE_IN = 12
#: The scales a case is drawn at, each with where its stream's times lie: small windows near 0
#: mostly; wide windows, and the band just inside +-2^62, once in sixteen each.
MAGNITUDES = ((14, SMALL, normal_frame), (1, WIDE, normal_frame), (1, BAND, band_frame))
#: A scale and its frame, as often as `MAGNITUDES` says.
SCALES = weighted(*((weight, st.just((scale, frame))) for weight, scale, frame in MAGNITUDES))


@built_once
def end_of_input(spec: Case, features: frozenset[str]) -> st.SearchStrategy[bool]:
    """Bounded input (the default) or, where supported, a stream that just stops (one in four: most
    event-time windows fire only at the end of a bounded input). A case that would fire without end
    at the end of input (`specs.fires_until_wrap`) never ends its input; it draws the choice all the
    same, so that the examples after it are drawn as for any other case."""
    if "unbounded_input" not in features:
        return st.just(True)
    return choice_of(True, True, True, False).map(lambda end: end and not fires_until_wrap(spec))


def report_families(case: Case) -> None:
    for name in families(case):
        event(name)


@built_once
@st.composite
def cases(draw, features=None, *, max_steps: int = MAX_STEPS, report: bool = True) -> Case:
    """A case that fits `features`: a scale, a window specification at that scale, then a stream for
    it. Its families are reported with `hypothesis.event()`; with `report`, so are the situations it
    exercises, once the suite has said how to read them (`strategies.situations`).

    Shrinks towards a small-scale specification (as `window_specs` shrinks) with a short stream (as
    `out_of_order_streams` shrinks) and end of input."""
    features = supported(features)
    scale, frame = draw(SCALES)
    spec = draw(window_specs(features, scale=scale))
    events = draw(out_of_order_streams(
        spec, features=features, max_steps=max_steps,
        frame=frame(time_unit(spec.window), "negative_timestamps" in features)))
    case = within_long_range(replace(spec, events=events, end_of_input=draw(end_of_input(spec, features))), features)
    report_families(case)
    if report:
        label(case)
    return case


@built_once
@st.composite
def case_batches(draw, features=None, *, max_size: int = 8, max_steps: int = MAX_STEPS,
                 report: bool = True, bursts: bool = False) -> list[Case]:
    """A batch of cases for one `run` call, at least one. With `report` (and a way to read situations,
    `strategies.situations`), the cases' situations are reported and `target()` aims at the number of
    the batch's cases that reach rare ones (not at how often one case does: a case that fires a window
    a hundred thousand times is no rarer for it, and the optimiser would climb on it, a run of seconds a step).
    With `bursts`, one case in `BURSTS_ONE_IN` (where `features` allow one) is a burst of periodic timers
    (`strategies.bursts`).

    Shrinks towards a batch of one case (any case can go), each shrinking as `cases` does (a burst
    towards a case of `cases`)."""
    each = cases(features, max_steps=max_steps, report=False)
    if bursts and can_burst(features):
        each = weighted((BURSTS_ONE_IN - 1, each), (1, burst_cases(features)))
    batch = draw(st.lists(each, min_size=1, max_size=max_size))
    if report and reads_situations():
        found: Counter[str] = Counter()
        for case in batch:
            found.update(set(label(case)))  # how many cases reach each: a case is not worth its repetitions
        aim(found)
    return batch


@st.composite
def extreme_cases(draw, features=None, *, max_steps: int = 10) -> Case:
    """Cases at the ends of the `long` range; opt-in, because only implementations that declare
    `extreme_values` are held to Java's wrap-around arithmetic. Half of them (with dynamic sessions) are
    of the wrapped-session family (`strategies.wrapped`). Their situations are reported as `cases` reports
    them.

    Shrinks as `cases` does, towards a stream without the no-timestamp marker."""
    features = supported(features)
    if "extreme_values" not in features:
        raise InvalidArgument("extreme_cases() needs the feature 'extreme_values'")
    negative = "negative_timestamps" in features
    family = DynamicSession.feature.name in features and draw(st.booleans())
    if family:  # half the time: the wrapped-session family (`strategies.wrapped`)
        spec = draw(wrapped_session_cases(features))
        events = list(spec.events)
    else:
        spec = draw(window_specs(features, scale=EXTREME_SCALE))
        if "allowed_lateness" in features and draw(st.booleans()):
            spec = replace(spec, allowed_lateness=draw(st.integers(LONG_MAX - 10, LONG_MAX)))
        # Without the rare stream families: a long stream or a far jump of windows that wrap around the
        # range multiplies the windows Flink's loops yield (up to the contract's limit for each element).
        frame = long_range_frame(time_unit(spec.window), negative)
        events = list(draw(out_of_order_streams(spec, features=features, max_steps=max_steps, frame=frame,
                                                families=False)))
    if negative and not family and draw(st.sampled_from([False, True])):
        # Long.MIN_VALUE is Flink's "record has no timestamp" marker: the job fails on it.
        at = draw(st.integers(0, len(events)))
        events.insert(at, Record("a", 0, LONG_MIN))
    case = replace(spec, events=tuple(events), end_of_input=draw(end_of_input(spec, features)))
    # A specification without parameters (a dynamic session) and a stream without records can miss the ends.
    assume("extreme_values" in required_features(case))
    report_families(case)
    label(case)
    return case

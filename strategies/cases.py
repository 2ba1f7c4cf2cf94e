"""Whole cases, batches of cases, and the opt-in cases at the ends of the `long` range.

- `cases(features)`: a window specification and an out-of-order stream for it, with or without end
  of input; times stay well inside the `long` range.
- `case_batches(features)`: lists of cases for one `run` call; shrinking removes whole cases.
- `extreme_cases(features)`: separate and opt-in (needs `extreme_values`): huge window parameters,
  timestamps and watermarks near `Long.MAX_VALUE` / `Long.MIN_VALUE`, and the `Long.MIN_VALUE`
  "no timestamp" marker, where Flink's `long` arithmetic wraps around.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from conformance.case import Case, Record
from conformance.facts import LONG_MAX, LONG_MIN
from conformance.properties.situations import aim, label
from strategies.features import supported
from strategies.specs import small_sizes, time_unit, window_specs
from strategies.streams import long_range_frame, out_of_order_streams

#: The smallest magnitude `conformance.features` counts as `extreme_values`.
EXTREME = 2**62


def end_of_input(features: frozenset[str]) -> st.SearchStrategy[bool]:
    """Bounded input (the default) or, where supported, a stream that just stops (one in four: most
    event-time windows fire only at the end of a bounded input)."""
    return st.sampled_from([True, True, True, False]) if "unbounded_input" in features else st.just(True)


@st.composite
def cases(draw, features=None, max_steps: int = 14, report: bool = True) -> Case:
    """A case that fits `features`: a window specification, then a stream for it. With `report`,
    the situations it exercises are reported with `hypothesis.event()`."""
    features = supported(features)
    spec = draw(window_specs(features))
    case = replace(spec, events=draw(out_of_order_streams(spec, features, max_steps)),
                   end_of_input=draw(end_of_input(features)))
    if report:
        label(case)
    return case


@st.composite
def case_batches(draw, features=None, max_size: int = 8, max_steps: int = 14,
                 report: bool = True) -> list[Case]:
    """A batch of cases for one `run` call, at least one. With `report`, the cases' situations are
    reported and `target()` aims at the batch's total of rare ones (which costs a reference run)."""
    batch = draw(st.lists(cases(features, max_steps, report=False), min_size=1, max_size=max_size))
    if report:
        found: Counter[str] = Counter()
        for case in batch:
            found += label(case)
        aim(found)
    return batch


def extreme_sizes() -> st.SearchStrategy[int]:
    """Window parameters of magnitude >= 2^62 (and sometimes small ones, near huge times)."""
    return st.one_of(st.integers(EXTREME, LONG_MAX), st.sampled_from([EXTREME, LONG_MAX - 1, LONG_MAX]),
                     small_sizes())


@st.composite
def extreme_cases(draw, features=None, max_steps: int = 10) -> Case:
    """Cases at the ends of the `long` range; opt-in, because only implementations that declare
    `extreme_values` are held to Java's wrap-around arithmetic."""
    features = supported(features)
    if "extreme_values" not in features:
        raise InvalidArgument("extreme_cases() needs the feature 'extreme_values'")
    # Huge intervals only: a small one under a huge window would fire without end.
    spec = draw(window_specs(features, sizes=extreme_sizes, intervals=lambda: st.integers(EXTREME, LONG_MAX)))
    if "allowed_lateness" in features and draw(st.booleans()):
        spec = replace(spec, allowed_lateness=draw(st.integers(LONG_MAX - 10, LONG_MAX)))
    negative = "negative_timestamps" in features
    frame = long_range_frame(time_unit(spec.window), negative)
    events = list(draw(out_of_order_streams(spec, features, max_steps, frame)))
    if negative and draw(st.sampled_from([False, True])):
        # Long.MIN_VALUE is Flink's "record has no timestamp" marker: the job fails on it.
        at = draw(st.integers(0, len(events)))
        events.insert(at, Record("a", 0, LONG_MIN))
    case = replace(spec, events=tuple(events), end_of_input=draw(end_of_input(features)))
    label(case)
    return case

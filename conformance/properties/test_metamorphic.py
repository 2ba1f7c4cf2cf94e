"""Metamorphic properties: changes to a case that Flink's rules say change nothing (but positions)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import property_settings, violation
from conformance.properties.timeline import Timeline
from strategies import case_batches
from window_contract.case import Case, Watermark
from window_contract.difference import difference
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.observation import Observation, remapped


def shifted(observation: Observation, position: int) -> Observation:
    """`observation` with every output at or after `position` one position later."""
    return remapped(observation, lambda at: at + 1 if at >= position else at)


def with_ignored_watermark(case: Case, position: int, lower_by: int) -> Case | None:
    """`case` with a watermark inserted before event `position` that repeats the current watermark
    (`lower_by == 0`) or lies below it; `None` where no watermark has been seen yet."""
    current = Timeline(case).watermarks[position - 1] if position > 0 else LONG_MIN
    if current == LONG_MIN or current == LONG_MAX:
        return None
    events = list(case.events)
    events.insert(position, Watermark(current - lower_by))
    return replace(case, events=tuple(events))


@property_settings()
@given(data=st.data())
def test_repeated_or_lower_watermark_changes_nothing_but_positions(data, suite, tally):
    """A watermark that does not increase is ignored: inserting one anywhere only moves the outputs
    after it one position on."""
    batch = data.draw(case_batches(suite.features, report=False), label="batch")
    changed = []
    for index, case in enumerate(batch):
        position = data.draw(st.integers(0, len(case.events)), label=f"position in case {index}")
        lower_by = data.draw(st.sampled_from([0, 1, 5]), label=f"lower by, case {index}")
        variant = with_ignored_watermark(case, position, lower_by)
        if variant is not None and suite.fits(variant):
            changed.append((index, position, variant))
    observations = suite.run(batch + [v for _, _, v in changed], tally)
    for n, (index, position, variant) in enumerate(changed):
        expected = shifted(observations[index], position)
        detail = difference(expected, observations[len(batch) + n])
        if detail:
            raise violation("a repeated or lower watermark changes nothing but positions", variant,
                            observations[len(batch) + n], detail, expected=expected)


@property_settings()
@given(data=st.data())
def test_end_of_input_is_a_final_max_watermark(data, suite, tally):
    """The end of a bounded input is `Watermark(Long.MAX_VALUE)`: sending that watermark as the last
    event changes nothing (its position is the end of input's), and processing-time timers stay
    pending in both."""
    batch = data.draw(case_batches(suite.features, report=False), label="batch")
    changed = [(i, replace(c, events=c.events + (Watermark(LONG_MAX),)))
               for i, c in enumerate(batch) if c.end_of_input]
    changed = [(i, v) for i, v in changed if suite.fits(v)]
    observations = suite.run(batch + [v for _, v in changed], tally)
    for n, (index, variant) in enumerate(changed):
        detail = difference(observations[index], observations[len(batch) + n])
        if detail:
            raise violation("the end of input is a final Watermark(Long.MAX_VALUE)", variant,
                            observations[len(batch) + n], detail, expected=observations[index])

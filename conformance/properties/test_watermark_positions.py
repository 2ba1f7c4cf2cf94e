"""Where the window operator's watermarks arrive among the records and firings, as Flink's classes order
them, on mixed watermark cases (`strategies.watermarks`, `mixed`: any trigger, lateness, processing time).

- A watermark arrives only at an event that can make one: with the case's own watermarks, a watermark or
  a channel going idle (`StatusWatermarkValve`); with a generator, a clock reading past the periodic
  timer's due time (`TimestampsAndWatermarksOperator.onProcessingTime`, whose next timer is due an
  interval after the reading it fired at), a record when the emission is punctuated (`onEvent`); in
  either, a channel's end and the end of input.
- A firing carries the operator's watermark at that moment: the last one received before its event, or
  one received during its event (before it), and never one lower than an earlier firing's.
- Under a trigger that fires only on arrival (`CountTrigger`, `DeltaTrigger`, purging or not) every firing
  carries the watermark the operator had before the record's event: the record goes downstream before
  its generator sees it (`processElement`: `output.collect(element)`, then `onEvent`), so a punctuated
  watermark follows the firing its record caused.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.properties.harness import check_each, property_settings
from strategies.watermarks import generated_watermark_cases
from window_contract.case import (
    Case,
    CountTrigger,
    DeltaTrigger,
    EndOfChannel,
    ProcessingTime,
    PurgingTrigger,
    Record,
    Watermark,
    WatermarkStatus,
    innermost_trigger,
)
from window_contract.facts import LONG_MIN
from window_contract.observation import Observation


def periodic_emits(case: Case) -> set[int]:
    """The positions of the `processing_time` events at which the channels' periodic timer fires: it is
    due `interval` after the clock's reading when the operator opened (0) and after each firing, and
    fires once the clock has passed it (`SystemProcessingTimeService`: a delay of `t - now + 1`)."""
    interval = case.watermark_generator.interval
    due, now, fired = interval, 0, set()
    for at, e in enumerate(case.events):
        if isinstance(e, ProcessingTime) and interval > 0:
            now = max(now, e.time)
            if now > due:
                fired.add(at)
                due = now + interval
    return fired


def makes_a_watermark(case: Case, emits: set[int], at: int) -> bool:
    """Whether the event at `at` can make the operator's watermark move (module docstring)."""
    if at == len(case.events):
        return True
    e = case.events[at]
    if isinstance(e, EndOfChannel):
        return True
    if case.watermark_generator is None:
        return isinstance(e, Watermark) or (isinstance(e, WatermarkStatus) and e.idle)
    return at in emits or (isinstance(e, Record) and case.watermark_generator.punctuated)


def fires_only_on_arrival(case: Case) -> bool:
    """A count or delta trigger, inside purging ones or none: it fires only as an element arrives (inside a
    `ProcessingTimeoutTrigger` it fires on timers too)."""
    return isinstance(innermost_trigger(case.trigger, through=(PurgingTrigger,)), CountTrigger | DeltaTrigger)


def watermarks_where_flink_makes_them(case: Case, observation: Observation) -> str | None:
    if observation.error is not None or observation.watermarks is None:
        return None
    emits = periodic_emits(case) if case.watermark_generator is not None else set()
    received: dict[int, list[int]] = {}
    for w in observation.watermarks:
        if w.at is None:
            continue
        if not makes_a_watermark(case, emits, w.at):
            return (f"the operator received the watermark {w.watermark} at position {w.at}, a "
                    f"{case.events[w.at].tag} event, which makes none there")
        received.setdefault(w.at, []).append(w.watermark)
    last = LONG_MIN
    for f in observation.firings:
        if f.at is None or f.watermark is None:
            continue
        before = max((w.watermark for w in observation.watermarks if w.at is not None and w.at < f.at),
                     default=LONG_MIN)
        if fires_only_on_arrival(case) and f.watermark != before:
            return (f"the firing of {f.window} at position {f.at} (a trigger that fires on arrival) carries the "
                    f"watermark {f.watermark}, not {before}, the operator's before that event")
        if f.watermark != before and f.watermark not in received.get(f.at, []):
            return (f"the firing of {f.window} at position {f.at} carries the watermark {f.watermark}: the operator "
                    f"had {before} before that event and received {received.get(f.at, [])} during it")
        if f.watermark < last:
            return f"the firing of {f.window} at position {f.at} carries the watermark {f.watermark}, below {last}"
        last = f.watermark
    return None


@pytest.mark.positions
@property_settings()
@given(data=st.data())
def test_watermarks_arrive_where_flink_makes_them(data, suite, tally):
    """Each watermark the operator receives sits where Flink's classes put it among the records, clock
    readings and firings (module docstring)."""
    if not any(f.startswith("watermark.") for f in suite.features) and "channels" not in suite.features:
        return  # the implementation makes no watermark case: nothing to hold it to
    batch = data.draw(st.lists(generated_watermark_cases(suite.features, mixed=True), min_size=1, max_size=6),
                      label="batch")
    check_each("each watermark arrives where Flink makes it", batch, suite.run(batch, tally),
               watermarks_where_flink_makes_them)

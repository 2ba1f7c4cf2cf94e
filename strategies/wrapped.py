"""The wrapped-session family: event-time sessions near `Long.MAX_VALUE` that `MergingWindowSet` merges
without the window that made it merge (opt-in with `extreme_values`; `strategies.extreme_cases`
draws it).

`withDynamicGap(value)` sessions A, B and C start near `Long.MAX_VALUE`; B's end `ts + gap` wraps to
`Long.MIN_VALUE + k`, so B is inverted: `[b, Long.MIN_VALUE + k)`. `TimeWindow.mergeWindows` sorts
windows by start and merges each with the run before it only when they intersect, so B keeps apart A
and C, which overlap across it. A watermark then cleans B up (its `maxTimestamp` is far below 0), and
the next record, far from them, makes `MergingWindowSet.addWindow` merge A and C without the new
window. Two shapes of that merge, each half the time:

- *A contains C*: the merge's result is A itself, which `addWindow` also lists among the merged
  windows, so `WindowOperator`'s merge function clears A's trigger and deletes A's cleanup timer: A
  lives on without timers;
- *a fresh cover* `[A.start, C.end)`: no element enters it, so only the trigger's `onMerge` gives it
  a timer (`WindowOperator` registers a cleanup timer only for the window an element went to).

Processing time may stand at the merged window's `maxTimestamp` when it is made
(`ProcessingTimeTrigger.onMerge` registers only a later time) and, once it is made, pass that
`maxTimestamp` (or stop one short) or jump anywhere near `Long.MAX_VALUE`. Then, mostly, the
watermark reaches the merged window's cleanup time (one either side) and a record joins it.
The trigger is one whose timers (or state) the merge moves: the default `EventTimeTrigger`, a
`ProcessingTimeTrigger`, a `CountTrigger` (whose count `onMerge` adds up), or one of them purging. Not
a continuous one: firing among these sessions, its next time `time + interval` wraps past
`Long.MAX_VALUE` and it fires for ever, or about 2^64 / interval times (the contract's `TOO_MANY_OUTPUTS`
or `NEVER_ENDS`: seconds in every implementation, the job's timeout in the Flink runner).
"""

from __future__ import annotations

from hypothesis import strategies as st

from strategies.specs import EXTREME_SCALE, Drawing
from strategies.streams import ONE_EITHER_SIDE
from strategies.weights import weighted
from window_contract.case import (
    Case,
    CountTrigger,
    DynamicSession,
    Event,
    ProcessingTime,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Record,
    TriggerSpec,
    Watermark,
)
from window_contract.facts import LONG_MAX, LONG_MIN

WINDOW = DynamicSession("value", "event")


def family_triggers(features: frozenset[str]) -> st.SearchStrategy[TriggerSpec | None]:
    """The default trigger most often; the others `features` allow, a purging one now and then."""
    d = Drawing(features, EXTREME_SCALE)
    branches: list[tuple[int, st.SearchStrategy[TriggerSpec | None]]] = [(4, st.none())]
    if d.allows(ProcessingTimeTrigger):
        branches.append((3, st.just(ProcessingTimeTrigger())))
    if d.allows(CountTrigger):
        branches.append((1, st.integers(1, 3).map(CountTrigger)))
    if d.allows(PurgingTrigger) and len(branches) > 1:
        inner = st.one_of([strategy for _, strategy in branches[1:]])
        branches.append((1, inner.map(PurgingTrigger)))
    return weighted(*branches)


@st.composite
def wrapped_session_cases(draw, features: frozenset[str]) -> Case:
    """A case of the family (module docstring), without its end of input."""
    lateness = draw(st.integers(0, 100)) if "allowed_lateness" in features else 0
    a = draw(st.integers(3, 100))
    b = draw(st.integers(2, a - 1))
    c = draw(st.integers(1, b - 1))
    k = draw(st.integers(2, 20))
    # A and C end at most at `top`: their `maxTimestamp + lateness` stays in range (else the merge fails),
    # and a record at `top` still has a positive gap that does not wrap
    top = LONG_MAX - 1 - lateness - draw(st.integers(0, 50))
    contained = draw(st.booleans())
    # A reaches C's start (a gap of a - c) and, when it contains C, past it
    a_gap = draw(st.integers(a - c + 1, a) if contained else st.integers(a - c, a - 1))
    reach = a_gap - (a - c)  # how far A reaches into C
    first = (top - a, a_gap)
    wrapped = (top - b, LONG_MAX - top + b + 1 + k)  # B ends at Long.MIN_VALUE + k, maxTimestamp above it
    third = (top - c, draw(st.integers(1, reach) if contained else st.integers(reach + 1, c)))
    end = max(first[0] + first[1], third[0] + third[1])  # the merged window's end
    # B comes before A or C does: A and C never meet without it between them
    order = draw(st.sampled_from([(wrapped, first, third), (wrapped, third, first), (first, wrapped, third),
                                  (third, wrapped, first)]))
    cleanup = LONG_MIN + k - 1 + lateness  # B's maxTimestamp + lateness: cannot overflow
    watermark = draw(st.sampled_from([cleanup, max(cleanup, 0)])) if "negative_timestamps" in features \
        else max(cleanup, 0)
    events: list[Event] = [*(Record("a", gap, ts) for ts, gap in order), Watermark(watermark)]
    trigger = draw(family_triggers(features))
    processing, now = "time.processing" in features, 0
    if processing and draw(st.booleans()):  # the clock at the merged window's maxTimestamp when it is made
        now = end - 1 + draw(ONE_EITHER_SIDE)
        events.append(ProcessingTime(now))
    events.append(Record("a", draw(st.integers(1, 10)), min(watermark + draw(st.integers(1, 1000)), top - 2 * a)))
    if processing and draw(st.sampled_from([True, True, True, False])):
        # processing time passes the merged window's maxTimestamp (or stops one short), or goes anywhere
        # near the end of the range
        at = draw(st.one_of(ONE_EITHER_SIDE.map(lambda d: end - 1 + d), st.integers(top - 2 * a, LONG_MAX)))
        events.append(ProcessingTime(max(now, at)))
    if draw(st.sampled_from([True, True, True, False])):
        # The watermark reaches the merged window's cleanup time, then a record joins it and, mostly,
        # reaches past its end (a merge that is not late).
        events.append(Watermark(end - 1 + lateness + draw(ONE_EITHER_SIDE)))
        ts = end - draw(st.integers(0, 20))
        events.append(Record("a", draw(st.integers(1, min(40, LONG_MAX - ts))), ts))
    late_side_output = "late_side_output" in features and draw(st.booleans())
    return Case(window=WINDOW, events=tuple(events), trigger=trigger, allowed_lateness=lateness,
                late_side_output=late_side_output)

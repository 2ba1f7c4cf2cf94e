"""Spark against real Flink on the edges of the `long` range, where Spark switches pipelines.

`spark_impl` computes a case with the relational pipeline (joins and aggregations) only when no sum
in it can leave the `long` range, and replays Flink's operator in exact Java arithmetic otherwise;
the reference is a third implementation, so a differential test of Spark against the reference alone
would not show that Spark agrees with Flink where the reference and Flink might share a mistake. This
test compares `spark` with `flink` directly on the families where a pipeline boundary meets Flink's
wrapping arithmetic (issue 21):

- times and window parameters in the band just inside +-2^62 (`EXTREME`), and just past it;
- sliding windows whose `start -= slide` wraps past `Long.MIN_VALUE` (`SlidingEventTimeWindows`);
- allowed lateness near `Long.MAX_VALUE`, where `cleanupTime` saturates and `ts + allowedLateness`
  wraps (`WindowOperator.cleanupTime`, `isElementLate`), and mid-case `Long.MAX_VALUE` watermarks.

The strategy is this module's own (`strategies/` aims at Flink's rules at ordinary magnitudes); it
leaves out records whose wrapped loop yields more than `MAX_WINDOWS` windows (the case files in
`cases/sliding/` hold loops up to and past the contract's 10,000-window limit). Each
example is a batch of cases run through each implementation in one `run` call (each call is a job);
a difference shrinks to one case. Under the `ci` profile the examples are the same on every run.
"""

from __future__ import annotations

import pytest
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from flink_impl import FlinkImplementation
from spark_impl.implementation import SparkImplementation, is_relational
from spark_impl.spec import invalid_spec_message
from spark_impl.windows import AssignerFailure, assign_windows
from window_contract import Case, EventTimeTrigger, PurgingTrigger, difference, record, sliding, tumbling, watermark
from window_contract.case import CountTrigger, Record, Sliding, Tumbling, dumps_case
from window_contract.facts import EXTREME, LONG_MAX, LONG_MIN, WINDOWS_PER_ELEMENT_LIMIT

pytestmark = [pytest.mark.spark, pytest.mark.flink]

SPARK, FLINK = SparkImplementation(), FlinkImplementation()
#: Examples of the test, each one `run` call of each implementation (a warm Spark job costs most of it,
#: whatever the batch's size, so the batches are large: about 36 cases on average).
EXAMPLES = 4
#: The most windows a generated record may be in.
MAX_WINDOWS = 100


def around(anchor: int, spread: int = 3) -> st.SearchStrategy[int]:
    """Integers within `spread` of `anchor`, inside the `long` range."""
    return st.integers(max(LONG_MIN, anchor - spread), min(LONG_MAX, anchor + spread))


#: Times just inside -2^62 and 2^62 or anywhere between (where Spark may compute relationally), and
#: the same or just past the band (where Spark replays the case). The bottom of the band comes twice as
#: often: sliding loops wrap there.
bottom = st.integers(-EXTREME + 1, -EXTREME + 4)
times_inside = st.one_of(bottom, bottom, st.integers(EXTREME - 4, EXTREME - 1), st.integers(-EXTREME + 1, EXTREME - 1))
times_across = st.one_of(times_inside, st.sampled_from([-EXTREME, EXTREME, -EXTREME - 1]))
#: Allowed lateness: none, small, in the band, or so large that sums with it wrap or saturate.
lateness = st.one_of(st.just(0), st.integers(1, 1_000), around(EXTREME - 2),
                     around(LONG_MAX - 3), st.integers(0, LONG_MAX))


@st.composite
def band_windows(draw) -> Tumbling | Sliding:
    """A tumbling or sliding window with parameters near or above 2^60 (where `size + slide` crosses
    `2^62`), with an element in at most a few windows unless the sliding loop wraps."""
    # Large slides of no particular form make wrapped loops that end after a few passes through the range
    # (a slide near 2^62 or 2^61 drifts a few ms a pass: millions of windows).
    slide = draw(st.one_of(st.integers(EXTREME - 4, EXTREME - 1), st.integers(2**60, EXTREME - 1),
                           st.integers(2**60, EXTREME - 1), st.integers(1, EXTREME - 1), st.just(EXTREME)))
    offset = draw(st.one_of(st.just(0), around(slide - 2, 1), around(-slide + 2, 1),
                            st.integers(-slide + 1, slide - 1)))
    if draw(st.sampled_from(["sliding", "sliding", "tumbling"])) == "tumbling":
        return tumbling(slide, offset)
    # size = k * slide + a little, inside the band: k windows an element, or none for k = 0 (size < slide)
    k = draw(st.sampled_from([1, 2, 3, 0]))
    size = max(1, min(EXTREME - 1, slide * k + draw(st.integers(-3, 3))))
    return sliding(size, slide, offset)


@st.composite
def edge_cases(draw) -> Case:
    """One case of the edge families; shrinks towards fewer events, the default trigger, no lateness."""
    window = draw(band_windows())
    late = draw(lateness)
    times = draw(st.sampled_from([times_inside, times_inside, times_across]))
    event_times = st.one_of(times, st.just(LONG_MAX))
    events = draw(st.lists(st.one_of(
        st.builds(record, st.sampled_from("ab"), st.integers(0, 9), times),
        st.builds(watermark, event_times)), min_size=1, max_size=6))
    # A wrapped loop may yield thousands of windows a record (up to the contract's 10,000, which its
    # case files cover): each costs seconds in each implementation, so such records are left out.
    if isinstance(window, Sliding) and not invalid_spec_message(Case(window=window)):
        events = [e for e in events if not isinstance(e, Record) or _window_count(window, e.ts) <= MAX_WINDOWS]
    # Mostly the default trigger (the relational pipeline); a purging count trigger goes to the replay.
    trigger = draw(st.sampled_from([None, None, None, EventTimeTrigger(), PurgingTrigger(CountTrigger(2))]))
    case = Case(window=window, events=events, trigger=trigger, allowed_lateness=late,
                late_side_output=draw(st.booleans()), end_of_input=draw(st.sampled_from([True, True, False])))
    _label(case)
    return case


def _label(case: Case) -> None:
    """`event()`s so the statistics show how often each family came up."""
    if invalid_spec_message(case):
        event("rejected by Flink")
        return
    event("relational pipeline" if is_relational(case) else "replayed per key")
    if isinstance(case.window, Sliding) and any(_loop_wraps(case.window, r.ts) for r in case.records):
        event("sliding loop wraps")
    if case.allowed_lateness >= EXTREME:
        event("lateness in the band or near Long.MAX_VALUE")


def _window_count(window: Sliding, ts: int) -> int:
    """How many windows `SlidingEventTimeWindows.assignWindows` yields for `ts` (past the contract's
    limit: more than it)."""
    try:
        return len(assign_windows(window, ts, 0))
    except AssignerFailure:
        return WINDOWS_PER_ELEMENT_LIMIT + 1


def _loop_wraps(window: Sliding, ts: int) -> bool:
    """Whether `start -= slide` passes `Long.MIN_VALUE` for `ts`: a window starts above `ts`, or the
    contract stopped the loop (`SlidingEventTimeWindows.assignWindows`)."""
    try:
        return any(w.start > ts for w in assign_windows(window, ts, 0))
    except AssignerFailure:
        return True


#: A batch is a list of groups of cases, flattened: a flat list of cases would hold 6 on average;
#: shrinking still deletes cases one by one, down to one.
batches = st.lists(st.lists(edge_cases(), min_size=1, max_size=10), min_size=1, max_size=10).map(
    lambda groups: [case for group in groups for case in group])


@settings(max_examples=EXAMPLES)
@given(batches)
def test_spark_agrees_with_flink_near_the_long_bounds(cases):
    flink, spark = FLINK.run(cases), SPARK.run(cases)
    differing = [(case, d) for case, f, s in zip(cases, flink, spark, strict=True) if (d := difference(f, s))]
    for case, d in differing:
        note(f"{dumps_case(case)}\nflink -> spark:\n{d}")
    assert not differing, f"{len(differing)} of {len(cases)} cases differ (see the notes)"

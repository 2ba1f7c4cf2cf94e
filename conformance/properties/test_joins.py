"""Flink's DataStream joins of two inputs (`join-case/1`), in Flink's terms, for an implementation that declares
them (`join.window`, `join.cogroup`, `join.interval`; `joins.py` sends the cases and prefetches them).

The rules, each from the class that makes it:

- the implementation observes what the reference observes (the differential rule);
- `IntervalJoinOperator`: every pair of partners is joined exactly once, found by brute force over the two inputs
  (the same key, `right.ts - left.ts` within the bounds made inclusive, neither late, the earlier one not yet
  removed by its cleanup timer when the later arrives: the timer fires when the watermark advances to it); no pair
  lies outside the bounds; a pair's timestamp is the larger of its two; a record behind the operator's watermark is
  late: never joined, on its input's late output when that input has one, else dropped, and a record that is not
  late is neither;
- `CoGroupedStreams` over tumbling windows: every window of a key that holds an element fires once, with both
  lists, also when one of them is empty;
- every committed join case (`cases/**/*.join.json`, with the observation real Flink gave) gives its expected
  observation;
- Flink SQL's `WindowJoinOperator`: each window of a key makes, by the join's type, its rows of the values its
  window table function put in it on time (pairs, null-padded rows of an outer side, semi and anti joins' left
  rows), each emitted once, when the operator's watermark first reaches the window's last millisecond; a row late
  for its window is dropped; its interval join (`RowTimeIntervalJoin`) pads an outer side's row at most once, never
  one it joined, and only once the operator's time has reached the last time a partner can have, and pairs only
  rows within its bounds (`sql_joins.py`);
- both joins' watermark is the minimum over their inputs (the union's `StatusWatermarkValve`, the two-input
  operator's `IndexedCombinedWatermarkStatus`): without idleness, no operator watermark is ahead of what either
  input has sent, so one input's watermark holds the other's back.

The brute force takes the operator's watermarks from the observation (the differential rule checks them against
the reference's, the last rule against the inputs'). The rules that read positions or the operator's watermarks are
`positional`: not applicable to a position-free implementation's join observations, which have neither (the
differential rule and the committed cases compare its outputs over whole cases).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.committed import committed
from conformance.evidence import NOT_APPLICABLE, JoinPropertyViolation
from conformance.properties.harness import property_settings
from conformance.properties.joins import check_join_cases, compare_joins_with_reference, join_property
from conformance.properties.sql_joins import (
    interval_pairs_within_the_bounds,
    padded_once_and_only_without_a_partner,
    padded_when_no_partner_can_come,
    window_rows_exactly_once,
    window_rows_when_the_watermark_passes,
)
from conformance.properties.timeline import java_add
from strategies.joins import cogroup_tumbling_joins, interval_joins, join_cases, sql_interval_joins, sql_window_joins
from window_contract.case import EndOfChannel, Record, Watermark, WatermarkStatus
from window_contract.case_json import JOIN_CASES_SUFFIX
from window_contract.facts import LONG_MAX
from window_contract.join_case import IntervalJoin, JoinCase
from window_contract.join_case_json import load_join_cases
from window_contract.join_observation import CoGroup, JoinObservation, Pair, Side, join_difference, join_position_free

LONG_MIN = -(2**63)


@dataclass(frozen=True)
class Arrival:
    """A record of one input, where it arrived and the operator's watermark then."""

    at: int
    input: Side
    key: str
    value: int
    ts: int
    watermark: int


def watermark_before(observation: JoinObservation, at: int) -> int:
    """The operator's watermark when the event at `at` arrives: the last it received before it."""
    return max((w.watermark for w in observation.watermarks if w.at < at), default=LONG_MIN)


def arrivals(case: JoinCase, observation: JoinObservation) -> dict[tuple[Side, int], Arrival]:
    """Each input's records by input and value (a generated case's values are unique)."""
    return {(e.input, e.event.value): Arrival(at, e.input, e.event.key, e.event.value, e.event.ts,
                                              watermark_before(observation, at))
            for at, e in enumerate(case.events) if isinstance(e.event, Record)}


def inclusive_bounds(join: IntervalJoin) -> tuple[int, int]:
    """`IntervalJoinOperator`'s bounds: an exclusive one moved inwards by one."""
    return join.lower + join.lower_exclusive, join.upper - join.upper_exclusive


def within_bounds(join: IntervalJoin, left: Arrival, right: Arrival) -> bool:
    lower, upper = inclusive_bounds(join)
    return left.key == right.key and lower <= right.ts - left.ts <= upper


def cleanup_time(join: IntervalJoin, element: Arrival) -> int:
    """When `onEventTime` removes a buffered element: `ts + relativeUpper` (in Java `long`, which wraps) when that
    is positive, else `ts`."""
    lower, upper = inclusive_bounds(join)
    relative_upper = upper if element.input == "left" else -lower
    return java_add(element.ts, relative_upper) if relative_upper > 0 else element.ts


def still_buffered(join: IntervalJoin, observation: JoinObservation, earlier: Arrival, later: Arrival) -> bool:
    """Whether `earlier` is still in its buffer when `later` arrives: its cleanup timer fires only when the
    operator's watermark advances (`InternalTimerServiceImpl.advanceWatermark`) to its cleanup time after it came,
    so an element whose cleanup time the watermark has already reached stays until the next advance."""
    cleanup = cleanup_time(join, earlier)
    return not any(earlier.at < w.at < later.at and w.watermark >= cleanup for w in observation.watermarks)


def expected_pairs(case: JoinCase, observation: JoinObservation) -> Counter[tuple[int, int]]:
    """Every pair of partners, by brute force over both inputs: neither late, within the bounds, and the earlier
    one still buffered when the later one arrives."""
    records = arrivals(case, observation).values()
    on_time = {side: [r for r in records if r.input == side and r.ts >= r.watermark] for side in ("left", "right")}
    pairs: Counter[tuple[int, int]] = Counter()
    for left in on_time["left"]:
        for right in on_time["right"]:
            earlier, later = sorted((left, right), key=lambda r: r.at)
            if within_bounds(case.join, left, right) and still_buffered(case.join, observation, earlier, later):
                pairs[left.value, right.value] += 1
    return pairs


def pairs_joined_exactly_once(case: JoinCase, observation: JoinObservation) -> str | None:
    emitted = Counter((p.left, p.right) for p in observation.outputs if isinstance(p, Pair))
    expected = expected_pairs(case, observation)
    if emitted == expected:
        return None
    return (f"pairs (left value, right value) missing: {sorted((expected - emitted).elements())}, "
            f"emitted too often or not partners: {sorted((emitted - expected).elements())}")


def each_pair(case: JoinCase, observation: JoinObservation,
              wrong: Callable[[Pair, Arrival, Arrival], str | None]) -> str | None:
    """The first pair of the observation that is `wrong`, or that joins records the inputs do not have."""
    records = arrivals(case, observation)
    for pair in observation.outputs:
        left, right = records.get(("left", pair.left)), records.get(("right", pair.right))
        problem = (f"no left record {pair.left} or no right record {pair.right}" if left is None or right is None
                   else wrong(pair, left, right))
        if problem:
            return f"the pair at position {pair.at}: {problem}"
    return None


def no_pair_outside_the_bounds(case: JoinCase, observation: JoinObservation) -> str | None:
    lower, upper = inclusive_bounds(case.join)
    return each_pair(case, observation, lambda pair, left, right: None if within_bounds(case.join, left, right) else (
        f"left {left.key}={left.value} @ {left.ts} and right {right.key}={right.value} @ {right.ts}: "
        f"right.ts - left.ts = {right.ts - left.ts} is not in [{lower}, {upper}] of the same key"))


def pair_timestamp_is_the_larger(case: JoinCase, observation: JoinObservation) -> str | None:
    return each_pair(case, observation, lambda pair, left, right: None if pair.timestamp == max(left.ts, right.ts)
                     else f"timestamp {pair.timestamp}, not max({left.ts}, {right.ts})")


def late_records_go_to_their_sides_output(case: JoinCase, observation: JoinObservation) -> str | None:
    """A record behind the watermark at its arrival: in no pair, on its input's late output when that input has
    one (`sideOutputLeftLateData` / `sideOutputRightLateData`), else dropped; any other record in neither."""
    joined = {("left", p.left) for p in observation.outputs} | {("right", p.right) for p in observation.outputs}
    late = {(r.input, r.value) for r in observation.late}
    dropped = {(r.input, r.value) for r in observation.dropped}
    for (side, value), r in arrivals(case, observation).items():
        is_late = r.ts < r.watermark
        output = getattr(case.join, f"{side}_late_output")
        where = ("late output" if (side, value) in late else "dropped" if (side, value) in dropped else
                 "joined" if (side, value) in joined else "nowhere")
        belongs = ("late output" if output else "dropped") if is_late else "joined or nowhere"
        if where not in belongs:
            return (f"the {side} record {r.key}={value} @ {r.ts} at position {r.at}, when the watermark was "
                    f"{r.watermark}, is {where}: it belongs {belongs}")
    return None


def window_of(ts: int, size: int) -> int:
    """The start of a tumbling window of `size` that holds `ts` (offset 0)."""
    return ts - ts % size


def cogroup_windows(case: JoinCase, observation: JoinObservation) -> Counter:
    """The coGroup call of every window of a key that holds a record not dropped: `(key, maxTimestamp, lefts,
    rights)`."""
    size, dropped = case.join.window.size, {(r.input, r.value) for r in observation.dropped}
    windows: dict[tuple[str, int], dict[Side, list[int]]] = {}
    for (side, value), r in arrivals(case, observation).items():
        if (side, value) not in dropped:
            windows.setdefault((r.key, window_of(r.ts, size)), {"left": [], "right": []})[side].append(value)
    return Counter((key, start + size - 1, tuple(sorted(sides["left"])), tuple(sorted(sides["right"])))
                   for (key, start), sides in windows.items())


def one_side_empty(case: JoinCase) -> bool:
    """Whether a window of a key holds records of one input only (by the inputs alone)."""
    sides: dict[tuple[str, int], set[Side]] = {}
    for e in case.events:
        if isinstance(e.event, Record):
            sides.setdefault((e.event.key, window_of(e.event.ts, case.join.window.size)), set()).add(e.input)
    return any(len(s) == 1 for s in sides.values())


def every_window_cogrouped_once(case: JoinCase, observation: JoinObservation) -> str | None:
    if observation.error is not None or not observation.watermarks or observation.watermarks[-1].watermark < LONG_MAX:
        return None  # not every window fired: the end of input did not reach the operator
    emitted = Counter((c.key, c.timestamp, c.left_values, c.right_values) for c in observation.outputs
                      if isinstance(c, CoGroup))
    expected = cogroup_windows(case, observation)
    if emitted == expected:
        return None
    return (f"coGroup calls (key, maxTimestamp, lefts, rights) missing: {sorted((expected - emitted).elements())}, "
            f"unexpected: {sorted((emitted - expected).elements())}")


def highest_sent(case: JoinCase, side: Side, at: int) -> int:
    """The highest watermark input `side` has sent up to position `at` (`Long.MAX_VALUE` once a channel ended)."""
    sent = [e.event.timestamp if isinstance(e.event, Watermark) else LONG_MAX for e in case.events[:at + 1]
            if e.input == side and isinstance(e.event, Watermark | EndOfChannel)]
    ended = at >= len(case.events) and case.end_of_input
    return LONG_MAX if ended else max(sent, default=LONG_MIN)


def watermark_held_back_by_either_input(case: JoinCase, observation: JoinObservation) -> str | None:
    for w in observation.watermarks:
        for side in ("left", "right"):
            if w.watermark > highest_sent(case, side, w.at):
                return (f"the operator's watermark {w.watermark} at position {w.at} is ahead of the {side} input, "
                        f"which had sent at most {highest_sent(case, side, w.at)}")
    return None


def without_idleness(case: JoinCase) -> bool:
    return not any(isinstance(e.event, WatermarkStatus) for e in case.events)


def run_join_rule(data, join_suite, tally, rule: str, check, cases=None, keep=lambda case: True,
                  positional: bool = False) -> None:
    """Draw a batch of join cases, send those the implementation supports and `keep` in one call, check `rule`. A
    `positional` rule is not applicable to a position-free implementation's join observations."""
    batch = data.draw(st.lists(join_cases() if cases is None else cases, min_size=1, max_size=8), label="batch")
    batch = [c for c in batch if join_suite.fits(c) and keep(c)]
    if batch:
        observations = join_suite.run(batch, tally)
        if positional and any(join_position_free(o) for o in observations):
            pytest.skip(NOT_APPLICABLE)
        check_join_cases(rule, batch, observations, check)


INTERVAL_CASES = join_cases(specs=interval_joins())
SQL_WINDOW_CASES = join_cases(specs=sql_window_joins())
SQL_INTERVAL_CASES = join_cases(specs=sql_interval_joins())


@join_property
@property_settings(share=0.5)
@given(data=st.data())
def test_joins_match_reference(data, join_suite, tally):
    """Window joins, coGroups and interval joins observe what the reference observes."""
    batch = [c for c in data.draw(st.lists(join_cases(), min_size=1, max_size=8), label="batch") if join_suite.fits(c)]
    if batch:
        compare_joins_with_reference(join_suite, tally, batch)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_sql_join_matches_reference(data, join_suite, tally):
    """Flink SQL's window and interval joins observe what the reference observes."""
    batch = [c for c in data.draw(st.lists(SQL_WINDOW_CASES | SQL_INTERVAL_CASES, min_size=1, max_size=8),
                                  label="batch") if join_suite.fits(c)]
    if batch:
        compare_joins_with_reference(join_suite, tally, batch)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_sql_window_join_makes_each_windows_rows_once(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a SQL window join emits the rows its type makes of each window's on-time "
                  "records, each once, and drops the late ones", window_rows_exactly_once, SQL_WINDOW_CASES,
                  positional=True)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_sql_window_join_emits_a_window_when_the_watermark_passes_it(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a SQL window join emits a window's rows when the watermark first reaches "
                  "its last millisecond", window_rows_when_the_watermark_passes, SQL_WINDOW_CASES, positional=True)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_sql_interval_join_pads_a_row_once_and_only_without_a_partner(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a SQL interval join pads a row with nulls at most once, and never a row "
                  "it joined", padded_once_and_only_without_a_partner, SQL_INTERVAL_CASES, positional=True)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_sql_interval_join_pads_a_row_only_when_no_partner_can_come(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a SQL interval join pads a row only once the operator's time has reached "
                  "the last time a partner can have", padded_when_no_partner_can_come, SQL_INTERVAL_CASES,
                  positional=True)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_sql_interval_join_pairs_lie_within_the_bounds(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a SQL interval join pairs no rows outside its bounds",
                  interval_pairs_within_the_bounds, SQL_INTERVAL_CASES)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_interval_join_pairs_every_partner_exactly_once(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "an interval join emits every pair of partners exactly once",
                  pairs_joined_exactly_once, INTERVAL_CASES, positional=True)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_interval_join_pairs_lie_within_the_bounds(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "an interval join pairs no records outside its bounds",
                  no_pair_outside_the_bounds, INTERVAL_CASES)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_interval_join_pair_timestamp_is_the_larger(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "an interval join's pair has the larger of its two timestamps",
                  pair_timestamp_is_the_larger, INTERVAL_CASES)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_interval_join_late_record_goes_to_its_sides_late_output(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a late record is never joined and goes to its own input's late output "
                  "only when that input has one", late_records_go_to_their_sides_output, INTERVAL_CASES,
                  positional=True)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_cogroup_emits_every_window_also_with_one_side_empty(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a coGroup emits every window of a key once, also with one side empty",
                  every_window_cogrouped_once, join_cases(specs=cogroup_tumbling_joins()), one_side_empty,
                  positional=True)


@join_property
@property_settings(share=0.3)
@given(data=st.data())
def test_join_watermark_is_held_back_by_either_input(data, join_suite, tally):
    run_join_rule(data, join_suite, tally, "a join's watermark is never ahead of either input's",
                  watermark_held_back_by_either_input, keep=without_idleness, positional=True)


@functools.cache
def committed_join_cases() -> tuple[JoinCase, ...]:
    """Every join case of `cases/` with an expected observation (Flink's), each once."""
    files = sorted(committed("cases").rglob(f"*{JOIN_CASES_SUFFIX}"))
    return tuple(dict.fromkeys(c for f in files for c in load_join_cases(f) if c.expected is not None))


COMMITTED_RULE = "a committed join case gives the observation its file expects (Flink's)"


@join_property
@property_settings()
@given(data=st.data())
def test_committed_join_cases_give_their_expected_observations(data, join_suite, tally):
    """The committed join cases whose features the implementation declares, in one call (a test that draws
    nothing: it runs once)."""
    cases = [c for c in committed_join_cases() if join_suite.fits(c)]
    for case, got in zip(cases, join_suite.run(cases, tally) if cases else (), strict=True):
        detail = join_difference(case.expected, got)
        if detail:
            raise JoinPropertyViolation(COMMITTED_RULE, case, got, detail, case.expected)

"""Checking a saved counterexample's property again (`replay --check` on a case file that names it).

A counterexample that `python -m conformance run` saves names the property it breaks (`violates` in the
case format, `window_contract.case.Violates`), and `replay --check` checks that property again, so that
every saved case reproduces what it was saved for:

- a rule about one case and its observation (`PER_CASE`: a `check(case, observation)` of the suite's
  modules) runs the case and applies the check, the order of firings within one position included;
- the differential rules (`DIFFERENTIAL`) compare with the case's `expected` observation, as every case file
  is compared;
- a rule that compares several runs (`COMPARISONS`) runs them again: the case with its restrictions to each
  key, its batch (alone, in the batch, reversed, twice), or the `original` case the rule changed into this
  one, and makes the rule's comparison.

`violates(name, case, calls)` says, when the run saves a counterexample, what the rule needs: the batch the
case was run in, or the original it was made from, found among the `run` calls of the failing example.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from conformance.properties import (
    test_event_time,
    test_firings,
    test_lateness,
    test_watermark_positions,
    test_watermarks,
)
from conformance.properties.test_isolation import outputs_of_key, restricted_to_key
from conformance.properties.test_metamorphic import shifted
from conformance.properties.test_watermarks import split_channel, without_watermarks
from window_contract.case import Case, Violates
from window_contract.difference import difference
from window_contract.observation import Observation, remapped

#: One `run` call of an implementation.
Run = Callable[[list[Case]], list[Observation]]

#: The rules about one case and its observation, by property.
PER_CASE = {
    "event_time_window_never_fires_before_watermark_reaches_max_timestamp":
        test_event_time.never_fires_before_watermark_reaches_max_timestamp,
    "window_fires_once_watermark_passes_max_timestamp": test_event_time.fires_once_watermark_passes_max_timestamp,
    "late_firings_contain_everything_the_window_held": test_event_time.late_firings_contain_everything_the_window_held,
    "fired_values_lie_in_their_window": test_firings.fired_values_lie_in_their_window,
    "firing_timestamp_is_max_timestamp": test_firings.firing_timestamp_is_max_timestamp,
    "firing_watermark_is_the_current_watermark": test_firings.firing_watermark_is_the_current_watermark,
    "outputs_come_in_event_order": test_firings.outputs_come_in_event_order,
    "timers_fire_in_timestamp_order": test_firings.timers_fire_in_timestamp_order,
    "no_empty_firing_without_evictor": test_firings.no_empty_firing_without_evictor,
    "rejected_specification_has_no_outputs": test_firings.rejected_specification_has_no_outputs,
    "nothing_accepted_after_cleanup_time": test_lateness.nothing_accepted_after_cleanup_time,
    "side_output_exactly_for_elements_whose_every_window_is_late": test_lateness.side_output_exactly_for_late_elements,
    "every_record_is_accounted_for": test_lateness.every_record_is_accounted_for,
    "generated_watermark_follows_its_generators_formula": test_watermarks.channel_watermark_follows_formula,
    "operator_watermark_never_decreases": test_watermarks.operator_watermark_increases,
    "no_record_within_the_bound_is_late": test_watermarks.records_within_bound_are_not_late,
    "watermarks_arrive_where_flink_makes_them": test_watermark_positions.watermarks_where_flink_makes_them,
}

#: The rules that compare with the reference: a case file's `expected` is the reference's observation.
DIFFERENTIAL = frozenset({"matches_reference", "matches_reference_at_long_extremes", "watermark_cases_match_reference",
                          "committed_cases_give_their_expected_observations"})


class IncompleteCounterexample(ValueError):
    """A case file names a rule that compares several runs, without the cases it compares."""


@dataclass(frozen=True)
class Comparison:
    """A rule that compares several runs: what it needs besides the case (`needs`: `batch`, `original` or
    nothing), how the run finds that among the failing example's calls, and the comparison itself."""

    needs: str | None
    find: Callable[[Case, Sequence[tuple[Case, ...]]], object]
    compare: Callable[[Case, Violates, Run], str | None]


def keys_alone(case: Case, _: Violates, run: Run) -> str | None:
    """Each key's outputs are those of the case restricted to that key (`test_keys_do_not_interact`)."""
    keys = sorted({r.key for r in case.records})
    restrictions = [(key, *restricted_to_key(case, key)) for key in keys] if len(keys) > 1 else []
    whole, *alone = run([case] + [restricted for _, restricted, _ in restrictions])
    if whole.error is not None and whole.error.kind == "runtime":
        return None
    for (key, _, positions), observed in zip(restrictions, alone, strict=True):
        detail = difference(outputs_of_key(whole, key), outputs_of_key(observed, key, positions))
        if detail:
            return f"key {key!r} (left: in the case, right: alone):\n{detail}"
    return None


def alone_and_in_batch(case: Case, violates: Violates, run: Run) -> str | None:
    """The same observation alone, in the batch and in the reversed batch (`test_same_observation_alone_...`)."""
    batch = list(violates.batch)
    index = [replace(c, name=None) for c in batch].index(replace(case, name=None))  # the saved case is named
    in_batch = run(batch)
    [alone] = run([batch[index]])
    reversed_batch = run(batch[::-1])[::-1]
    for i, _ in enumerate(batch):
        detail = difference(in_batch[i], reversed_batch[i])
        if detail:
            return f"case {i} of the batch, in the batch (left) and in the reversed batch (right):\n{detail}"
    detail = difference(alone, in_batch[index])
    return f"alone (left) and in a batch (right):\n{detail}" if detail else None


def run_twice(case: Case, violates: Violates, run: Run) -> str | None:
    """The same batch run twice gives the same observations (`test_same_observation_when_run_twice`)."""
    batch = list(violates.batch)
    first, second = run(batch), run(batch)
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        detail = difference(a, b)
        if detail:
            return f"case {i} of the batch, first run (left), second run (right):\n{detail}"
    return None


def _changed(compare: Callable[[Case, Case, Observation, Observation], tuple[Observation, Observation]]):
    """A comparison of the original case and this one, run in one call as the rule runs them."""

    def comparison(case: Case, violates: Violates, run: Run) -> str | None:
        original, variant = run([violates.original, case])
        return difference(*compare(violates.original, case, original, variant)) or None

    return comparison


def _inserted_at(original: Case, variant: Case) -> int:
    """Where `variant` has the one event more that `original` lacks."""
    pairs = zip(original.events, variant.events, strict=False)
    return next((at for at, (a, b) in enumerate(pairs) if a != b), len(original.events))


def _ignored_watermark(original, variant, want, got):
    return shifted(want, _inserted_at(original, variant)), got


def _final_watermark(original, variant, want, got):
    return want, got


def _idle_channel(original, variant, want, got):
    return remapped(without_watermarks(want), lambda at: at + 1), without_watermarks(got)


def _split_channel(original, variant, want, got):
    return remapped(without_watermarks(want), split_channel(original, [False])[1]), without_watermarks(got)


def _one_event_less(case: Case, calls: Sequence[tuple[Case, ...]]) -> Case | None:
    """The case of the call that `case` is with one event inserted."""
    for other in (c for call in calls for c in call):
        if len(other.events) + 1 == len(case.events):
            at = _inserted_at(other, case)
            if replace(case, events=case.events[:at] + case.events[at + 1:]) == other:
                return other
    return None


def _before_it(case: Case, calls: Sequence[tuple[Case, ...]]) -> Case | None:
    """The case sent right before `case` (the rule sends each original before its change)."""
    for call in calls:
        for before, after in zip(call, call[1:], strict=False):
            if after == case:
                return before
    return None


def _batch_of(case: Case, calls: Sequence[tuple[Case, ...]]) -> tuple[Case, ...] | None:
    return next((call for call in calls if case in call), None)


COMPARISONS = {
    "keys_do_not_interact": Comparison(None, lambda case, calls: None, keys_alone),
    "same_observation_alone_and_in_a_batch": Comparison("batch", _batch_of, alone_and_in_batch),
    "same_observation_when_run_twice": Comparison("batch", _batch_of, run_twice),
    "repeated_or_lower_watermark_changes_nothing_but_positions":
        Comparison("original", _one_event_less, _changed(_ignored_watermark)),
    "end_of_input_is_a_final_max_watermark": Comparison(
        "original", lambda case, calls: replace(case, events=case.events[:-1]), _changed(_final_watermark)),
    "idle_channel_does_not_hold_windows_back": Comparison("original", _before_it, _changed(_idle_channel)),
    "splitting_a_channel_changes_nothing_but_positions": Comparison("original", _before_it, _changed(_split_channel)),
}

#: Every property of the suite that `replay --check` checks again.
PROPERTIES = frozenset(PER_CASE) | DIFFERENTIAL | frozenset(COMPARISONS)


def violates(name: str, case: Case, calls: Sequence[tuple[Case, ...]]) -> Violates:
    """What a counterexample of property `name` keeps: the batch or the original its rule compares it with,
    found among the `run` calls of the example that broke it."""
    comparison = COMPARISONS.get(name)
    if comparison is None or comparison.needs is None:
        return Violates(name)
    found = comparison.find(case, calls)
    if comparison.needs == "batch":
        return Violates(name, batch=tuple(found or ()))
    return Violates(name, original=found)


def recheck(case: Case, observation: Observation, run: Run) -> str | None:
    """What is wrong when the case's property (`case.violates`) is checked again on the implementation's
    `observation` of it (and the runs `run` makes), or `None` when it holds; `None` too for a differential rule
    or a property this suite does not know (the case's `expected` decides)."""
    name = case.violates.property
    if name in PER_CASE:
        return PER_CASE[name](case, observation)
    comparison = COMPARISONS.get(name)
    if comparison is None:
        return None
    if comparison.needs is not None and not getattr(case.violates, comparison.needs):
        raise IncompleteCounterexample(f"violates: {name} compares the case with its {comparison.needs}, which "
                                       "the file does not hold")
    return comparison.compare(case, case.violates, run)



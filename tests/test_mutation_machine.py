"""The machine mutation run: its operators, how it judges a mutant in a forked child, its score and its
equivalence file."""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

import pytest

from conformance.mutation.loader import reference_dir
from conformance.mutation.machine import (
    Exemptions,
    Verdict,
    all_mutants,
    reaching,
    read_exemptions,
    record_baseline,
    run_mutants,
    sample,
    score,
    within,
)
from conformance.mutation.machine_mutants import MachineMutant, module_mutants, reference_modules
from window_contract.case import Case, record, tumbling, watermark
from window_contract.join_case_json import load_join_cases

SOURCE = '''"""A module docstring: 1 < 2 stays."""
LIMIT = 10


@decorated(flag=True)
def f(a: int = 3, b=None) -> bool:
    """The docstring."""
    if a < b and not a:
        a += 1
    return min(a, b) == 0 or [x for x in b if x]
'''


def test_every_operator_changes_one_node_and_leaves_docstrings_annotations_and_decorators():
    mutants = {m.key for m in module_mutants("m", SOURCE)}
    assert {
        "m: 10 -> 11", "m: 10 -> 9",  # a module-level constant
        "m:f: a < b -> (a <= b)", "m:f: a < b and not a -> (a < b or not a)", "m:f: not a -> a",
        "m:f: a < b and not a -> (not (a < b and (not a)))",  # the condition of `if` negated
        "m:f: a += 1 -> a -= 1", "m:f: 1 -> 2", "m:f: 1 -> 0", "m:f: min -> max",
        "m:f: min(a, b) == 0 -> (min(a, b) != 0)",
        "m:f: a += 1 -> pass", "m:f: x -> (not x)", "m: 3 -> 4",  # a default runs where its function is defined
    } <= mutants
    assert not any("docstring" in k or "1 < 2" in k or "flag" in k or "int" in k or "bool" in k for k in mutants)
    for m in module_mutants("m", SOURCE):
        assert m.source != SOURCE
        ast.parse(m.source)  # every mutant is a real variant: it compiles


def test_a_key_names_the_mutant_whatever_lines_come_before_it():
    moved = SOURCE.replace("LIMIT = 10\n", "LIMIT = 10\nOTHER = 'x'\n\n\n")
    before = {m.key: m.line for m in module_mutants("m", SOURCE) if m.function}
    after = {m.key: m.line for m in module_mutants("m", moved) if m.function}
    assert before.keys() == after.keys() and all(after[k] == before[k] + 3 for k in before)


def test_the_same_change_twice_in_a_function_gets_two_keys():
    twice = "def g(a):\n    a = a + 1\n    return a + 1\n"
    assert {"m:g: a + 1 -> (a - 1)", "m:g: a + 1 -> (a - 1) #2"} <= {m.key for m in module_mutants("m", twice)}


def test_every_reference_module_is_mutated_and_each_mutant_named_once():
    mutants = all_mutants()
    modules = {m.module for m in mutants}
    assert {"operator", "triggers", "assigners", "windows", "timers", "watermarks.valve",
            "watermarks.generators"} <= modules <= set(reference_modules(reference_dir()))
    assert len({m.key for m in mutants}) == len(mutants) >= 1000
    assert {m.operator for m in mutants} == {"compare", "arithmetic", "constant", "negate", "boolean", "min_max",
                                              "remove"}


CASES = [Case(window=tumbling(10), events=[record("a", 1, 5), watermark(9)]),
         Case(window=tumbling(10), events=[record("a", 1, 5)], end_of_input=False)]


def mutant_of(module: str, function: str, original: str, replacement: str) -> MachineMutant:
    path = reference_modules(reference_dir())[module]
    [found] = [m for m in module_mutants(module, path.read_text(encoding="utf-8"))
               if m.function == function and m.original == original and m.replacement == replacement]
    return found


@pytest.fixture(scope="module")
def baseline():
    return record_baseline(CASES)


def test_the_baseline_notes_the_reference_lines_each_case_executes(baseline):
    fires = mutant_of("windows", "TimeWindow.max_timestamp", "end - 1", "(end + 1)")
    assert all(observation.error is None for observation in baseline.observations)
    assert sorted(reaching(baseline, fires)) == [0, 1]
    on_time = mutant_of("triggers", "EventTimeTrigger.on_event_time",
                        "time == window.max_timestamp()", "(time != window.max_timestamp())")
    assert reaching(baseline, on_time) == [0]  # the second case never reaches a watermark


def test_a_mutant_is_killed_survives_or_times_out_in_its_own_child(baseline):
    killed = mutant_of("windows", "TimeWindow.max_timestamp", "end - 1", "(end + 1)")
    # the operator tells its listener, NO_TRACE outside `explain`, of each assignment: nothing observed
    survives = mutant_of("operator", "WindowOperator.process_element",
                         "self.listener.assigned(key, value, timestamp, windows)", "pass")
    original = reference_modules(reference_dir())["windows"].read_text(encoding="utf-8")
    looping = MachineMutant("windows", "TimeWindow.max_timestamp", "remove", killed.line, killed.line, "test",
                            "loop", 0, original.replace("end - 1 if", "next(n for n in iter(int, 1) if n) if"))
    verdicts = run_mutants(baseline, [killed, survives, looping], jobs=2, timeout=lambda seconds: 3)
    outcomes = {v.mutant.replacement: v.outcome for v in verdicts}
    assert outcomes == {"(end + 1)": "killed", "pass": "survived", "loop": "timed out"}


def test_a_module_level_change_reaches_every_case(baseline):
    [constant] = [m for m in module_mutants("javalong", reference_modules(reference_dir())["javalong"].read_text())
                  if not m.function][:1]
    assert sorted(reaching(baseline, constant)) == [0, 1]


def test_a_function_that_importing_or_building_the_reference_runs_reaches_every_case(baseline):
    # TriggerResult.__init__ runs only when triggers.py is imported; ReferenceImplementation.__init__ before any case
    at_import = mutant_of("triggers", "TriggerResult.__init__",
                          "self.name, self.is_fire, self.is_purge = name, is_fire, is_purge", "pass")
    at_build = mutant_of("implementation", "ReferenceImplementation.__init__",
                         "self.window_start, self.name, self.dialect = window_start, name, dialect", "pass")
    assert sorted(reaching(baseline, at_import)) == sorted(reaching(baseline, at_build)) == [0, 1]


def test_recording_the_baseline_leaves_this_process_its_reference_classes():
    # the baseline imports the reference anew to trace it; the classes others imported must stay the ones in use
    import reference.assigners
    import reference.triggers
    from reference.triggers import EventTimeTrigger

    record_baseline(CASES[:1])
    assert sys.modules["reference.triggers"] is reference.triggers
    assert isinstance(reference.assigners.TumblingWindows(5, 0, True).default_trigger(), EventTimeTrigger)


def verdict(module: str, key: str, outcome: str) -> Verdict:
    return Verdict(MachineMutant(module, "f", "remove", 1, 1, key, "pass", 0, ""), outcome)


def test_the_score_leaves_out_equivalent_mutants_and_modules_out_of_scope():
    exemptions = Exemptions({"m:f: b -> pass": "why"}, {"explain": "narration"})
    verdicts = [verdict("m", "a", "killed"), verdict("m", "b", "survived"), verdict("m", "c", "timed out"),
                verdict("m", "d", "not reached"), verdict("explain", "e", "survived")]
    result = score(verdicts, exemptions)
    assert (result.killed, result.scored, result.wrongly_equivalent) == (2, 3, [])
    assert result.counts["explain"] == Counter({"out of scope": 1})
    assert score([verdict("m", "b", "killed")], exemptions).wrongly_equivalent == ["m:f: b -> pass"]


def test_a_package_out_of_scope_takes_its_modules_with_it():
    exemptions = Exemptions({}, {"dialects": "other engines' rules"})
    verdicts = [verdict("dialects.lateness", "a", "survived"), verdict("dialects", "b", "survived"),
                verdict("dialects_x", "c", "survived")]
    assert score(verdicts, exemptions).counts == {"dialects.lateness": Counter({"out of scope": 1}),
                                                  "dialects": Counter({"out of scope": 1}),
                                                  "dialects_x": Counter({"survived": 1})}


def test_a_sample_is_the_same_whatever_order_the_mutants_come_in():
    mutants = module_mutants("m", SOURCE)
    assert {m.key for m in sample(mutants, 5)} == {m.key for m in sample(list(reversed(mutants)), 5)}
    assert len(sample(mutants, 5)) == 5 and sample(mutants, None) == mutants


def test_only_keeps_the_mutants_of_one_module_or_package_and_refuses_an_unknown_name():
    mutants = module_mutants("watermarks.valve", SOURCE) + module_mutants("watermarks_x", SOURCE) + \
        module_mutants("operator", SOURCE)
    assert {m.module for m in within(mutants, "watermarks")} == {"watermarks.valve"}
    assert within(mutants, "operator") == module_mutants("operator", SOURCE) and within(mutants, None) == mutants
    with pytest.raises(SystemExit, match="no module of reference/ by that name"):
        within(mutants, "no_such")


def test_the_equivalence_file_gives_a_reason_for_each_mutant_and_names_existing_ones():
    exemptions = read_exemptions()
    assert all(reason.strip() for reason in exemptions.equivalent.values())
    existing = {m.key for m in all_mutants()}
    stale = [key for key in exemptions.equivalent if key not in existing]
    assert not stale, f"equivalent.toml names mutants the reference no longer has: {stale}"
    assert set(exemptions.out_of_scope) <= set(reference_modules(reference_dir()))


def test_an_entry_without_a_reason_is_refused(tmp_path: Path):
    bad = tmp_path / "equivalent.toml"
    bad.write_text('[[equivalent]]\nmutants = ["m:f: a -> pass"]\nreason = " "\n', encoding="utf-8")
    with pytest.raises(ValueError, match="non-empty reason"):
        read_exemptions(bad)



def test_a_join_case_of_the_corpus_kills_a_mutant_of_the_join_model():
    """A join case runs through `run_joins` and is judged by `join_equivalent`: with bounds of exactly 1, a mutant that
    registers the cleanup timer at `ts` (`> 1` for `> 0`) removes the wrong bucket and keeps the pair Flink loses."""
    path = reference_dir().parent / "cases" / "joins" / "interval_cleanup.join.json"
    [lost] = [c for c in load_join_cases(path) if c.name.startswith("upper 1:")]
    joins = record_baseline([lost])
    timer_at_ts = mutant_of("interval_join", "IntervalJoinOperator.process_element", "0", "1")
    assert joins.observations == [lost.expected] and reaching(joins, timer_at_ts) == [0]
    [verdict] = run_mutants(joins, [timer_at_ts], jobs=1, timeout=lambda seconds: 10)
    assert verdict.outcome == "killed"

"""The mutation catalogue applies cleanly, and the property suite kills its mutants."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.mutation.catalogue import CATALOGUE, COMMITTED_FIRST, MUTANTS, Mutant, Patch
from conformance.mutation.loader import PatchError, check_patches, load_mutant, patched_source
from conformance.mutation.plugin import KILLING_ORDER, WATERMARK_PROPERTIES
from conformance.mutation.runner import SUITE, pytest_arguments
from window_contract.case import BoundedOutOfOrdernessWatermarks, Case, record, session, tumbling, watermark
from window_contract.registry import load_implementation


def test_the_catalogue_has_at_least_25_mutants():
    assert len(CATALOGUE) >= 25 and len(MUTANTS) == len(CATALOGUE)


@pytest.mark.parametrize("mutant", CATALOGUE, ids=lambda m: m.name)
def test_every_patch_applies_exactly_once(mutant):
    check_patches(mutant)  # raises PatchError unless each original text occurs once in its function


def test_a_patch_whose_text_is_missing_from_its_function_is_refused():
    # The text is in the module (in `TimeWindow.intersects`), not in the function the patch names.
    broken = Mutant("broken", "wrong function", (Patch("windows", "TimeWindow.cover", "self.start <= other.end", "x"),))
    with pytest.raises(PatchError, match="found 0 times in windows.TimeWindow.cover"):
        check_patches(broken)


def test_only_a_violation_kills_a_test_that_breaks_otherwise_does_not():
    from conformance.mutation.runner import Result

    mutant = CATALOGUE[0]
    assert Result(mutant, "test_matches_reference", "the differential rule", 1.0, 1.0).killed
    assert not Result(mutant, "test_matches_reference", None, 1.0, 1.0, "KeyError: DeltaEvictor").killed
    assert not Result(mutant, None, None, 1.0, 1.0).killed


def test_a_mutant_that_cannot_be_made_is_a_usage_error_never_a_kill(monkeypatch, capsys):
    from conformance.mutation import __main__ as command

    broken = Mutant("broken", "wrong function", (Patch("windows", "TimeWindow.cover", "self.start <= other.end", "x"),))
    monkeypatch.setitem(command.MUTANTS, "broken", broken)
    assert command.main(["--mutant", "broken"]) == 2
    assert "found 0 times in windows.TimeWindow.cover" in capsys.readouterr().err


@pytest.mark.parametrize("function", ["TimeWindow.no_such_method", "no_such_function", "TimeWindow"])
def test_a_patch_whose_function_is_missing_is_refused(function):
    broken = Mutant("broken", "renamed function", (Patch("windows", function, "end", "start"),))
    with pytest.raises(PatchError, match=f"has no function {function}"):
        check_patches(broken)


def test_a_patch_applies_inside_its_function_only_and_keeps_the_indentation():
    source = ("class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 1\n")
    patch = Patch("m", "A.g", "    return 1\n", "    x = 2\n    return x\n")
    assert patched_source(Mutant("m", "", (patch,)), "m", source) == (
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        x = 2\n        return x\n")


def test_a_patch_that_breaks_the_syntax_is_refused():
    broken = Mutant("broken", "syntax", (Patch("windows", "TimeWindow.cover", "return TimeWindow(", "return ((("),))
    with pytest.raises(PatchError, match="does not compile"):
        check_patches(broken)


def test_a_mutant_differs_from_the_reference_and_leaves_it_alone():
    case = Case(window=tumbling(10), events=[record("a", 1, 5)])
    mutant = load_mutant("max_timestamp_is_end")
    reference = load_implementation("reference")
    [mutated], [original] = mutant.run([case]), reference.run([case])
    assert mutated.firings[0].timestamp == 10 and original.firings[0].timestamp == 9
    assert mutant.name == "mutant:max_timestamp_is_end"


def test_mutants_load_as_implementations_by_module_and_factory():
    impl = load_implementation("conformance.mutation.implementations:merge_does_not_rescue_late_element")
    case = Case(window=session(5), events=[record("a", 1, 8), watermark(10), record("a", 2, 4)])
    [observation] = impl.run([case])
    assert [r.value for r in observation.dropped] == [2]  # the reference merges it into [4, 13)


def mutation_check(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "conformance.mutation", *arguments], cwd=SUITE.parent.parent,
                          capture_output=True, text=True, timeout=300)


def test_the_suite_kills_mutants_each_run_in_a_child_of_its_own():
    names = ["window_late_strictly", "count_evictor_evicts_newest"]
    done = mutation_check("--profile", "ci", "--jobs", "2", *(arg for name in names for arg in ("--mutant", name)))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.strip()}
    assert all(re.search(r" killed by test_\w+ ", lines[name]) for name in names), done.stdout
    assert "2 of 2 mutants killed" in done.stdout


def test_a_mutants_run_past_its_timeout_is_killed_and_no_kill():
    """A child still running at its deadline is killed (a mutant that loops for ever); its mutant is not killed."""
    run = ("from conformance.mutation.catalogue import MUTANTS; from conformance.mutation.runner import run_all\n"
           "[result] = run_all([MUTANTS['window_late_strictly']], timeout=0.01)\n"
           "print(result.killed, result.detail)")
    done = subprocess.run([sys.executable, "-c", run], cwd=SUITE.parent.parent, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.strip() == "False timed out after 0s", done.stdout + done.stderr


def test_a_mutant_replaying_the_references_drawing_dies_on_the_first_replayed_example_that_fails(tmp_path):
    """Given the recordings of a run of the suite against the reference (`./dev test`'s), a mutant replays the
    examples drawn there (it declares the reference's features, and the reference's answers aim the drawing): the
    first that fails kills it, with the property's rule, and is not handed back to Hypothesis to be drawn again."""
    killer = "test_watermark_cases_match_reference"
    drawn = subprocess.run([sys.executable, "-m", "pytest", f"{SUITE}/test_watermarks.py::{killer}", "-q",
                            "-p", "no:cacheprovider", "--window-impl", "reference", "--hypothesis-profile", "ci",
                            "--window-recordings", str(tmp_path)],
                           cwd=SUITE.parent.parent, capture_output=True, text=True, timeout=300)
    assert drawn.returncode == 0, drawn.stdout + drawn.stderr
    report = tmp_path / "kill.json"
    run = subprocess.run([sys.executable, "-m", "pytest",
                          *pytest_arguments(MUTANTS["valve_maximum_over_channels"], "ci", report, tmp_path)],
                         cwd=SUITE.parent.parent, capture_output=True, text=True, timeout=300)
    kill = json.loads(report.read_text(encoding="utf-8"))
    assert kill["property"] == killer and kill["rule"], kill
    assert "replay: 1 tests ran on examples drawn before, 0 of them handed back" in run.stdout, run.stdout


def collected_order(mutant: Mutant) -> list[str]:
    """The property tests a mutant's run collects, in the order it runs them."""
    run = subprocess.run([sys.executable, "-m", "pytest", *pytest_arguments(mutant, "ci", Path("unused.json")),
                          "--collect-only"], cwd=SUITE.parent.parent, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return [line.split("::")[1] for line in run.stdout.splitlines() if "::" in line]


def test_a_watermark_mutant_runs_the_properties_that_draw_generators_first():
    """The order only changes the cost of a kill: a mutant of `reference/watermarks/` would pass the whole
    `test_matches_reference` first (it draws no generator); the others start with the strongest killer."""
    watermark_mutant, window_mutant = MUTANTS["valve_maximum_over_channels"], MUTANTS["window_late_strictly"]
    assert {p.module.split(".")[0] for p in watermark_mutant.patches} == {"watermarks"}
    assert collected_order(watermark_mutant)[:len(WATERMARK_PROPERTIES)] == list(WATERMARK_PROPERTIES)
    assert collected_order(window_mutant)[:len(KILLING_ORDER)] == list(KILLING_ORDER)


def test_a_mutant_the_committed_cases_kill_in_seconds_runs_them_first_and_then_the_killing_order():
    """`merge_does_not_rescue_late_element` cost `test_matches_reference` 209 s of drawing before the example that kills
    it; its own first property comes first, and every other still runs after it."""
    order = collected_order(MUTANTS["merge_does_not_rescue_late_element"])
    assert order[:1] == list(COMMITTED_FIRST) and order[1:len(KILLING_ORDER)] == \
        [name for name in KILLING_ORDER if name not in COMMITTED_FIRST]
    assert len(order) == len(collected_order(MUTANTS["window_late_strictly"]))


def test_a_mutants_copy_holds_the_subpackages_too():
    """The copy's `watermarks` modules are the copy's: an `InvalidSpec` they raise is the one the copy's
    driver catches (a real `reference` module in the copy would raise past it)."""
    case = Case(window=tumbling(10), watermark_generator=BoundedOutOfOrdernessWatermarks(-1),
                events=[record("a", 1, 5)])
    [observation] = load_mutant("max_timestamp_is_end").run([case])
    assert observation.error is not None and observation.error.kind == "invalid_spec"
    assert "_mutant_max_timestamp_is_end.watermarks.valve" in sys.modules

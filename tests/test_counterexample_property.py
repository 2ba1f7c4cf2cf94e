"""A saved counterexample names the property it broke (`violates`), and `replay --check` checks that property
again, so that every saved case reproduces: a rule about one case applies its check (the order of firings
within one position included), and a rule that compares several runs runs them again from what the file keeps
(the batch, the original case)."""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import replace

from report_fixture_suite.running import HERE, ROOT, conformance, run_once

from conformance.properties.recheck import PROPERTIES, recheck, violates
from window_contract.case import Case, Violates, case_to_json, record, tumbling, watermark
from window_contract.case_json import case_from_json, load_cases
from window_contract.registry import load_implementation

REFERENCE = load_implementation("reference")
#: The README's own plug-in (`my_windows.py`), which fires the windows of one watermark in key order.
README_PLUGIN = re.search(r"```python\n(# my_windows\.py\n.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"),
                          re.S).group(1)


def test_every_property_of_the_suite_is_checked_again_by_replay():
    """But the join properties (`test_joins.py`): their counterexamples are join cases, saved with the reference's
    observation as `expected` (`tests/test_join_properties.py`), which `replay` does not read yet (README)."""
    names = {name.removeprefix("test_") for path in (ROOT / "conformance" / "properties").glob("test_*.py")
             if path.stem != "test_joins"
             for name in dir(importlib.import_module(f"conformance.properties.{path.stem}"))
             if name.startswith("test_")}
    assert names == PROPERTIES


def test_the_readme_plugins_firing_order_counterexample_reproduces(tmp_path):
    (tmp_path / "my_windows.py").write_text(README_PLUGIN, encoding="utf-8")
    run = run_once("--impl", "my_windows:MyWindows", "--profile", "ci", "--property", "timers_fire",
                   pythonpath=(str(tmp_path),))
    assert run.status == 1, run.stderr
    [failure] = run.implementation("my-windows")["properties"][0]["failures"]
    path = run.out / failure["case_file"]
    assert json.loads(path.read_text(encoding="utf-8"))["violates"] == {"property": "timers_fire_in_timestamp_order"}
    done = conformance("replay", str(path), "--impl", "my_windows:MyWindows", "--check", pythonpath=(str(tmp_path),))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "DIFFERS" in done.stdout and "timers_fire_in_timestamp_order: the timers fired at position" in done.stdout
    assert conformance("replay", str(path), "--impl", "reference", "--check").returncode == 0


def test_a_rule_about_batches_keeps_the_batch_and_replay_runs_it_again():
    run = run_once("--impl", "fixture_impls:BatchSensitive", "--profile", "dev", "--property",
                   "same_observation_alone_and_in_a_batch", pythonpath=(str(HERE),))
    assert run.status == 1, run.stderr
    [failure] = run.implementation("batch-sensitive")["properties"][0]["failures"]
    path = run.out / failure["case_file"]
    [case] = load_cases(path)
    assert case.violates.property == "same_observation_alone_and_in_a_batch"
    assert len(case.violates.batch) >= 2 and replace(case, name=None) in case.violates.batch
    done = conformance("replay", str(path), "--impl", "fixture_impls:BatchSensitive", "--check",
                       pythonpath=(str(HERE),))
    assert done.returncode == 1 and "same_observation_alone_and_in_a_batch: " in done.stdout, done.stdout
    assert conformance("replay", str(path), "--impl", "reference", "--check").returncode == 0


CASE = Case(window=tumbling(10), events=[record("a", 1, ts=1), record("b", 2, ts=3), watermark(9),
                                         record("a", 3, ts=12)])


def lossy_second_call():
    """A `run` that loses every firing from its second call on."""
    calls = []

    def run(cases):
        calls.append(cases)
        observations = REFERENCE.run(cases)
        return observations if len(calls) == 1 else [replace(o, firings=()) for o in observations]

    return run


def test_rules_about_runs_are_checked_again_from_what_the_file_keeps():
    for name, calls in (("same_observation_when_run_twice", [(CASE, CASE)]),
                        ("end_of_input_is_a_final_max_watermark", [(CASE,)]),
                        ("repeated_or_lower_watermark_changes_nothing_but_positions", [(CASE,)])):
        variant = {"end_of_input_is_a_final_max_watermark": replace(CASE, events=CASE.events + (watermark(2**63 - 1),)),
                   "repeated_or_lower_watermark_changes_nothing_but_positions":
                       replace(CASE, events=CASE.events[:3] + (watermark(5),) + CASE.events[3:])}.get(name, CASE)
        kept = violates(name, variant, [*calls, (variant,)] if variant != CASE else calls)
        saved = case_from_json(case_to_json(replace(variant, violates=kept)))
        assert saved.violates == kept and (kept.batch or kept.original == CASE), name
        [observation] = REFERENCE.run([variant])
        assert recheck(saved, observation, REFERENCE.run) is None, name
        assert recheck(saved, observation, lossy_second_call() if kept.batch else lossy_variant), name


def lossy_variant(cases):
    """The original's observation, and the variant's without its firings."""
    original, variant = REFERENCE.run(cases)
    return [original, replace(variant, firings=())]


def test_keys_that_interact_are_found_again():
    def interacting(cases):
        # a key's firings vanish when another key is in the case
        return [replace(o, firings=tuple(f for f in o.firings if len({r.key for r in c.records}) == 1))
                for c, o in zip(cases, REFERENCE.run(cases), strict=True)]

    case = replace(CASE, violates=Violates("keys_do_not_interact"))
    [observation] = interacting([case])
    assert "left: in the case, right: alone" in recheck(case, observation, interacting)
    assert recheck(case, REFERENCE.run([case])[0], REFERENCE.run) is None


def test_a_file_that_names_a_comparison_without_its_cases_is_a_format_error(tmp_path, capsys):
    from conformance.cli import main

    path = tmp_path / "case.json"
    doc = case_to_json(replace(CASE, violates=Violates("same_observation_when_run_twice"),
                               expected=REFERENCE.run([CASE])[0]))
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["replay", str(path), "--check"]) == 2
    assert "compares the case with its batch, which the file does not hold" in capsys.readouterr().err


def test_the_report_shows_outputs_in_the_order_they_were_emitted():
    from reports.observations import side_by_side
    from window_contract.observation_json import observation_to_json

    case = Case(window=tumbling(1), events=[record("b", 1, ts=0), record("a", 2, ts=1)])
    [observation] = REFERENCE.run([case])
    [(where, lines, _)] = side_by_side(observation_to_json(observation), None, len(case.events))[1:]
    assert where == "2: end of input" and [line.split()[1] for line in lines] == ["b", "a"], lines

"""A plug-in author's first day (issue 45, docs/plugin.md): the two starters pass the suite as they are, the page's
links lead somewhere, and a starter with one off-by-one bug is found within the `dev` profile's budget, with one
minimal case for each broken property."""

from __future__ import annotations

import re
import resource
import shutil

import pytest
from report_fixture_suite.running import HERE, ROOT, conformance, run_once

from conformance.properties.harness import Suite
from conformance.properties.test_firings import firing_timestamp_is_max_timestamp
from window_contract import Case, load_implementation, record, tumbling, watermark
from window_contract.case_json import load_cases

PAGE = ROOT / "docs" / "plugin.md"
NODE_STARTER = "exec:node examples/starter-windows.js"


def node() -> str:
    found = shutil.which("node")
    assert found, "Node.js (`node` on PATH) is needed to test examples/starter-windows.js: install Node.js 20"
    return found


def test_the_python_starter_conforms_under_the_ci_profile():
    run = run_once("--impl", "examples.starter_windows:StarterWindows", "--profile", "ci")
    assert run.status == 0, run.stdout + run.stderr
    [impl] = run.report["implementations"]
    outcomes = {p["property"]: p["outcome"] for p in impl["properties"]}
    assert impl["outcome"] == "conforms" and set(outcomes.values()) == {"passed", "not_applicable"}
    # Held to every rule about what it declares, and only that.
    assert outcomes["matches_reference"] == outcomes["side_output_exactly_for_elements_whose_every_window_is_late"] \
        == outcomes["committed_cases_give_their_expected_observations"] == "passed"
    assert outcomes["matches_reference_at_long_extremes"] == "not_applicable"


def test_the_node_starter_agrees_with_every_corpus_case_it_declares():
    node()
    done = conformance("replay", "corpus", "--impl", NODE_STARTER, "--check", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    agreed = re.search(r"starter-windows-js: (\d+) of (\d+) cases agree", done.stdout)
    assert agreed and agreed[1] == agreed[2] and int(agreed[1]) >= 40, done.stdout


def test_the_node_starter_passes_a_short_run():
    node()
    run = run_once("--impl", NODE_STARTER, "--profile", "ci-slow", "--property", "matches_reference",
                   "--property", "side_output_exactly", "--property", "firing_timestamp")
    assert run.status == 0, run.stdout + run.stderr
    assert {p["outcome"] for p in run.report["implementations"][0]["properties"]} <= {"passed", "not_applicable"}


def test_the_pages_links_lead_to_files_and_headings():
    text = PAGE.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#]+)(?:#([^)]+))?\)", text)
    assert len(links) >= 8
    for target, anchor in links:
        path = (PAGE.parent / target).resolve()
        assert path.exists(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{target}#{anchor}"


def test_a_starter_with_an_off_by_one_bug_is_found_within_the_dev_budget_with_one_minimal_case():
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = run_once("--impl", "off_by_one:OffByOneWindows", "--profile", "dev", "--seed", "1",
                   pythonpath=(str(HERE),))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert run.status == 1, run.stderr
    assert cpu < 180, f"the dev run took {cpu:.0f} s of CPU time"  # 3 minutes on one core; measured about 30 s
    failing = {p["property"]: p for p in run.report["implementations"][0]["properties"] if p["outcome"] == "failed"}
    assert {"matches_reference", "firing_timestamp_is_max_timestamp"} <= set(failing)
    for prop in failing.values():
        [failure] = prop["failures"]
        [case] = load_cases(run.out / failure["case_file"])
        assert len(case.records) <= 2, (prop["property"], case)  # one window's worth: minimal
    [case] = load_cases(run.out / failing["matches_reference"]["failures"][0]["case_file"])
    assert len(case.events) == 1 and case.end_of_input and case.allowed_lateness == 0


def test_the_case_a_violation_reports_is_made_smaller_one_step_at_a_time():
    import sys

    sys.path.insert(0, str(HERE))
    try:
        suite = Suite(load_implementation("off_by_one:OffByOneWindows"), load_implementation("reference"))
    finally:
        sys.path.remove(str(HERE))
    noisy = Case(window=tumbling(10), allowed_lateness=5, late_side_output=True,
                 events=(record("a", 1, 3), record("b", 2, 14), watermark(4), record("a", 3, 25), watermark(30)))
    [observation] = suite.call([noisy])
    problem = firing_timestamp_is_max_timestamp(noisy, observation)
    assert problem
    case, _, still = suite.smallest_violation(noisy, observation, problem, firing_timestamp_is_max_timestamp)
    assert still and len(case.events) == 1 and case.allowed_lateness == 0 and not case.late_side_output


def test_no_property_shrinks_past_the_profiles_budget():
    import time

    from hypothesis import given, settings
    from hypothesis import strategies as st
    from hypothesis.reporting import with_reporter

    from conformance.profiles import shrinking_within

    said: list[str] = []

    @settings(database=None, derandomize=True, deadline=None, max_examples=200)
    @given(st.lists(st.integers(0, 1000), min_size=30))
    def slow_to_shrink(xs):
        time.sleep(0.02)
        assert sum(xs) < 5000

    begun = time.monotonic()
    with shrinking_within(1.0), with_reporter(said.append), pytest.raises(AssertionError):
        slow_to_shrink()
    assert time.monotonic() - begun < 30
    assert any("Shrinking stopped at the profile's budget of 1 s" in line for line in said), said
    assert not any("five minutes" in line for line in said)

"""A property that sends an implementation no case is not applicable, never passed: the terminal, the
report (JSON, Markdown, HTML), its matrix section and JUnit say so, and the counts count only what ran."""

from __future__ import annotations

from html import unescape
from xml.etree import ElementTree as ET

from report_fixture_suite.running import HERE, run_once

from conformance.evidence import NO_CASE_SENT
from conformance.runner.results import PropertyResult, Statistics
from conformance.runner.verdict import implementation_outcome


def tumbling_only_run():
    # The real suite: a rule every implementation meets, and one about watermark generators, of which the
    # implementation declares none.
    return run_once("--impl", "fixture_impls:TumblingOnly", "--profile", "dev", "--property", "firing_timestamp",
                    "--property", "generated_watermark_follows", pythonpath=(str(HERE),))


def test_a_property_that_sent_no_case_is_not_applicable_everywhere():
    run = tumbling_only_run()
    assert run.status == 0, run.stdout + run.stderr
    outcomes = {p["property"]: (p["outcome"], p["message"]) for p in run.implementation("tumbling-only")["properties"]}
    assert outcomes == {"firing_timestamp_is_max_timestamp": ("passed", ""),
                        "generated_watermark_follows_its_generators_formula": ("not_applicable", NO_CASE_SENT)}
    # the terminal: the line of the property, and the summary counts only what ran
    assert "n/a   generated_watermark_follows_its_generators_formula  1 example  " in run.stderr
    assert NO_CASE_SENT in run.stderr
    assert "tumbling-only: conforms (1 property (1 more not applicable), 30 examples" in run.stdout
    markdown = (run.out / "report.md").read_text(encoding="utf-8")
    html = unescape((run.out / "index.html").read_text(encoding="utf-8"))
    for text in (markdown, html):
        assert "1 property (1 more not applicable)" in text
        assert ("Not applicable to tumbling-only (no verdict, no pass): "
                "generated_watermark_follows_its_generators_formula.") in text
        assert NO_CASE_SENT in text
    assert "| generated_watermark_follows_its_generators_formula | passed" not in markdown
    suite = ET.parse(run.out / "junit.xml").getroot().find("testsuite")
    assert suite.get("skipped") == "1" and suite.get("tests") == "2"
    [case] = [c for c in suite.iter("testcase") if c.get("name").startswith("generated_watermark")]
    assert case.find("skipped").get("message") == NO_CASE_SENT


def result(outcome: str) -> PropertyResult:
    return PropertyResult("rule", "t.py::test_rule", outcome, 0.1, 1, 0, 0, Statistics(), {}, (), "")


def test_an_implementation_to_which_no_property_applies_has_not_been_checked():
    outcome, problems = implementation_outcome([result("not_applicable")], [], 0)
    assert outcome == "could_not_run" and problems == ("no property applies to the features it declares",)
    assert implementation_outcome([result("not_applicable"), result("passed")], [], 0) == ("conforms", ())

"""The renderers on hand-made results: the matrix's statuses, the JUnit counts, the Markdown and the
timeline picture. No implementation runs here (the reports never run one)."""

from __future__ import annotations

from dataclasses import replace
from xml.etree import ElementTree as ET

from conformance.evidence import PropertyViolation
from reports.difference import SHOWN, account, differences, summary
from reports.html import CSS, render_html
from reports.junit import render_junit
from reports.markdown import render_markdown
from reports.observations import case_lines, output_lines
from reports.timeline import timeline_svg
from window_contract.case import Case, case_to_json, record, tumbling, watermark
from window_contract.observation import Firing, InputWatermark, LateRecord, Observation, TimeWindow
from window_contract.observation_json import observation_to_json

CASE = Case(window=tumbling(10), events=[record("a", 1, 5), watermark(9), record("a", 2, 3)])
EXPECTED = Observation(
    firings=(Firing(1, "a", TimeWindow(0, 10), 9, (1,), 9),), dropped=(LateRecord(2, "a", 2, 3),)
)
ACTUAL = Observation(firings=(Firing(3, "a", TimeWindow(0, 10), 9, (1, 2), 2**63 - 1),))


def prop(name, outcome="passed", features=None, failures=(), message=""):
    return {
        "property": name,
        "nodeid": f"suite.py::test_{name}",
        "outcome": outcome,
        "duration": 0.5,
        "examples": 100,
        "invalid_examples": 0,
        "shrinks": 0,
        "statistics": {"events": {"late record": 25}, "text": ""},
        "features": features or {"cases": 100, "assigner.tumbling": 100},
        "failures": list(failures),
        "message": message,
    }


def impl(name, features, properties, outcome="conforms", problems=(), errors=(), exit_status=0):
    return {
        "name": name,
        "spec": name,
        "features": features,
        "properties": properties,
        "errors": list(errors),
        "exit_status": exit_status,
        "log": "",
        "duration": 1.0,
        "outcome": outcome,
        "problems": list(problems),
        "conforms": outcome == "conforms",
    }


FEATURES = {
    "assigner.tumbling": "tumbling windows",
    "assigner.session": "session windows",
    "offset": "a window offset other than 0",
}


def document(*implementations, matrix=None, verdict=None, seed=None):
    """A report document as the runner writes it; `matrix` maps feature to implementation to status."""
    matrix = matrix or {"assigner.tumbling": {i["name"]: "pass" for i in implementations}}
    troubled = "; ".join(f"{i['name']} ({', '.join(i['problems'])})" for i in implementations if i["problems"])
    outcome = verdict or next((o for o in ("differs", "could_not_run") if any(i["outcome"] == o for i in
                                                                             implementations)), "conforms")
    return {
        "format": "window-conformance-report/1",
        "created": "2026-01-01T00:00:00+00:00",
        "profile": "ci" if seed is None else "dev",
        "seed": seed,
        "suite": ["suite"],
        "out": "out",
        "verdict": {
            "outcome": outcome,
            "exit_status": {"conforms": 0, "differs": 1, "could_not_run": 3}[outcome],
            "conforms": outcome == "conforms",
            "failing": [i["name"] for i in implementations if i["outcome"] == "differs"],
            "could_not_run": [i["name"] for i in implementations if i["outcome"] == "could_not_run"],
            "text": {"conforms": "Conforms.", "differs": f"Does not conform: {troubled}.",
                     "could_not_run": f"Could not run: {troubled}."}[outcome],
        },
        "features": FEATURES,
        "implementations": list(implementations),
        "matrix": [
            {"feature": feature, "description": FEATURES[feature],
             "cells": {name: {"status": status, "cases": 0 if status == "unsupported" else 100,
                              "failures": int(status == "fail")} for name, status in cells.items()}}
            for feature, cells in matrix.items()
        ],
    }


def violation():
    failure = PropertyViolation("agrees with the reference", CASE, actual=ACTUAL, expected=EXPECTED).to_json()
    return failure | {"reference": observation_to_json(EXPECTED), "case_file": "counterexamples/x.json"}


GOOD = impl("good", ["assigner.tumbling", "offset"], [prop("agrees")])
BAD = impl(
    "bad",
    ["assigner.tumbling", "assigner.session"],
    [prop("agrees", "failed", failures=[violation()]), prop("crash", "error", message="Traceback: boom")],
    outcome="differs",
    problems=["agrees fails", "crash could not run"],
    exit_status=1,
)
MATRIX = {
    "assigner.tumbling": {"good": "pass", "bad": "fail"},
    "offset": {"good": "untested", "bad": "unsupported"},
}


def test_junit_counts_failures_and_errors():
    root = ET.fromstring(render_junit(document(GOOD, BAD, matrix=MATRIX)))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    bad = root.find("testsuite[@name='bad']")
    failure = bad.find("testcase[@name='agrees']/failure")
    assert failure.get("message") == "agrees with the reference"
    assert "python -m conformance replay out/counterexamples/x.json --impl bad --check" in failure.text
    assert "Traceback: boom" in bad.find("testcase[@name='crash']/error").text


def test_every_rendering_names_the_seed_of_a_run_that_had_one():
    """A dev or thorough run is drawn again with its seed: each rendering says it, and a
    derandomized run's says nothing of a seed."""
    renderings = (render_markdown, render_html, render_junit)
    with_seed = [render(document(GOOD, seed=1234567)) for render in renderings]
    assert "seed `1234567`" in with_seed[0] and "seed <code>1234567</code>" in with_seed[1]
    assert ET.fromstring(with_seed[2]).find(".//property[@name='hypothesis_seed']").get("value") == "1234567"
    assert not any("seed" in render(document(GOOD)) for render in renderings)


def test_markdown_has_verdict_matrix_side_by_side_and_coverage():
    md = render_markdown(document(GOOD, BAD, matrix=MATRIX))
    assert md.splitlines()[2] == "**❌ Does not conform: bad (agrees fails, crash could not run).**"
    # a feature the minimal case needs is not blamed for the difference: shrinking may have kept it by chance
    assert "| `assigner.tumbling` | tumbling windows | pass (100) | **in a failing case** (100) |" in md
    assert "| `offset` | a window offset other than 0 | not exercised (100) | unsupported |" in md
    # side by side, a row per position: what each emitted at the same position
    assert "| at 1 | `fire a [0, 10) values [1] ts 9 (watermark 9)` |  |" in md
    assert "| at 2 | `dropped a=2 @ 3` |  |" in md
    assert "| 3: end of input |  | `fire a [0, 10) values [1, 2] ts 9 (watermark +inf (Long.MAX_VALUE))` |" in md
    assert "![timeline](timelines/x.svg)" in md
    assert "| agrees | passed | 100 | 0 | 0 | 0.50s | late record 25% |" in md


def test_the_timeline_marks_records_watermarks_windows_and_both_firings():
    svg = timeline_svg(case_to_json(CASE), observation_to_json(EXPECTED), observation_to_json(ACTUAL), "x")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "[0, 10)" in texts and "a=1 @5" in texts and "a=2 @3" in texts
    assert len(root.findall(f"{ns}polyline")) == 1  # the watermark's step line
    rings = [c for c in root.iter(f"{ns}circle") if c.get("fill") == "none"]
    crosses = [p for p in root.iter(f"{ns}path")]
    # One firing each plus the legend's; the reference fires at event 1, the implementation at the end (3).
    assert len(rings) == 2 and len(crosses) == 2
    assert float(rings[0].get("cx")) < float(crosses[0].get("d").split(",")[0][1:])


def test_the_difference_is_told_in_the_domains_words():
    case = case_to_json(CASE)
    lines = differences(case, observation_to_json(EXPECTED), observation_to_json(ACTUAL))
    assert lines == [
        "firing of [0, 10) for key a comes at the end of input instead of at position 1, with values [1, 2] "
        "instead of [1], watermark +inf (Long.MAX_VALUE) instead of 9",
        "dropped record a=2 @ 3 at position 2 is missing",
    ]
    other = Observation(
        firings=(*EXPECTED.firings, Firing(1, "b", TimeWindow(0, 10), 9, (4,), 9)), late=EXPECTED.dropped
    )
    assert differences(case, observation_to_json(EXPECTED), observation_to_json(other)) == [
        "extra firing of [0, 10) for key b at position 1 (values [4])",
        "record a=2 @ 3 at position 2 goes to the side output instead of being dropped",
    ]
    rejected = observation_to_json(Observation.invalid_spec("TumblingEventTimeWindows parameters must satisfy "
                                                            "abs(offset) < size"))
    assert differences(case, observation_to_json(EXPECTED), rejected) == [
        "an unexpected invalid_spec error: TumblingEventTimeWindows parameters must satisfy abs(offset) < size",
        "firing of [0, 10) for key a at position 1 (values [1]) is missing",
        "dropped record a=2 @ 3 at position 2 is missing",
    ]
    assert differences(case, observation_to_json(EXPECTED), observation_to_json(EXPECTED)) == []


def test_a_firing_twice_instead_of_once_is_a_difference():
    twice = Observation(firings=EXPECTED.firings * 2, dropped=EXPECTED.dropped)
    assert differences(case_to_json(CASE), observation_to_json(EXPECTED), observation_to_json(twice)) == [
        "extra firing of [0, 10) for key a at position 1 (values [1])"
    ]


def test_failure_headings_say_what_went_wrong():
    md = render_markdown(document(GOOD, BAD, matrix=MATRIX))
    assert "### bad fails agrees\n\n**firing of [0, 10) for key a comes at the end of input" in md
    assert "Rule broken: agrees with the reference" in md
    assert "What differs from the reference:\n\n- firing of [0, 10) for key a comes" in md
    assert "- dropped record a=2 @ 3 at position 2 is missing" in md
    assert "iterable item" not in md and "root[" not in md  # no raw deepdiff text
    html = render_html(document(GOOD, BAD, matrix=MATRIX))
    assert '<h3>bad fails agrees</h3><p class="what">firing of [0, 10) for key a comes' in html
    assert "<li>dropped record a=2 @ 3 at position 2 is missing</li>" in html


def test_an_invariants_failure_leads_with_the_propertys_own_account():
    failure = PropertyViolation("no firing before the watermark", CASE, actual=ACTUAL,
                                detail="[0, 10) fired at position 0, before the watermark reached 9").to_json()
    failure |= {"reference": observation_to_json(EXPECTED), "case_file": "counterexamples/y.json"}
    what = account(failure)
    assert what.headline == "[0, 10) fired at position 0, before the watermark reached 9"
    assert what.title == "What differs from the reference" and len(what.lines) == 2


ERRED = impl(
    "erred",
    ["assigner.tumbling"],
    [prop("agrees", "error", message="could not run: the engine's JVM died (exit 137)")],
    outcome="could_not_run",
    problems=["agrees could not run"],
    exit_status=3,
)


def test_a_property_that_could_not_run_is_shown_as_such():
    doc = document(GOOD, ERRED, matrix={"assigner.tumbling": {"good": "pass", "erred": "error"}})
    html = render_html(doc)
    assert '<p class="verdict error" id="verdict">Could not run: erred (agrees could not run).</p>' in html
    assert '<li class="error"><b>erred</b> could not run: 1 property, 100 examples, 1.0s</li>' in html
    assert '<span class="status error">could not run</span>' in html
    assert '<h3 class="error">erred: agrees could not run</h3>' in html
    assert '<td class="outcome error">could not run</td>' in html
    md = render_markdown(doc)
    assert "| `assigner.tumbling` | tumbling windows | pass (100) | **could not run** (100) |" in md
    assert "### erred: agrees could not run" in md and "the engine's JVM died" in md
    assert md.splitlines()[2] == "**⚠️ Could not run: erred (agrees could not run).**"


def test_the_summary_and_the_coverage_explain_their_numbers():
    for text in (render_markdown(document(GOOD)), render_html(document(GOOD))):
        assert "so the matrix counts more" in text and "cases" in text
        assert "discarded because they did not meet the property's preconditions" in text


def test_situations_do_not_squeeze_the_coverage_table():
    html = render_html(document(GOOD))
    assert '<td class="property">agrees</td>' in html and '<td class="events">late record 25%</td>' in html
    css = CSS.read_text(encoding="utf-8")
    assert "table.stats td.events { width: 45%; min-width: 22em; }" in css
    long_name = render_html(document(impl("x", [], [prop("window_fires_once")])))
    assert '<td class="property">window_<wbr>fires_<wbr>once</td>' in long_name


def test_the_watermarks_the_operator_received_differ_where_the_sequences_part():
    case = case_to_json(CASE)
    want = replace(EXPECTED, watermarks=(InputWatermark(1, 9), InputWatermark(3, 2**63 - 1)))
    lower = replace(want, watermarks=(InputWatermark(1, 8), InputWatermark(3, 2**63 - 1)))
    assert differences(case, observation_to_json(want), observation_to_json(lower)) == [
        "the operator's watermark #1 is 8 at position 1 instead of 9 at position 1"
    ]
    fewer = replace(want, watermarks=want.watermarks[:1])
    assert differences(case, observation_to_json(want), observation_to_json(fewer)) == [
        "the operator's watermark +inf (Long.MAX_VALUE) at the end of input is missing"
    ]


def test_cases_with_channels_and_generated_watermarks_are_drawn_and_told():
    case = {
        "format": "window-case/1", "window": {"assigner": "tumbling", "size": 10}, "channels": 2,
        "watermark_generator": {"type": "monotonous", "interval": 5},
        "events": [{"record": {"key": "a", "value": 1, "ts": 5, "channel": 1}}, {"processing_time": 5},
                   {"watermark_status": {"channel": 0, "idle": True}}, {"end_of_channel": 1}],
    }
    observation = observation_to_json(replace(EXPECTED, watermarks=(InputWatermark(1, 4), InputWatermark(3, 9))))
    lines = case_lines(case)
    assert lines[0] == "tumbling(size=10), 2 channels, watermark generator monotonous(interval=5)"
    assert lines[1:] == ["0: record a=1 @ 5 (channel 1)", "1: processing time 5", "2: channel 0 idle",
                         "3: end of channel 1", "4: end of input (watermark +inf)"]
    assert [line for line in output_lines(observation) if "watermark becomes" in line[1]] == [
        (1, "the operator's watermark becomes 4"), (3, "the operator's watermark becomes 9")]
    svg = ET.fromstring(timeline_svg(case, observation, observation))
    [line] = svg.iter("{http://www.w3.org/2000/svg}polyline")
    # the watermark steps up where the operator received 4 and 9, and to +inf at the end of input
    assert len({point.split(",")[1] for point in line.get("points").split()}) == 3


def test_a_long_difference_shows_its_first_lines_and_counts_the_rest():
    lines = [f"extra firing {i}" for i in range(SHOWN + 5)]
    assert summary(lines) == [*lines[:SHOWN], "... and 5 more differences"]
    assert summary(lines[:SHOWN]) == lines[:SHOWN]

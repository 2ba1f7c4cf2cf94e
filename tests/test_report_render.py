"""The renderers on hand-made results: the matrix's statuses, the JUnit counts, the Markdown and the
timeline picture. No implementation runs here (the reports never run one)."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from conformance.case import Case, record, tumbling, watermark
from conformance.case_json import case_to_json
from conformance.evidence import PropertyViolation
from conformance.observation import Firing, LateRecord, Observation, TimeWindow
from conformance.observation_json import observation_to_json
from reports.junit import render_junit
from reports.markdown import render_markdown
from reports.matrix import conformance_matrix, problems, verdict
from reports.timeline import timeline_svg

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


def impl(name, features, properties, errors=(), exit_status=0):
    result = {
        "name": name,
        "spec": name,
        "features": features,
        "properties": properties,
        "errors": list(errors),
        "exit_status": exit_status,
        "log": "",
        "duration": 1.0,
    }
    result["problems"] = problems(result)
    result["conforms"] = not result["problems"]
    return result


def document(*implementations):
    features = {
        "assigner.tumbling": "tumbling windows",
        "assigner.session": "session windows",
        "offset": "a window offset other than 0",
    }
    return {
        "format": "window-conformance-report/1",
        "created": "2026-01-01T00:00:00+00:00",
        "profile": "ci",
        "suite": ["suite"],
        "out": "out",
        "verdict": verdict(list(implementations)),
        "features": features,
        "implementations": list(implementations),
        "matrix": conformance_matrix(features, list(implementations)),
    }


def violation():
    failure = PropertyViolation("agrees with the reference", CASE, actual=ACTUAL, expected=EXPECTED).to_json()
    return failure | {"reference": observation_to_json(EXPECTED), "case_file": "counterexamples/x.json"}


GOOD = impl("good", ["assigner.tumbling", "offset"], [prop("agrees")])
BAD = impl(
    "bad",
    ["assigner.tumbling", "assigner.session"],
    [prop("agrees", "failed", failures=[violation()]), prop("crash", "error", message="Traceback: boom")],
    exit_status=1,
)


def test_the_matrix_is_measured_per_feature_and_implementation():
    rows = {row["feature"]: row["cells"] for row in document(GOOD, BAD)["matrix"]}
    assert rows["assigner.tumbling"]["good"] == {"status": "pass", "cases": 100, "failures": 0}
    assert rows["assigner.tumbling"]["bad"] == {"status": "fail", "cases": 200, "failures": 1}
    assert rows["offset"]["good"]["status"] == "untested"  # declared, but no case had an offset
    assert rows["offset"]["bad"]["status"] == "unsupported"
    assert rows["assigner.session"]["bad"]["status"] == "untested"


def test_the_verdict_names_what_does_not_conform():
    assert verdict([GOOD])["conforms"]
    v = verdict([GOOD, BAD])
    assert not v["conforms"] and v["failing"] == ["bad"]
    assert v["text"] == "Does not conform: bad (agrees fails, crash errs)."
    assert problems(impl("empty", [], [])) == ["no property ran"]
    assert problems(impl("died", [], [prop("agrees")], exit_status=-9)) == [
        "the suite ended abnormally (pytest exit status -9)"
    ]


def test_junit_counts_failures_and_errors():
    root = ET.fromstring(render_junit(document(GOOD, BAD)))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    bad = root.find("testsuite[@name='bad']")
    failure = bad.find("testcase[@name='agrees']/failure")
    assert failure.get("message") == "agrees with the reference"
    assert "python -m conformance replay out/counterexamples/x.json --impl bad --check" in failure.text
    assert "Traceback: boom" in bad.find("testcase[@name='crash']/error").text


def test_markdown_has_verdict_matrix_side_by_side_and_coverage():
    md = render_markdown(document(GOOD, BAD))
    assert md.splitlines()[2] == "**❌ Does not conform: bad (agrees fails, crash errs).**"
    assert "| `assigner.tumbling` | tumbling windows | pass (100) | **FAIL** (200) |" in md
    assert "| `offset` | a window offset other than 0 | not exercised (0) | unsupported |" in md
    assert (
        "| `at 1: fire a [0, 10) values [1] ts 9 (watermark 9)` | "
        "`at 3: fire a [0, 10) values [1, 2] ts 9 (watermark +inf (Long.MAX_VALUE))` |"
    ) in md
    assert "| `at 2: dropped a=2 @ 3` |  |" in md
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

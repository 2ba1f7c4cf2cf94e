"""`junit.xml`: one test suite per implementation, one test case per property, for CI systems.

A property that differs is a `<failure>`: for a violation its text is the rule, the difference and
the command that replays the minimal case. A property that could not run (outcome `error`, or
`skipped`: it did not run either) is an `<error>`, never a failure and never a pass, and so is a
module of the suite that did not load or a test process that ended. A property that does not apply to the
implementation (`not_applicable`) is `<skipped>`, with the reason.
"""

from __future__ import annotations

import json
from typing import Any
from xml.etree import ElementTree as ET

from reports.observations import replay_command

#: Property outcomes that mean the property could not run (see conformance/runner/verdict.py).
NOT_RUN = ("error", "skipped")


def render_junit(document: dict[str, Any]) -> str:
    root = ET.Element("testsuites", name="window-conformance")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for impl in document["implementations"]:
        suite = ET.SubElement(root, "testsuite", name=impl["name"], time=f"{impl['duration']:.3f}")
        counts = dict.fromkeys(totals, 0)
        properties = ET.SubElement(suite, "properties")
        ET.SubElement(properties, "property", name="implementation", value=impl["spec"])
        ET.SubElement(properties, "property", name="features", value=" ".join(impl["features"]))
        ET.SubElement(properties, "property", name="hypothesis_profile", value=document["profile"])
        if document["seed"] is not None:
            ET.SubElement(properties, "property", name="hypothesis_seed", value=str(document["seed"]))
        for error in impl["errors"]:
            case = ET.SubElement(
                suite, "testcase", classname=impl["name"], name=error["nodeid"] or "suite", time="0"
            )
            ET.SubElement(case, "error", message="could not run", type="CouldNotRun").text = error["message"]
            counts["tests"] += 1
            counts["errors"] += 1
        for prop in impl["properties"]:
            counts["tests"] += 1
            case = ET.SubElement(
                suite,
                "testcase",
                classname=impl["name"],
                name=prop["property"],
                time=f"{prop['duration']:.3f}",
            )
            if prop["failures"]:
                counts["failures"] += 1
                first = prop["failures"][0]
                ET.SubElement(
                    case, "failure", message=first["rule"], type="PropertyViolation"
                ).text = "\n\n".join(_failure_text(document, impl, failure) for failure in prop["failures"])
            elif prop["outcome"] == "failed":
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=f"{prop['property']} failed").text = prop["message"]
            elif prop["outcome"] == "not_applicable":
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=prop["message"] or "not applicable")
            elif prop["outcome"] in NOT_RUN:
                counts["errors"] += 1
                ET.SubElement(
                    case, "error", message=f"{prop['property']} could not run", type="CouldNotRun"
                ).text = prop["message"]
            ET.SubElement(
                case, "system-out"
            ).text = f"{prop['examples']} examples; situations: {json.dumps(prop['statistics']['events'])}"
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _failure_text(document: dict[str, Any], impl: dict[str, Any], failure: dict[str, Any]) -> str:
    lines = [failure["rule"], failure["difference"]]
    if failure.get("case_file"):
        lines.append("reproduce: " + replay_command(failure, impl, document.get("out", ".")))
    lines.append("case: " + json.dumps(failure["case"]))
    return "\n".join(filter(None, lines))

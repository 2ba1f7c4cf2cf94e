"""Rendering the results of `python -m conformance run`: JSON, HTML, Markdown, JUnit XML.

This package renders a report document (the content of `report.json`, described by
`report.schema.json`); it never runs an implementation. `conformance/runner/` builds the document.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reports.html import render_html
from reports.junit import render_junit
from reports.markdown import render_markdown
from reports.timeline import timeline_files

SCHEMA = Path(__file__).with_name("report.schema.json")


def write_reports(document: dict[str, Any], out: Path) -> None:
    """`report.json`, `index.html`, `report.md`, `junit.xml` and the timelines' SVG files in `out`."""
    (out / "report.json").write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    for name, svg in timeline_files(document).items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
    (out / "index.html").write_text(render_html(document), encoding="utf-8")
    (out / "report.md").write_text(render_markdown(document), encoding="utf-8")
    (out / "junit.xml").write_text(render_junit(document), encoding="utf-8")

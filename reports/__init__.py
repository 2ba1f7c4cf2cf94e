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


def write_reports(document: dict[str, Any], out: Path) -> list[str]:
    """`report.json`, `index.html`, `report.md`, `junit.xml` and the timelines' SVG files in `out`;
    the paths written, relative to `out`."""
    files = {"report.json": json.dumps(document, indent=2) + "\n", **timeline_files(document),
             "index.html": render_html(document), "report.md": render_markdown(document),
             "junit.xml": render_junit(document)}
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)

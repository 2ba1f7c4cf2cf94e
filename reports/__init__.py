"""Rendering the results of `python -m conformance run`: JSON, HTML, Markdown, JUnit XML.

This package renders a report document (the content of `report.json`, described by
`report.schema.json`); it never runs an implementation. `conformance/runner/` builds the document.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from reports.html import render_html
from reports.junit import render_junit
from reports.markdown import render_markdown
from reports.timeline import timeline_files

SCHEMA = Path(__file__).with_name("report.schema.json")
#: The porting pages of a clone (`python -m conformance.porting`); an installed suite has none.
PORTING = Path(__file__).resolve().parents[1] / "docs" / "engines"


def porting_links(document: dict[str, Any], out: Path, pages: Path = PORTING) -> dict[str, str]:
    """The porting pages the HTML report links, relative to `out`: the matrix (`""`) and the page of each
    implementation of the run that has one (an engine under test), by name; none where the pages are not."""
    matrix = pages / "README.md"
    if not matrix.is_file():
        return {}
    named = {impl["name"]: pages / f"{impl['name']}.md" for impl in document["implementations"]}
    return {name: os.path.relpath(page, out.resolve())
            for name, page in {"": matrix, **named}.items() if page.is_file()}


def write_reports(document: dict[str, Any], out: Path) -> list[str]:
    """`report.json`, `index.html`, `report.md`, `junit.xml` and the timelines' SVG files in `out`;
    the paths written, relative to `out`."""
    files = {"report.json": json.dumps(document, indent=2) + "\n", **timeline_files(document),
             "index.html": render_html(document, porting_links(document, out)), "report.md": render_markdown(document),
             "junit.xml": render_junit(document)}
    for name, text in files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)

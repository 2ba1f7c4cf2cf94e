"""`index.html`: the report as one self-contained page (inline style and SVG, no script, no fetches).

At the top the verdict; then the conformance matrix (features against implementations); then each
failure with its minimal case, its timeline, and what the reference and the implementation did side
by side; then what else went wrong; then the coverage statistics.
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

from reports.matrix import situation_shares
from reports.observations import case_lines, observation_lines, replay_command
from reports.timeline import timeline_svg

CSS = Path(__file__).with_name("report.css")
STATUS_TEXT = {"pass": "pass", "fail": "fail", "unsupported": "unsupported", "untested": "not exercised"}


def _pre(lines: list[str] | str) -> str:
    return f"<pre>{escape(lines if isinstance(lines, str) else chr(10).join(lines))}</pre>"


def render_html(document: dict[str, Any]) -> str:
    verdict = document["verdict"]
    body = [
        "<header><h1>Window conformance report</h1>",
        f'<p class="meta">{escape(document["created"])} &middot; Hypothesis profile '
        f"<code>{escape(document['profile'])}</code> &middot; suite "
        f"<code>{escape(' '.join(document['suite']))}</code></p></header>",
        f'<p class="verdict {"pass" if verdict["conforms"] else "fail"}" id="verdict">'
        f"{escape(verdict['text'])}</p>",
        _implementations(document),
        _matrix(document),
        _failures(document),
        _errors(document),
        _coverage(document),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Window conformance: {escape(verdict['text'])}</title>"
        f"<style>{CSS.read_text(encoding='utf-8')}</style></head>\n<body>\n"
        + "\n".join(filter(None, body))
        + "\n</body></html>\n"
    )


def _implementations(document: dict[str, Any]) -> str:
    items = []
    for impl in document["implementations"]:
        examples = sum(p["examples"] for p in impl["properties"])
        state = "conforms" if impl["conforms"] else "does not conform"
        items.append(
            f"<li><b>{escape(impl['name'])}</b> {state}: {len(impl['properties'])} properties, "
            f"{examples} examples, {impl['duration']:.1f}s</li>"
        )
    return '<ul class="impls">' + "".join(items) + "</ul>"


def _matrix(document: dict[str, Any]) -> str:
    names = [impl["name"] for impl in document["implementations"]]
    head = (
        "<tr><th>feature</th><th>what it covers</th>"
        + "".join(f"<th>{escape(n)}</th>" for n in names)
        + "</tr>"
    )
    rows = []
    for row in document["matrix"]:
        cells = []
        for name in names:
            c = row["cells"][name]
            count = "" if c["status"] == "unsupported" else f'<span class="count">{c["cases"]} cases</span>'
            cells.append(
                f'<td class="cell"><span class="status {c["status"]}">{STATUS_TEXT[c["status"]]}</span>'
                f"{count}</td>"
            )
        rows.append(
            f'<tr><td class="feature"><code>{escape(row["feature"])}</code></td>'
            f'<td class="desc">{escape(row["description"])}</td>{"".join(cells)}</tr>'
        )
    return (
        '<section id="matrix"><h2>Conformance matrix</h2><p class="meta">Cases: how many generated cases '
        "exercised the feature. <b>fail</b>: a minimal counterexample needs the feature. <b>unsupported</b>: "
        "the implementation does not declare it, so it gets no such case.</p>"
        f'<table class="matrix">{head}{"".join(rows)}</table></section>'
    )


def _failures(document: dict[str, Any]) -> str:
    sections = []
    for impl in document["implementations"]:
        for prop in impl["properties"]:
            for failure in prop["failures"]:
                sections.append(_failure(document, impl, prop, failure))
    if not sections:
        return ""
    return '<section id="failures"><h2>Counterexamples</h2>' + "".join(sections) + "</section>"


def _failure(
    document: dict[str, Any], impl: dict[str, Any], prop: dict[str, Any], failure: dict[str, Any]
) -> str:
    title = f"{prop['property']} on {impl['name']}"
    reference = failure.get("reference") or failure.get("expected")
    replay = ""
    if failure.get("case_file"):
        command = replay_command(failure, impl, document.get("out", "."))
        replay = f"<p>Reproduce: <code>{escape(command)}</code></p>"
    return (
        f'<article class="failure"><h3>{escape(impl["name"])}: {escape(prop["property"])}</h3>'
        f'<p class="rule">{escape(failure["rule"])}</p>'
        f'<p class="meta">Features of the minimal case: {escape(", ".join(failure["features"]))}</p>'
        '<div class="case-and-picture"><div><h4>Minimal case</h4>'
        + _pre(case_lines(failure["case"]))
        + "</div><div>"
        + timeline_svg(failure["case"], reference, failure["actual"], title)
        + "</div></div>"
        '<div class="side"><div class="reference"><h4>Reference</h4>'
        + _pre(observation_lines(reference))
        + '</div><div class="implementation"><h4>'
        + escape(impl["name"])
        + "</h4>"
        + _pre(observation_lines(failure["actual"]))
        + "</div></div>"
        + (f"<h4>Difference</h4>{_pre(failure['difference'])}" if failure["difference"] else "")
        + replay
        + "<details><summary>the case as JSON</summary>"
        + _pre(json.dumps(failure["case"], indent=2))
        + "</details>"
        "</article>"
    )


def _errors(document: dict[str, Any]) -> str:
    items = []
    for impl in document["implementations"]:
        for error in impl["errors"]:
            items.append(
                f"<h3>{escape(impl['name'])}: {escape(error['nodeid'] or 'the suite')}</h3>"
                + _pre(error["message"])
            )
        for prop in impl["properties"]:
            if prop["outcome"] in ("failed", "error") and not prop["failures"]:
                items.append(
                    f"<h3>{escape(impl['name'])}: {escape(prop['property'])} ({prop['outcome']})</h3>"
                    + _pre(prop["message"])
                )
    if not items:
        return ""
    return (
        '<section id="errors"><h2>Errors</h2><p class="meta">Tests that failed without a property '
        "violation: the implementation or the suite raised an exception.</p>" + "".join(items) + "</section>"
    )


def _coverage(document: dict[str, Any]) -> str:
    parts = [
        '<section id="coverage"><h2>Coverage</h2><p class="meta">Examples per property, and the share '
        "of generated examples in which each situation (<code>hypothesis.event</code>) occurred.</p>"
    ]
    for impl in document["implementations"]:
        rows = []
        for prop in impl["properties"]:
            events = escape(situation_shares(prop))
            rows.append(
                f"<tr><td>{escape(prop['property'])}</td><td>{prop['outcome']}</td>"
                f'<td class="num">{prop["examples"]}</td><td class="num">{prop["invalid_examples"]}</td>'
                f'<td class="num">{prop["shrinks"]}</td><td class="num">{prop["duration"]:.2f}s</td>'
                f'<td class="events">{events}</td></tr>'
            )
        parts.append(
            f'<h3>{escape(impl["name"])}</h3><table class="stats"><tr><th>property</th><th>outcome</th>'
            "<th>examples</th><th>invalid</th><th>shrink steps</th><th>time</th><th>situations</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    parts.append("</section>")
    return "".join(parts)

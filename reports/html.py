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

from reports.difference import account, summary
from reports.joins import is_join_failure, join_failure_sections
from reports.matrix import situation_shares
from reports.observations import case_lines, replay_command, side_by_side
from reports.timeline import timeline_svg
from reports.words import (
    IMPLEMENTATION,
    OUTCOME,
    STATUS,
    counted,
    not_applicable,
    outcome_text,
    properties_counted,
    seed_text,
)

CSS = Path(__file__).with_name("report.css")
VERDICT_CLASS = {"conforms": "pass", "differs": "fail", "could_not_run": "error"}
#: What the summary's and the matrix's numbers count.
COUNTS = (
    "An <b>example</b> is one run of a property on generated input; one example sends one case or a batch "
    "of cases (and variants of them) to the implementation, so the matrix counts more <b>cases</b> than "
    "the summary counts examples."
)


def _pre(lines: list[str] | str) -> str:
    return f"<pre>{escape(lines if isinstance(lines, str) else chr(10).join(lines))}</pre>"


def render_html(document: dict[str, Any], porting: dict[str, str] | None = None) -> str:
    """The page; `porting`: the hrefs of the engines' matrix (`""`) and of each implementation's porting page
    (`reports.porting_links`), linked under the matrix."""
    verdict = document["verdict"]
    body = [
        "<header><h1>Window conformance report</h1>",
        f'<p class="meta">{escape(document["created"])} &middot; Hypothesis profile '
        f"<code>{escape(document['profile'])}</code>{seed_text(document, ', seed <code>{}</code>')} &middot; suite "
        f"<code>{escape(' '.join(document['suite']))}</code></p></header>",
        f'<p class="verdict {VERDICT_CLASS[verdict["outcome"]]}" id="verdict">'
        f"{escape(verdict['text'])}</p>",
        _implementations(document),
        _matrix(document),
        _porting(porting or {}),
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
        examples = sum(p["examples"] for p in impl["properties"] if p["outcome"] != "not_applicable")
        items.append(
            f'<li class="{VERDICT_CLASS[impl["outcome"]]}"><b>{escape(impl["name"])}</b> '
            f"{IMPLEMENTATION[impl['outcome']]}: {properties_counted([p['outcome'] for p in impl['properties']])}, "
            f"{counted(examples, 'example')}, {impl['duration']:.1f}s</li>"
        )
    return f'<ul class="impls">{"".join(items)}</ul><p class="meta">{COUNTS}</p>'


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
            count = "" if c["status"] == "unsupported" else f'<span class="count">{counted(c["cases"], "case")}</span>'
            status = STATUS[c["status"]]
            cells.append(f'<td class="cell"><span class="status {c["status"]}">{status}</span>{count}</td>')
        rows.append(
            f'<tr><td class="feature"><code>{escape(row["feature"])}</code></td>'
            f'<td class="desc">{escape(row["description"])}</td>{"".join(cells)}</tr>'
        )
    return (
        '<section id="matrix"><h2>Conformance matrix</h2><p class="meta">Cases: how many generated cases '
        "exercised the feature. <b>in a failing case</b>: a minimal counterexample needs the feature, which says "
        "where a difference was found, not that the feature causes it (shrinking may keep a feature by chance). "
        "<b>could not run</b>: "
        "the implementation or its engine failed to answer (no verdict on its semantics). "
        "<b>unsupported</b>: the implementation does not declare it, so it gets no such case. "
        "<b>not exercised</b>: declared, but no generated case needed it.</p>"
        f'<table class="matrix">{head}{"".join(rows)}</table>'
        + "".join(f'<p class="meta not-applicable">{escape(line)}</p>' for line in not_applicable(document))
        + "</section>"
    )


def _porting(links: dict[str, str]) -> str:
    """Where the engines under test differ from Flink, by design: their porting pages and the matrix."""
    if "" not in links:
        return ""
    pages = [f'<a href="{escape(href)}">{escape(name)}</a>' for name, href in links.items() if name]
    return ('<p class="meta" id="porting">How each engine under test differs from Flink, divergence by divergence, '
            "and in which areas of Flink's rules: "
            + (f"the porting page of {', '.join(pages)}, and " if pages else "")
            + f'<a href="{escape(links[""])}">the engines\' matrix</a>.</p>')


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
    if is_join_failure(failure):
        return _join_failure(impl, prop, failure)
    title = f"{prop['property']} on {impl['name']}"
    reference = failure.get("reference") or failure.get("expected")
    what = account(failure)
    replay = ""
    if failure.get("case_file"):
        command = replay_command(failure, impl, document.get("out", "."))
        replay = f"<p>Reproduce: <code>{escape(command)}</code></p>"
    differences = ""
    if what.lines:
        items = "".join(f"<li>{escape(line)}</li>" for line in summary(what.lines))
        differences = f'<h4>{escape(what.title)}</h4><ul class="differences">{items}</ul>'
    return (
        f'<article class="failure"><h3>{escape(impl["name"])} fails {escape(prop["property"])}</h3>'
        + (f'<p class="what">{escape(what.headline)}</p>' if what.headline else "")
        + f'<p class="rule">Rule broken: {escape(failure["rule"])}</p>'
        f'<p class="meta">Features of the minimal case: {escape(", ".join(failure["features"]))}</p>'
        '<div class="case-and-picture"><div><h4>Minimal case</h4>'
        + _pre(case_lines(failure["case"]))
        + "</div><div>"
        + timeline_svg(failure["case"], reference, failure["actual"], title)
        + "</div></div>"
        + _side_by_side(reference, failure["actual"], impl["name"], len(failure["case"]["events"]))
        + differences
        + replay
        + "<details><summary>the case as JSON</summary>"
        + _pre(json.dumps(failure["case"], indent=2))
        + "</details>"
        "</article>"
    )


def _join_failure(impl: dict[str, Any], prop: dict[str, Any], failure: dict[str, Any]) -> str:
    """A join property's failure (`reports.joins`): the rule, then each section."""
    sections = "".join(f"<h4>{escape(title)}</h4>" + _pre(text) for title, text in join_failure_sections(failure))
    return (f'<article class="failure"><h3>{escape(impl["name"])} fails {escape(prop["property"])}</h3>'
            f'<p class="rule">Rule broken: {escape(failure["rule"])}</p>'
            f'<p class="meta">Features of the minimal case: {escape(", ".join(failure["features"]))}</p>'
            f"{sections}</article>")


def _side_by_side(reference: dict[str, Any] | None, actual: dict[str, Any] | None, name: str, events: int) -> str:
    """What the reference and the implementation emitted, a row per position, side by side."""
    def cell(lines: list[str], side: str) -> str:
        return f'<td class="{side}"><code>' + "<br>".join(escape(line) for line in lines) + "</code></td>"

    rows = "".join(f'<tr><th class="where">{escape(where)}</th>{cell(left, "reference")}'
                   f'{cell(right, "implementation")}</tr>'
                   for where, left, right in side_by_side(reference, actual, events))
    return (f'<table class="side"><tr><th></th><th class="reference">Reference</th>'
            f'<th class="implementation">{escape(name)}</th></tr>{rows}</table>')


def _errors(document: dict[str, Any]) -> str:
    items = []
    for impl in document["implementations"]:
        for error in impl["errors"]:
            items.append(
                f'<h3 class="error">{escape(impl["name"])}: {escape(error["nodeid"] or "the suite")} '
                "could not run</h3>" + _pre(error["message"])
            )
        for prop in impl["properties"]:
            if prop["outcome"] in ("failed", "error") and not prop["failures"]:
                items.append(
                    f'<h3 class="{prop["outcome"]}">{escape(impl["name"])}: {escape(prop["property"])} '
                    f"{OUTCOME[prop['outcome']]}</h3>" + _pre(prop["message"])
                )
    if not items:
        return ""
    return (
        '<section id="errors"><h2>Errors</h2><p class="meta">Tests that ended without a counterexample: '
        "<b>could not run</b> means the implementation, its engine or the suite failed before a verdict "
        "(a crash, a timeout, a missing engine), which says nothing about its semantics.</p>"
        + "".join(items)
        + "</section>"
    )


def _property_name(name: str) -> str:
    """A property's name, breakable after each underscore: the names are long."""
    return "_<wbr>".join(escape(part) for part in name.split("_"))


def _coverage(document: dict[str, Any]) -> str:
    parts = [
        '<section id="coverage"><h2>Coverage</h2><p class="meta"><b>examples</b>: generated inputs each '
        "property ran on. <b>invalid</b>: inputs Hypothesis generated and then discarded because they did not "
        "meet the property's preconditions; they say nothing about the implementation. <b>shrink steps</b>: "
        "inputs tried while shrinking a failure to its minimal case. <b>situations</b>: the share of examples "
        "in which each situation (<code>hypothesis.event</code>) occurred.</p>"
    ]
    for impl in document["implementations"]:
        rows = []
        for prop in impl["properties"]:
            rows.append(
                f'<tr><td class="property">{_property_name(prop["property"])}</td>'
                f'<td class="outcome {prop["outcome"]}">{escape(outcome_text(prop))}</td>'
                f'<td class="num">{prop["examples"]}</td><td class="num">{prop["invalid_examples"]}</td>'
                f'<td class="num">{prop["shrinks"]}</td><td class="num">{prop["duration"]:.2f}s</td>'
                f'<td class="events">{escape(situation_shares(prop))}</td></tr>'
            )
        parts.append(
            f'<h3>{escape(impl["name"])}</h3><table class="stats"><tr><th>property</th><th>outcome</th>'
            "<th>examples</th><th>invalid</th><th>shrink steps</th><th>time</th><th>situations</th></tr>"
            + "".join(rows)
            + "</table>"
        )
    parts.append("</section>")
    return "".join(parts)

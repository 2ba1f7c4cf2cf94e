"""`report.md`: the report for a pull request or a wiki page.

The same order as the HTML page: verdict, matrix, counterexamples (the timelines as linked SVG
files under `timelines/`), errors, coverage.
"""

from __future__ import annotations

import json
from typing import Any

from reports.difference import account, summary
from reports.joins import is_join_failure, join_failure_sections
from reports.matrix import situation_shares
from reports.observations import case_lines, replay_command, side_by_side
from reports.timeline import timeline_path
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

#: The matrix's statuses that need a reader's attention, in capitals or bold.
STATUS_TEXT = STATUS | {"fail": "**in a failing case**", "error": "**could not run**"}
VERDICT_MARK = {"conforms": "✅", "differs": "❌", "could_not_run": "⚠️"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _block(lines: list[str] | str, language: str = "") -> list[str]:
    return [f"```{language}", *([lines] if isinstance(lines, str) else lines), "```"]


def render_markdown(document: dict[str, Any]) -> str:
    verdict = document["verdict"]
    lines = [
        "# Window conformance report",
        "",
        f"**{VERDICT_MARK[verdict['outcome']]} {verdict['text']}**",
        "",
        f"{document['created']}, Hypothesis profile `{document['profile']}`{seed_text(document, ', seed `{}`')}.",
        "",
    ]
    for impl in document["implementations"]:
        examples = sum(p["examples"] for p in impl["properties"] if p["outcome"] != "not_applicable")
        lines.append(
            f"- **{impl['name']}** {IMPLEMENTATION[impl['outcome']]}: "
            f"{properties_counted([p['outcome'] for p in impl['properties']])}, {counted(examples, 'example')}, "
            f"{impl['duration']:.1f}s"
        )
    lines += [
        "",
        "An *example* is one run of a property on generated input; one example sends one case or a batch of "
        "cases (and variants of them) to the implementation, so the matrix counts more *cases* than the "
        "summary counts examples.",
        "",
        *_matrix(document),
        *_failures(document),
        *_errors(document),
        *_coverage(document),
    ]
    return "\n".join(lines) + "\n"


def _matrix(document: dict[str, Any]) -> list[str]:
    names = [impl["name"] for impl in document["implementations"]]
    lines = [
        "## Conformance matrix",
        "",
        "Cases: how many generated cases exercised the feature; **in a failing case**: a minimal "
        "counterexample needs the feature (which says where a difference was found, not that the feature causes "
        "it: shrinking may have kept it by chance); **could not run**: the implementation or its engine failed "
        "to answer (no verdict on its semantics); unsupported: not declared by the implementation; not exercised: "
        "declared, but no generated case needed it.",
        "",
        "| feature | what it covers | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for row in document["matrix"]:
        cells = []
        for name in names:
            c = row["cells"][name]
            cells.append(
                STATUS_TEXT[c["status"]]
                + ("" if c["status"] == "unsupported" else f" ({c['cases']})")
            )
        lines.append(f"| `{row['feature']}` | {_cell(row['description'])} | " + " | ".join(cells) + " |")
    return lines + [""] + [line for text in not_applicable(document) for line in (text, "")]


def _failures(document: dict[str, Any]) -> list[str]:
    lines = []
    for impl in document["implementations"]:
        for prop in impl["properties"]:
            for failure in prop["failures"]:
                if is_join_failure(failure):
                    lines += [f"### {impl['name']} fails {prop['property']}", "", f"Rule broken: {failure['rule']}",
                              "", f"Features of the minimal case: {', '.join(failure['features'])}.", ""]
                    for title, text in join_failure_sections(failure):
                        lines += [f"{title}:", "", *_block(text), ""]
                    continue
                reference = failure.get("reference") or failure.get("expected")
                what = account(failure)
                lines += [
                    f"### {impl['name']} fails {prop['property']}",
                    "",
                    *([f"**{what.headline}**", ""] if what.headline else []),
                    f"Rule broken: {failure['rule']}",
                    "",
                    f"Features of the minimal case: {', '.join(failure['features'])}.",
                    "",
                    "Minimal case:",
                    "",
                    *_block(case_lines(failure["case"])),
                    "",
                ]
                if failure.get("case_file"):
                    lines += [f"![timeline]({timeline_path(failure)})", ""]
                lines += ["| position | reference | " + _cell(impl["name"]) + " |", "|---|---|---|"]
                for where, left, right in side_by_side(reference, failure["actual"], len(failure["case"]["events"])):
                    pair = ["<br>".join(f"`{_cell(line)}`" for line in side) for side in (left, right)]
                    lines.append(f"| {where} | {pair[0]} | {pair[1]} |")
                lines.append("")
                if what.lines:
                    lines += [f"{what.title}:", "", *(f"- {line}" for line in summary(what.lines)), ""]
                if failure.get("case_file"):
                    lines += [f"Reproduce: `{replay_command(failure, impl, document.get('out', '.'))}`", ""]
                lines += [
                    "<details><summary>the case as JSON</summary>",
                    "",
                    *_block(json.dumps(failure["case"], indent=2), "json"),
                    "",
                    "</details>",
                    "",
                ]
    return ["## Counterexamples", "", *lines] if lines else []


def _errors(document: dict[str, Any]) -> list[str]:
    lines = []
    for impl in document["implementations"]:
        for error in impl["errors"]:
            lines += [
                f"### {impl['name']}: {error['nodeid'] or 'the suite'} could not run",
                "",
                *_block(error["message"]),
                "",
            ]
        for prop in impl["properties"]:
            if prop["outcome"] in ("failed", "error") and not prop["failures"]:
                lines += [
                    f"### {impl['name']}: {prop['property']} {OUTCOME[prop['outcome']]}",
                    "",
                    *_block(prop["message"]),
                    "",
                ]
    if not lines:
        return []
    return [
        "## Errors",
        "",
        "Tests that ended without a counterexample: *could not run* means the implementation, its engine or "
        "the suite failed before a verdict (a crash, a timeout, a missing engine), which says nothing about "
        "its semantics.",
        "",
        *lines,
    ]


def _coverage(document: dict[str, Any]) -> list[str]:
    lines = [
        "## Coverage",
        "",
        "*examples*: generated inputs each property ran on. *invalid*: inputs Hypothesis generated and then "
        "discarded because they did not meet the property's preconditions; they say nothing about the "
        "implementation. *shrink steps*: inputs tried while shrinking a failure to its minimal case. "
        "*situations*: the share of examples in which each situation (`hypothesis.event`) occurred.",
        "",
    ]
    for impl in document["implementations"]:
        lines += [
            f"### {impl['name']}",
            "",
            "| property | outcome | examples | invalid | shrink steps | time | situations |",
            "|---|---|--:|--:|--:|--:|---|",
        ]
        for prop in impl["properties"]:
            events = situation_shares(prop)
            lines.append(
                f"| {prop['property']} | {_cell(outcome_text(prop))} | {prop['examples']} | "
                f"{prop['invalid_examples']} | {prop['shrinks']} | {prop['duration']:.2f}s | "
                f"{_cell(events)} |"
            )
        lines.append("")
    return lines

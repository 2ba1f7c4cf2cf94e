"""The matrix page, `docs/engines/README.md`: every engine against every divergence area and declared feature.

In the spirit of Beam's capability matrix: a row an engine, a column an area of Flink's rules (`areas.py`), each
cell the engine's divergences there, linked to its porting page; then every switch of the model by area, and the
features each engine declares (`declared.py`). The page opens with the hand-written account of how divergences
are listed, attributed and hunted (`cases/engines/about.md`); the README holds the summary (`summary`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

from conformance.divergences import Divergence, engine_divergences
from conformance.porting.areas import AREAS, SWITCHES, area
from conformance.porting.declared import declared_features
from conformance.porting.pages import ABOUT, FOLDER, PAGES, generated_notice, relinked
from reference.dialects import Dialect
from window_contract.features import FEATURES

MATRIX = PAGES / "README.md"


def engines(root: Path) -> list[str]:
    """Every engine with a divergence list, by name."""
    return sorted(path.parent.name for path in (root / FOLDER).glob("*/divergences.toml"))


def title(engine: str, root: Path) -> str:
    """The engine's page title: the first line of its `about.md`."""
    return (root / FOLDER / engine / ABOUT).read_text(encoding="utf-8").split("\n", 1)[0].lstrip("# ")


def summary(root: Path, prefix: str = "") -> str:
    """The table the README shows: each engine, its page (links from `prefix`) and its divergences by area."""
    lines = ["| engine | what changes when a Flink job moves | divergences | by area |", "|---|---|---|---|"]
    for engine in engines(root):
        divergences = engine_divergences(engine, root / FOLDER)
        counted = Counter(area(d) for d in divergences)
        areas = ", ".join(f"{AREAS[a][0]} {counted[a]}" for a in AREAS if counted[a])
        moves = title(engine, root).removeprefix("What changes when a Flink job moves ").removeprefix("What changes ")
        lines.append(f"| [`{engine}`]({prefix}{engine}.md) | {moves} | {len(divergences)} | {areas} |")
    return "\n".join(lines)


def matrix_page(root: Path) -> str:
    names = engines(root)
    lists = {engine: engine_divergences(engine, root / FOLDER) for engine in names}
    about = root / FOLDER / ABOUT
    heading, account = relinked(about.read_text(encoding="utf-8"), about, MATRIX).split("\n", 1)
    lines = [generated_notice(f"{FOLDER / ABOUT}, the divergence lists and the adapters"), "", heading, "",
             "## The matrix: divergences by area", "",
             "A row an engine, a column the area of Flink's rules a divergence changes; a cell links each divergence",
             "to its entry on the engine's page. An empty cell: the engine follows Flink there, on the features it",
             "declares (below).", "",
             "| engine | " + " | ".join(AREAS[a][0] for a in AREAS) + " |", "|---|" + "---|" * len(AREAS)]
    for engine in names:
        cells = [", ".join(_entry(engine, d) for d in lists[engine] if area(d) == a) for a in AREAS]
        lines.append(f"| [`{engine}`]({engine}.md) | " + " | ".join(cells) + " |")
    lines += ["", "The areas:", ""] + [f"- **{name}**: {what}." for name, what in AREAS.values()]
    lines += ["", "## The switches of the model, by area", "",
              "Every switch of `reference.dialects.Dialect` (each documented on its field), and the engines whose",
              "lists set it:", ""]
    for key, (name, _) in AREAS.items():
        switches = [f.name for f in dataclasses.fields(Dialect) if SWITCHES[f.name] == key]
        if switches:
            lines.append(f"- **{name}**: " + "; ".join(
                f"`{s}` ({', '.join(e for e in names if any(s in d.switches for d in lists[e])) or 'no list yet'})"
                for s in switches))
    lines += ["", "## Declared features", "",
              "What each engine declares (`features`, names of `window_contract.features.FEATURES`), as its",
              "adapter states it in its source (an engine of its own environment or JVM is not started to ask): the",
              "suite sends an engine only the cases whose features it declares.", "",
              "| feature | " + " | ".join(f"[`{e}`]({e}.md)" for e in names) + " |", "|---|" + "---|" * len(names)]
    declared = {engine: declared_features(engine, root) for engine in names}
    for feature, description in FEATURES.items():
        lines.append(f"| `{feature}`: {description} | "
                     + " | ".join("✓" if feature in declared[e] else "" for e in names) + " |")
    lines += ["", "## How divergences are listed, attributed and hunted", "", account.strip("\n")]
    return "\n".join(lines) + "\n"


def _entry(engine: str, d: Divergence) -> str:
    return f"[{d.id.removeprefix(engine + '.')}]({engine}.md#{d.id})"

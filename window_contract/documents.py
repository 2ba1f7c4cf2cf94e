"""Writes the documents the vocabulary table implies: the JSON Schemas (`schemas.py`) and the tables of
`docs/format.md` (`tables.py`), each table between its markers
`<!-- generated: NAME (python -m window_contract.documents) -->` and `<!-- end of generated: NAME -->`.
After a change of the vocabulary (a new kind, a new feature):

    python -m window_contract.documents docs

A test checks that the committed documents are what this writes.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from window_contract import join_schemas
from window_contract.schemas import generated, text
from window_contract.tables import TABLES

COMMAND = "python -m window_contract.documents"
#: The observation's schema, written by hand: the generated schemas that refer to it hold it.
OBSERVATION = "window-observation-1.schema.json"


def begin(name: str) -> str:
    return f"<!-- generated: {name} ({COMMAND}) -->"


def end(name: str) -> str:
    return f"<!-- end of generated: {name} -->"


def with_tables(markdown: str) -> str:
    """`markdown` with each generated table (between its markers) written again."""
    for name, table in TABLES.items():
        pattern = re.compile(re.escape(begin(name)) + r"\n.*?\n" + re.escape(end(name)), re.S)
        if not pattern.search(markdown):
            raise ValueError(f"no markers for the generated table {name!r}")
        generated = f"{begin(name)}\n{table()}\n{end(name)}"
        markdown = pattern.sub(lambda _, generated=generated: generated, markdown)
    return markdown


def expected(docs: Path) -> dict[Path, str]:
    """Every generated document's path and the text it must hold."""
    observation = json.loads((docs / "schemas" / OBSERVATION).read_text(encoding="utf-8"))
    files = {docs / "schemas" / name: text(schema)
             for name, schema in (generated(observation) | join_schemas.generated()).items()}
    files[docs / "format.md"] = with_tables((docs / "format.md").read_text(encoding="utf-8"))
    return files


def write(docs: Path) -> None:
    for path, content in expected(docs).items():
        path.write_text(content, encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs"))

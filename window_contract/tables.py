"""The tables of `docs/format.md` that the vocabulary table implies, generated from it: one per part of
the format (assigners, triggers, evictors, watermark generators), each kind with its tag, its fields and
its docstring, and the feature names an implementation declares. `documents.py` writes them between
their markers.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import get_type_hints

from window_contract.case import ASSIGNERS, EVICTORS, GENERATORS, TRIGGERS, Kind, TriggerSpec, Vocabulary
from window_contract.features import FEATURES, JOIN_FEATURES, SQL_JOIN_FEATURES


def _text(doc: str | None) -> str:
    return re.sub(r"\s+", " ", doc or "").strip().replace("|", "\\|")


def _field(kind: type[Kind], f: dataclasses.Field) -> str:
    hint = get_type_hints(kind)[f.name]
    text = f"`{f.name}`" + (": another trigger" if hint == TriggerSpec else "")
    if f.default is not dataclasses.MISSING:
        text += f" (default `{json.dumps(f.default)}`)"
    return text


def kinds_table(vocabulary: Vocabulary) -> str:
    """`| tag | fields | Flink |`, a row per kind."""
    rows = [f"| `{vocabulary.field}` | fields | Flink |", "| --- | --- | --- |"]
    for kind in vocabulary:
        fields = ", ".join(_field(kind, f) for f in dataclasses.fields(kind)) or "none"
        rows.append(f"| `{kind.tag}` | {fields} | {_text(kind.__doc__)} |")
    return "\n".join(rows)


def features_table() -> str:
    rows = ["| feature | a case needs it when it has |", "| --- | --- |"]
    features = FEATURES | JOIN_FEATURES | SQL_JOIN_FEATURES
    rows += [f"| `{name}` | {_text(description)} |" for name, description in features.items()]
    return "\n".join(rows)


#: The generated tables of docs/format.md, by their marker's name.
TABLES = {
    "assigners": lambda: kinds_table(ASSIGNERS),
    "triggers": lambda: kinds_table(TRIGGERS),
    "evictors": lambda: kinds_table(EVICTORS),
    "watermark generators": lambda: kinds_table(GENERATORS),
    "features": features_table,
}

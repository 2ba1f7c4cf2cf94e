"""The JSON Schemas of the formats that depend on the vocabulary table, generated from it.

`window-case-1.schema.json` states every kind of assigner, trigger, evictor, watermark generator and
event from its class in `window_contract.case` (its tag, its fields and their types, its docstring),
and `window-process-1-hello.schema.json` the feature names of `window_contract.features`; the other
schemas of `docs/schemas/` hold nothing of the vocabulary and are written by hand. A test checks that
the committed files are what `window_contract.documents` writes (with the tables of docs/format.md).
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, get_args, get_type_hints

from window_contract.case import (
    ASSIGNERS,
    CASE_FORMAT,
    EVENTS,
    EVICTORS,
    GENERATORS,
    TRIGGERS,
    DeltaFunction,
    EventKind,
    GapExtractor,
    Kind,
    Time,
    TriggerSpec,
    Vocabulary,
)
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.features import FEATURES

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://window-conformance.invalid/schemas/"


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def description(kind: type) -> str:
    """A kind's docstring as one line, without Markdown's backticks."""
    return re.sub(r"\s+", " ", (kind.__doc__ or "").replace("`", "")).strip()


def field_schema(hint: Any, f: dataclasses.Field) -> dict[str, Any]:
    """The schema of one field of a kind, from its type (as `case_json` reads it) and its metadata."""
    if hint is bool:
        schema: dict[str, Any] = {"type": "boolean"}
    elif hint is str:
        schema = {"type": "string"}
    elif hint is float:
        schema = ref("double")
    elif hint == Time:
        schema = ref("time")
    elif hint == DeltaFunction:
        schema = ref("delta_function")
    elif hint == GapExtractor:
        schema = {"enum": list(get_args(GapExtractor))}
    elif hint == TriggerSpec:
        schema = ref("trigger")
    elif hint == int | None:
        schema = {"oneOf": [{"type": "null"}, ref("long")]}
    elif f.name == "channel":
        schema = ref("channel")
    elif f.metadata.get("minimum") == 0:
        schema = ref("non_negative_long")
    else:
        schema = ref("long")
    if f.default is not dataclasses.MISSING and hint != Time:
        schema["default"] = f.default
    if "description" in f.metadata:
        schema["description"] = f.metadata["description"]
    return schema


def kind_schema(vocabulary: Vocabulary, kind: type[Kind]) -> dict[str, Any]:
    """One kind as an object: its tag under the vocabulary's field, and its fields."""
    hints = get_type_hints(kind)
    fields = dataclasses.fields(kind)
    return {
        "description": description(kind),
        "required": [vocabulary.field] + [f.name for f in fields if _required(f)],
        "additionalProperties": False,
        "properties": {vocabulary.field: {"const": kind.tag}} | {f.name: field_schema(hints[f.name], f)
                                                                 for f in fields},
    }


def _required(f: dataclasses.Field) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def vocabulary_schema(vocabulary: Vocabulary) -> dict[str, Any]:
    return {
        "type": "object",
        "required": [vocabulary.field],
        "properties": {vocabulary.field: {"enum": list(vocabulary.tags)}},
        "oneOf": [kind_schema(vocabulary, kind) for kind in vocabulary],
    }


def event_schema(kind: type[EventKind]) -> dict[str, Any]:
    """An event: its tag holding its `holds` field, the others beside it; or its tag holding an object
    of all its fields (`EventKind.holds`)."""
    hints = get_type_hints(kind)
    fields = {f.name: field_schema(hints[f.name], f) for f in dataclasses.fields(kind)}
    required = [f.name for f in dataclasses.fields(kind) if _required(f)]
    if kind.holds is None:
        properties = {kind.tag: {"type": "object", "required": required, "additionalProperties": False,
                                 "properties": fields}}
    else:
        properties = {kind.tag: fields.pop(kind.holds)} | fields
    return {"description": description(kind), "required": [kind.tag], "additionalProperties": False,
            "properties": properties}


def case_schema() -> dict[str, Any]:
    """`window-case-1.schema.json`."""
    optional = lambda name, text: {"description": text, "oneOf": [{"type": "null"}, ref(name)],  # noqa: E731
                                   "default": None}
    return {
        "$schema": DRAFT,
        "$id": BASE + "window-case-1.schema.json",
        "title": "window-case/1: a case file",
        "description": (
            "One window specification and one input stream, as a single window operator sees it "
            "(docs/format.md). A file holds one case or {\"cases\": [...]}. Checked here: the structure, the "
            "types and the Java long range. Checked only by the loader (window_contract/case_json.py): "
            "processing time never moves back, channels named by events exist and no event follows its "
            "channel's end, no watermark events beside a watermark_generator, and the combinations Java's "
            "types forbid (docs/format.md, 'Rules beyond the schema'). Flink's own preconditions (size > 0, "
            "abs(offset) < size, ...) are not format rules: a case that breaks them is valid and observes an "
            "invalid_spec error. Generated from the vocabulary table (python -m window_contract.documents)."),
        "oneOf": [ref("case"), {"type": "object", "required": ["cases"], "additionalProperties": False,
                                "properties": {"cases": {"type": "array", "items": ref("case")}}}],
        "$defs": {
            "double": {"description": "a Java double: any finite JSON number (JSON has no NaN or infinity), read "
                                      "as the nearest double", "type": "number"},
            "delta_function": {
                "description": "a DeltaFunction over two record values, each converted to double: "
                               "absolute_difference is Math.abs((double) old - (double) new), difference is "
                               "(double) new - (double) old",
                "enum": list(get_args(DeltaFunction))},
            "long": {"description": "a Java long: Flink computes times and window parameters in long",
                     "type": "integer", "minimum": LONG_MIN, "maximum": LONG_MAX},
            "non_negative_long": {"$ref": "#/$defs/long", "minimum": 0},
            "time": {"description": "event time (the records' timestamps and the watermarks) or processing time "
                                    "(the clock)", "enum": list(get_args(Time)), "default": "event"},
            "case": {
                "type": "object",
                "required": ["format", "window", "events"],
                "additionalProperties": False,
                "properties": {
                    "format": {"const": CASE_FORMAT},
                    "name": {"type": ["string", "null"], "description": "a label; not part of the case's meaning"},
                    "window": ref("window"),
                    "trigger": optional("trigger", "null: the assigner's default trigger"),
                    "evictor": optional("evictor", "null: no evictor (countWindow(size, slide) brings its own)"),
                    "allowed_lateness": {
                        "$ref": "#/$defs/long", "default": 0,
                        "description": "WindowedStream.allowedLateness, in ms; Flink rejects a negative one when it "
                                       "builds the job (an invalid_spec observation, not a format error)"},
                    "late_side_output": {
                        "type": "boolean", "default": False,
                        "description": "sideOutputLateData: late records go to the side output (late) instead of "
                                       "being dropped (dropped)"},
                    "events": {"type": "array", "items": ref("event"), "description": "in arrival order"},
                    "end_of_input": {
                        "type": "boolean", "default": True,
                        "description": "a bounded source: after the last event the operator gets "
                                       "Watermark(Long.MAX_VALUE)"},
                    "expected": {"oneOf": [{"type": "null"}, {"$ref": "window-observation-1.schema.json"}],
                                 "description": "what Flink emits for the case"},
                    "channels": {"$ref": "#/$defs/long", "minimum": 1, "default": 1,
                                 "description": "parallel upstream instances (input channels) feeding the one "
                                                "window operator"},
                    "watermark_generator": optional(
                        "watermark_generator", "null: the case's own watermark events are the watermarks; "
                                               "otherwise one generator per channel, fed that channel's records"),
                },
            },
            "window": vocabulary_schema(ASSIGNERS),
            "trigger": vocabulary_schema(TRIGGERS),
            "evictor": vocabulary_schema(EVICTORS),
            "event": {"type": "object",
                      "description": "an object with exactly one of the tags " + ", ".join(EVENTS.tags),
                      "oneOf": [event_schema(kind) for kind in EVENTS]},
            "channel": {"$ref": "#/$defs/non_negative_long", "description": "an input channel, 0 to channels - 1"},
            "watermark_generator": vocabulary_schema(GENERATORS),
        },
    }


def hello_schema() -> dict[str, Any]:
    """`window-process-1-hello.schema.json`, with the feature names as an enum."""
    return {
        "$schema": DRAFT,
        "$id": BASE + "window-process-1-hello.schema.json",
        "title": "window-process/1 hello: the process's first line on stdout",
        "description": "What the implementation is. The suite waits up to 60 s for it after starting the command "
                       "(docs/protocol.md).",
        "type": "object",
        "required": ["type", "protocol", "name", "features"],
        "additionalProperties": False,
        "properties": {
            "type": {"const": "hello"},
            "protocol": {"const": "window-process/1", "description": "the protocol's version; the suite refuses "
                                                                     "any other"},
            "name": {"type": "string", "minLength": 1, "description": "the implementation's name in the report"},
            "features": {"type": "array", "items": {"enum": list(FEATURES)}, "uniqueItems": True,
                         "description": "the features it supports (docs/format.md, 'Features'); the suite sends "
                                        "only cases that need no other"},
            "position_free": {
                "type": "boolean", "default": False,
                "description": "true for an engine that cannot tell at which event it emitted an output: its "
                               "observations have \"at\": null everywhere and it is compared over whole cases"},
            "costly_calls": {
                "type": "boolean", "default": False,
                "description": "true when every request costs the engine a job (seconds, not milliseconds): the "
                               "suite then sends each property's cases in a few large requests (prefetching)"},
        },
    }


#: The generated schemas, by file name.
GENERATED = {"window-case-1.schema.json": case_schema, "window-process-1-hello.schema.json": hello_schema}


def text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"

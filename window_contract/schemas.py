"""The JSON Schemas of the formats that depend on the vocabulary table, generated from it.

`window-case-1.schema.json` states every kind of assigner, trigger, evictor, watermark generator and
event from its class in `window_contract.case` (its tag, its fields and their types, its docstring),
`window-process-1-hello.schema.json` and `window-corpus-1.schema.json` (the corpus's `index.json`) the
feature names of `window_contract.features`. The observation's and the error message's schemas hold nothing
of the vocabulary and are written by hand.

Each schema that refers to another holds it (`bundled`): the case schema the observation's, the run request
the case's, the observations answer the observation's. A schema is then one self-contained file, which
off-the-shelf validators take without fetching anything (`check-jsonschema --schemafile`, `python -m
jsonschema`). A test checks that the committed files are what `window_contract.documents` writes (with the
tables of docs/format.md).
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
from window_contract.features import FEATURES, JOIN_FEATURES, SQL_JOIN_FEATURES

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE = "https://window-conformance.invalid/schemas/"
#: The format of a corpus's `index.json` (`python -m conformance corpus` writes it).
CORPUS_FORMAT = "window-corpus/1"


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


def bundled(schema: dict[str, Any], name: str, document: dict[str, Any]) -> dict[str, Any]:
    """`schema` holding the schema `document` as its definition `name` (draft 2020-12's `$defs`): `document`'s
    own references (`#/$defs/...`) made to point inside that definition, its `$schema` and `$id` left out."""
    inner = _moved({k: v for k, v in document.items() if k not in ("$schema", "$id")}, f"#/$defs/{name}/")
    return schema | {"$defs": schema.get("$defs", {}) | {name: inner}}


def _moved(value: Any, prefix: str) -> Any:
    if isinstance(value, dict):
        return {k: (prefix + v.removeprefix("#/") if k == "$ref" and v.startswith("#/") else _moved(v, prefix))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_moved(v, prefix) for v in value]
    return value


def case_schema(observation: dict[str, Any]) -> dict[str, Any]:
    """`window-case-1.schema.json`, holding `observation` (the observation's schema) for `expected`."""
    return bundled(_case_schema(), "observation", observation)


def _case_schema() -> dict[str, Any]:
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
                    "expected": {"oneOf": [{"type": "null"}, ref("observation")],
                                 "description": "what Flink emits for the case"},
                    "channels": {"$ref": "#/$defs/long", "minimum": 1, "default": 1,
                                 "description": "parallel upstream instances (input channels) feeding the one "
                                                "window operator"},
                    "watermark_generator": optional(
                        "watermark_generator", "null: the case's own watermark events are the watermarks; "
                                               "otherwise one generator per channel, fed that channel's records"),
                    "violates": {
                        "type": "object", "required": ["property"], "additionalProperties": False,
                        "description": "a counterexample that python -m conformance run saved: the property of "
                                       "the suite it breaks, which replay --check checks again",
                        "properties": {
                            "property": {"type": "string", "description": "the property (the suite's test name "
                                                                          "without test_)"},
                            "batch": {"type": "array", "items": ref("case"),
                                      "description": "a rule about batches: the cases of the run call the "
                                                     "case was in, itself among them"},
                            "original": {"$ref": "#/$defs/case",
                                         "description": "a rule about a change that changes nothing: the case "
                                                        "that the rule changed into this one"},
                        },
                    },
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
            "features": {"type": "array", "uniqueItems": True,
                         "items": {"enum": [*FEATURES, *JOIN_FEATURES, *SQL_JOIN_FEATURES]},
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


REQUEST_ID = {"type": "integer", "minimum": 1,
              "description": "the request's number: 1, 2, ... in one conversation with the suite (a process started "
                            "again after a fault goes on counting)"}


def run_schema(observation: dict[str, Any]) -> dict[str, Any]:
    """`window-process-1-run.schema.json`, holding the case's schema."""
    schema = {
        "$schema": DRAFT,
        "$id": BASE + "window-process-1-run.schema.json",
        "title": "window-process/1 run request: a batch of cases, from the suite on the process's stdin",
        "description": "One line. The process answers it with one observations or error message, before the next "
                       "request comes.",
        "type": "object",
        "required": ["type", "id", "cases"],
        "additionalProperties": False,
        "properties": {
            "type": {"const": "run"},
            "id": REQUEST_ID,
            "cases": {"type": "array", "items": ref("window-case-1"),
                      "description": "the cases, each a window-case/1 document"},
        },
    }
    return bundled(schema, "window-case-1", case_schema(observation))


def observations_schema(observation: dict[str, Any], name: str = "window-observation-1",
                        file: str = "window-process-1-observations.schema.json",
                        request: str = "run") -> dict[str, Any]:
    """`window-process-1-observations.schema.json`, holding the observation's schema (`name`); with another
    observation, the answer to another `request` (a join's, `join_schemas`)."""
    schema = {
        "$schema": DRAFT,
        "$id": BASE + file,
        "title": f"window-process/1 answer: one observation per case of a {request} request, on the process's stdout",
        "description": (
            "One line. Fewer or more observations than the request's cases, or one that breaks window-observation/1, "
            "is a failure to run every case of the request; a specification Flink rejects is an observation with an "
            "invalid_spec error, not an error message. An engine that could not run some cases (real Flink, after a "
            "case that never ends) leaves null in their place, lists them in retry, and the suite sends them again "
            "in a later request."),
        "type": "object",
        "required": ["type", "id", "observations"],
        "additionalProperties": False,
        "properties": {
            "type": {"const": "observations"},
            "id": REQUEST_ID,
            "observations": {"type": "array", "items": {"oneOf": [ref(name), {"type": "null"}]},
                             "description": "in the order of the request's cases; null exactly for the cases listed "
                                            "in retry"},
            "retry": {"type": "array", "items": {"type": "integer", "minimum": 0}, "uniqueItems": True, "default": [],
                      "description": "the indices (from 0, ascending) of the cases the process did not run, whose "
                                     "observations are null: the suite sends them again in a later request. An "
                                     "answer that retries every case of its request is a fault (no progress)"},
            "exiting": {"type": "boolean", "default": False,
                        "description": "true when the process ends after this answer (its engine is no longer "
                                       "usable); the suite starts the command again for the next request"},
        },
    }
    return bundled(schema, name, observation)


def corpus_schema() -> dict[str, Any]:
    """`window-corpus-1.schema.json`: a corpus's `index.json`, with the feature names as an enum."""
    feature = {"enum": list(FEATURES)}
    return {
        "$schema": DRAFT,
        "$id": BASE + "window-corpus-1.schema.json",
        "title": "window-corpus/1: the index of a corpus of cases with their expected observations",
        "description": "corpus/index.json, written by python -m conformance corpus: which file holds each case, the "
                       "features it needs and what it exercises (README, 'The corpus').",
        "type": "object",
        "required": ["format", "seed", "per_feature", "files", "not_drawn", "cases"],
        "additionalProperties": False,
        "properties": {
            "format": {"const": CORPUS_FORMAT},
            "seed": {"type": "integer", "description": "the drawing seed (corpus --seed)"},
            "per_feature": {"type": "integer", "minimum": 1, "description": "cases drawn per feature"},
            "files": {"type": "object", "additionalProperties": {"type": "string"},
                      "description": "each case file (<feature>.json, {\"cases\": [...]} in window-case/1) and "
                                     "the feature it was drawn for, described"},
            "not_drawn": {"type": "array", "items": feature, "description": "features no strategy reaches"},
            "cases": {"type": "array", "items": {
                "type": "object",
                "required": ["file", "index", "name", "features", "exercises"],
                "additionalProperties": False,
                "properties": {
                    "file": {"type": "string", "description": "the case file, relative to the index"},
                    "index": {"type": "integer", "minimum": 0, "description": "the case's index in the file's cases"},
                    "name": {"type": "string"},
                    "features": {"type": "array", "items": feature, "uniqueItems": True,
                                 "description": "the features the case needs: run it only when an engine has every "
                                                "one of them"},
                    "exercises": {"type": "array", "items": {"type": "string"},
                                  "description": "what the case exercises (late firings, side output, session "
                                                 "merges, ...)"},
                },
            }},
        },
    }


def generated(observation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The generated schemas, by file name, given the observation's (written by hand)."""
    return {"window-case-1.schema.json": case_schema(observation),
            "window-process-1-hello.schema.json": hello_schema(),
            "window-process-1-run.schema.json": run_schema(observation),
            "window-process-1-observations.schema.json": observations_schema(observation),
            "window-corpus-1.schema.json": corpus_schema()}


def text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"

"""The JSON Schemas of `join-case/1` and `join-observation/1`, generated from the window case's vocabulary: a
join's window, trigger and evictor, and each input's events, are the window case's own kinds (`schemas._case_schema`),
so a new kind reaches both formats at once. Each schema stands alone (the case's holds the observation's).
"""

from __future__ import annotations

from typing import Any

from window_contract.case import EVENTS, ProcessingTime
from window_contract.join_case import (
    JOIN_CASE_FORMAT,
    SQL_INTERVAL_JOIN_TYPES,
    SQL_JOIN_TYPES,
    SQL_SUBQUERY_FLAVOURS,
)
from window_contract.join_case_json import OPERATIONS, SQL_WINDOWS
from window_contract.join_observation import JOIN_OBSERVATION_FORMAT, SIDES
from window_contract.schemas import (
    BASE,
    DRAFT,
    REQUEST_ID,
    _case_schema,
    bundled,
    event_schema,
    observations_schema,
    ref,
)

#: The window case's definitions a join case uses.
SHARED = ("long", "non_negative_long", "time", "double", "delta_function", "window", "trigger", "evictor", "channel")


def _at() -> dict[str, Any]:
    return {"oneOf": [{"$ref": "#/$defs/non_negative_long"}, {
        "type": "null", "description": "a position-free implementation's: it cannot tell when it emitted the output "
                                       "(every at of its observations is null)"}],
            "description": "the index of the event during which it happened; the number of events for the end of input"}


def _output_watermark() -> dict[str, Any]:
    return {"oneOf": [ref("long"), {"type": "null", "description": "not observed (a position-free implementation)"}],
            "description": "the operator's watermark at the output"}


def join_observation_schema() -> dict[str, Any]:
    long, text = ref("long"), {"type": "string"}
    common = {"at": _at(), "key": text, "timestamp": long, "watermark": _output_watermark()}
    values = {"type": "array", "items": ref("long")}
    nullable_long = {"oneOf": [{"type": "null"}, long]}
    side_record = {"type": "object", "required": ["at", "input", "key", "value", "ts"], "additionalProperties": False,
                   "properties": {"at": _at(), "input": ref("input"), "key": text, "value": long, "ts": long}}
    return {
        "$schema": DRAFT, "$id": BASE + "join-observation-1.schema.json",
        "title": "join-observation/1: what a join emitted for one join case",
        "description": "Outputs, late and dropped records and watermarks, each stamped with at (docs/format.md, "
                       "'Two inputs'). Generated (python -m window_contract.documents).",
        "type": "object", "required": ["format"], "additionalProperties": False,
        "properties": {
            "format": {"const": JOIN_OBSERVATION_FORMAT},
            "outputs": {"type": "array", "default": [], "items": {"oneOf": [
                {"description": "a joined pair (window join, interval join)", "type": "object",
                 "required": [*common, "left", "right"], "additionalProperties": False,
                 "properties": common | {"left": long, "right": long}},
                {"description": "a call of the coGroup function", "type": "object",
                 "required": [*common, "left_values", "right_values"], "additionalProperties": False,
                 "properties": common | {"left_values": values, "right_values": values}},
                {"description": "a SQL join's row: null for a side padded with nulls (and a semi or anti join's "
                                "right), window its window_start and window_end", "type": "object",
                 "required": ["at", "key", "watermark", "left", "right", "window"], "additionalProperties": False,
                 "properties": {"at": _at(), "key": text, "watermark": _output_watermark(), "left": nullable_long,
                                "right": nullable_long, "timestamp": nullable_long | {"default": None},
                                "window": {"oneOf": [{"type": "null"}, {
                                    "type": "object", "required": ["start", "end"], "additionalProperties": False,
                                    "properties": {"start": long, "end": long}}]}}}]}},
            "late": {"type": "array", "items": side_record, "default": [],
                     "description": "an interval join's late side outputs"},
            "dropped": {"type": "array", "items": side_record, "default": [],
                        "description": "late records Flink drops"},
            "watermarks": {"type": "array", "default": [], "description": "the watermarks the join's operator "
                                                                          "received, in order",
                           "items": {"type": "object", "required": ["at", "watermark"], "additionalProperties": False,
                                     "properties": {"at": _at(), "watermark": long}}},
            "error": {"default": None, "oneOf": [{"type": "null"}, {
                "type": "object", "required": ["kind", "message"], "additionalProperties": False,
                "properties": {"kind": {"enum": ["invalid_spec", "runtime"]}, "message": text}}]},
        },
        "$defs": {"long": _case_schema()["$defs"]["long"], "non_negative_long": {"$ref": "#/$defs/long", "minimum": 0},
                  "input": {"enum": list(SIDES)}},
    }


def _join_event(kind) -> dict[str, Any]:
    schema = event_schema(kind)
    return schema | {"required": ["input", *schema["required"]],
                     "properties": {"input": ref("input")} | schema["properties"]}


def join_case_schema() -> dict[str, Any]:
    window_defs = _case_schema()["$defs"]
    boolean = {"type": "boolean", "default": False}
    channels = {"type": "object", "additionalProperties": False, "properties": {
        "channels": {"$ref": "#/$defs/long", "minimum": 1, "default": 1,
                     "description": "parallel upstream instances of this input"}}}
    schema = {
        "$schema": DRAFT, "$id": BASE + "join-case-1.schema.json",
        "title": "join-case/1: a file of join cases",
        "description": "Two keyed inputs and one of Flink's DataStream joins over them, the events in the order the "
                       "join's operator receives them (docs/format.md, 'Two inputs'). A file holds one case or "
                       "{\"cases\": [...]}. Generated (python -m window_contract.documents).",
        "oneOf": [ref("case"), {"type": "object", "required": ["cases"], "additionalProperties": False,
                                "properties": {"cases": {"type": "array", "items": ref("case")}}}],
        "$defs": {name: window_defs[name] for name in SHARED} | {
            "input": {"enum": list(SIDES)},
            "case": {"type": "object", "required": ["format", "join", "events"], "additionalProperties": False,
                     "properties": {
                         "format": {"const": JOIN_CASE_FORMAT},
                         "name": {"type": ["string", "null"]},
                         "join": ref("join"),
                         "inputs": {"type": "object", "additionalProperties": False,
                                    "properties": {side: channels for side in SIDES}},
                         "events": {"type": "array", "items": ref("event")},
                         "end_of_input": {"type": "boolean", "default": True},
                         "expected": {"oneOf": [{"type": "null"}, ref("observation")]}}},
            "join": {"type": "object", "required": ["operation"], "properties": {"operation": {"enum": OPERATIONS}},
                     "oneOf": [
                         {"description": "JoinedStreams / CoGroupedStreams .window(...)", "additionalProperties": False,
                          "required": ["operation", "window"], "properties": {
                              "operation": {"enum": ["window_join", "window_cogroup"]}, "window": ref("window"),
                              "trigger": {"oneOf": [{"type": "null"}, ref("trigger")], "default": None},
                              "evictor": {"oneOf": [{"type": "null"}, ref("evictor")], "default": None},
                              "allowed_lateness": {"$ref": "#/$defs/long", "default": 0}}},
                         {"description": "KeyedStream.intervalJoin(...).between(lower, upper)",
                          "additionalProperties": False, "required": ["operation", "lower", "upper"], "properties": {
                              "operation": {"const": "interval_join"}, "lower": ref("long"), "upper": ref("long"),
                              "lower_exclusive": boolean, "upper_exclusive": boolean,
                              "late_side_output": {"type": "object", "additionalProperties": False,
                                                   "properties": {side: boolean for side in SIDES}}}},
                         {"description": "Flink SQL's window join of two window table functions",
                          "additionalProperties": False, "required": ["operation", "window"], "properties": {
                              "operation": {"const": "sql_window_join"},
                              "type": {"enum": list(SQL_JOIN_TYPES), "default": "inner"},
                              "flavour": {"enum": list(SQL_SUBQUERY_FLAVOURS), "default": "exists",
                                          "description": "a semi or anti join's subquery: [NOT] EXISTS or [NOT] IN"},
                              "window": {"allOf": [ref("window"), {"properties": {
                                  "assigner": {"enum": list(SQL_WINDOWS)}}}]}}},
                         {"description": "Flink SQL's interval join: lower <= l.rt - r.rt <= upper, lower <= upper",
                          "additionalProperties": False, "required": ["operation", "lower", "upper"], "properties": {
                              "operation": {"const": "sql_interval_join"},
                              "type": {"enum": list(SQL_INTERVAL_JOIN_TYPES), "default": "inner"},
                              "lower": ref("long"), "upper": ref("long")}}]},
            "event": {"type": "object", "description": "an input's event: input beside one of the tags "
                                                       + ", ".join(k.tag for k in EVENTS if k is not ProcessingTime),
                      "oneOf": [_join_event(kind) for kind in EVENTS if kind is not ProcessingTime]},
        },
    }
    return bundled(schema, "observation", join_observation_schema())


def run_joins_schema() -> dict[str, Any]:
    """`window-process-1-run-joins.schema.json`: a batch of join cases, to a process that declares a join."""
    schema = {
        "$schema": DRAFT,
        "$id": BASE + "window-process-1-run-joins.schema.json",
        "title": "window-process/1 run_joins request: a batch of join cases, from the suite on the process's stdin",
        "description": "One line, only to a process whose hello declares a join feature (join.window, join.cogroup, "
                       "join.interval, join.sql_window, join.sql_interval). The process answers it as a run request, "
                       "with join-observation/1 documents.",
        "type": "object",
        "required": ["type", "id", "cases"],
        "additionalProperties": False,
        "properties": {
            "type": {"const": "run_joins"},
            "id": REQUEST_ID,
            "cases": {"type": "array", "items": ref("join-case-1"), "description": "each a join-case/1 document"},
        },
    }
    return bundled(schema, "join-case-1", join_case_schema())


def generated() -> dict[str, dict[str, Any]]:
    return {"join-case-1.schema.json": join_case_schema(), "join-observation-1.schema.json": join_observation_schema(),
            "window-process-1-run-joins.schema.json": run_joins_schema(),
            "window-process-1-join-observations.schema.json": observations_schema(
                join_observation_schema(), "join-observation-1", "window-process-1-join-observations.schema.json",
                "run_joins")}

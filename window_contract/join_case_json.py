"""The `join-case/1` JSON format (docs/format.md): validated loading, every problem by JSON path and rule.

The window, trigger, evictor and each input's events are read by the window case's own readers
(`window_contract.case_json`), so they mean and are checked exactly as in a `window-case/1` case; what a join adds
is read here: the join's operation and its parameters, each input's channels, and the `input` of every event.
Like the window case, loading checks the format and not Flink's job-time preconditions: `lower > upper` loads,
and Flink's answer to it is an `invalid_spec` observation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from window_contract.case import ASSIGNERS, EVICTORS, TRIGGERS, ProcessingTime
from window_contract.case_json import _check_channels, _check_fit, _read_event, _read_kind, read_case_file, read_cases
from window_contract.join_case import (
    JOIN_CASE_FORMAT,
    SQL_INTERVAL_JOIN_TYPES,
    SQL_JOIN_TYPES,
    SQL_SUBQUERY_FLAVOURS,
    IntervalJoin,
    JoinCase,
    JoinEvent,
    JoinSpec,
    SqlIntervalJoin,
    SqlWindowJoin,
    WindowJoin,
)
from window_contract.join_observation import SIDES, join_observation_from_json
from window_contract.validation import MISSING, Fields, Problems, parse_json

OPERATIONS = ("window_join", "window_cogroup", "interval_join", "sql_window_join", "sql_interval_join")
#: The windows of Flink SQL's window table functions a window join of this format takes (Flink 2.3 plans a `SESSION`
#: window join too, its table function partitioned by the key: not in this format yet).
SQL_WINDOWS = ("tumbling", "sliding", "cumulative")


def join_cases_from_json(doc: Any, source: str | None = None) -> list[JoinCase]:
    """A file's join cases: one case, or `{"cases": [...]}`; raises `CaseFormatError` listing every problem."""
    return read_cases(doc, _read_join_case, source)


def load_join_cases(path: str | Path) -> list[JoinCase]:
    """The join cases of one file; a malformed file raises `CaseFormatError` naming the file."""
    return join_cases_from_json(parse_json(read_case_file(path), str(path)), str(path))


def _read_join_case(doc: Any, path: str, problems: Problems) -> JoinCase:
    f = Fields(doc, path, problems)
    fmt = f.take("format")
    if fmt not in (MISSING, JOIN_CASE_FORMAT):
        problems.add(f.at("format"), f"must be {JOIN_CASE_FORMAT!r}, not {fmt!r}")
    name = f.take_str("name", None, nullable=True)
    join = _read_join(f.take("join"), f.at("join"), problems) if f.ok else None
    channels = _read_inputs(f.take("inputs", {}), f.at("inputs"), problems)
    events = f.take_list("events", lambda item, p: _read_join_event(item, p, problems))
    end_of_input = f.take_bool("end_of_input", True)
    expected_doc = f.take("expected", None)
    f.done()
    expected = None if expected_doc is None else join_observation_from_json(expected_doc, f.at("expected"), problems)
    for side in SIDES:  # each input's events name its channels, as a window case's events name the case's
        of_side = [e.event if e is not None and e.input == side else None for e in events]
        _check_channels(f, of_side, channels[side], False, problems)
    return JoinCase(join or IntervalJoin(0, 0), tuple(e for e in events if e is not None), channels["left"],
                    channels["right"], end_of_input, name, expected)


def _read_join(doc: Any, path: str, problems: Problems) -> JoinSpec | None:
    f = Fields(doc, path, problems)
    if not f.ok:
        return None
    operation = f.take_choice("operation", OPERATIONS)
    if operation == "interval_join":
        late = Fields(f.take("late_side_output", {}), f.at("late_side_output"), problems)
        join = IntervalJoin(f.take_long("lower"), f.take_long("upper"), f.take_bool("lower_exclusive", False),
                            f.take_bool("upper_exclusive", False), late.take_bool("left", False),
                            late.take_bool("right", False))
        late.done()
    elif operation == "sql_interval_join":
        join_type = f.take_choice("type", SQL_INTERVAL_JOIN_TYPES, "inner")
        join = SqlIntervalJoin(f.take_long("lower"), f.take_long("upper"), join_type or "inner")
        if join.lower > join.upper:
            problems.add(path, "lower > upper: Flink's planner makes no interval join of a negative window (it "
                               "filters, or pads every row of an outer side), which this format does not take")
    elif operation == "sql_window_join":
        join_type = f.take_choice("type", SQL_JOIN_TYPES, "inner") or "inner"
        flavour = f.take_choice("flavour", SQL_SUBQUERY_FLAVOURS, "exists") or "exists"
        if flavour != "exists" and join_type not in ("semi", "anti"):
            problems.add(f.at("flavour"), "is how a semi or anti join's subquery is written, not a "
                                          f"{join_type} join's")
        window = _read_kind(ASSIGNERS, f.take("window"), f.at("window"), problems)
        join = SqlWindowJoin(window, join_type, flavour) if window is not None else None
        if window is not None and (window.tag not in SQL_WINDOWS or getattr(window, "time", "event") != "event"):
            problems.add(f.at("window"), f"a SQL window join in this format is over an event-time window of "
                                         f"{', '.join(SQL_WINDOWS)}, not {window.tag!r} (Flink 2.3 plans a SESSION "
                                         "window join too, which this format does not take yet)")
    elif operation is not None:
        window = _read_kind(ASSIGNERS, f.take("window"), f.at("window"), problems)
        trigger = _read_kind(TRIGGERS, f.take("trigger", None), f.at("trigger"), problems, optional=True)
        evictor = _read_kind(EVICTORS, f.take("evictor", None), f.at("evictor"), problems, optional=True)
        join = WindowJoin(window, operation == "window_cogroup", trigger, evictor, f.take_long("allowed_lateness", 0))
        if window is not None:
            _check_fit(window, trigger, evictor, path, problems)
            _check_tagged(join, path, problems)
    else:
        join = None
    f.done()
    return join


def _check_tagged(join: WindowJoin, path: str, problems: Problems) -> None:
    """A window join's trigger, evictor and gap extractor take `TaggedUnion` elements, over which the format's
    named functions of a record's value are not defined (docs/format.md)."""
    tagged = [kind.tag for kind in (join.window, join.trigger, join.evictor)
              if kind is not None and kind.tag in ("dynamic_session", "delta")]
    if tagged:
        problems.add(path, f"{tagged[0]!r} takes a function of the element, which a join's TaggedUnion elements "
                           "do not have in this format")
    if join.window.tag == "cumulative":
        problems.add(path, "'cumulative' is Flink SQL's CUMULATE: the DataStream API a window join is written in has "
                           "no cumulative assigner")


def _read_inputs(doc: Any, path: str, problems: Problems) -> dict[str, int]:
    f = Fields(doc, path, problems)
    channels = {}
    for side in SIDES:
        one = Fields(f.take(side, {}), f.at(side), problems)
        channels[side] = one.take_long("channels", 1, minimum=1)
        one.done()
    f.done()
    return channels


def _read_join_event(doc: Any, path: str, problems: Problems) -> JoinEvent | None:
    """`{"input": "left", <a window case's event>}`: a record, watermark, status or channel end of that input."""
    if not isinstance(doc, dict):
        problems.add(path, "must be an object")
        return None
    side = Fields(doc, path, problems).take_choice("input", SIDES)
    event = _read_event({k: v for k, v in doc.items() if k != "input"}, path, problems)
    if isinstance(event, ProcessingTime):
        problems.add(path, "processing_time is not an event of a join case: its joins run in event time")
        return None
    return None if side is None or event is None else JoinEvent(side, event)


"""The `window-case/1` JSON format (DESIGN.md §2): validated loading and canonical dumping.

Loading reports every problem by JSON path and rule (`CaseFormatError`). It checks the format, not
Flink's job-time preconditions: a tumbling window with `size: 0` loads, and every implementation
must answer it with an `invalid_spec` observation carrying Flink's message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from conformance.case import (
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountEvictor,
    CountTrigger,
    Event,
    EventTimeTrigger,
    EvictorSpec,
    Global,
    NeverTrigger,
    ProcessingTime,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TimeEvictor,
    TriggerSpec,
    Tumbling,
    Watermark,
    WindowSpec,
)
from conformance.observation_json import observation_from_json, observation_to_json
from conformance.validation import CaseFormatError, Fields, Problems

CASE_FORMAT = "window-case/1"

ASSIGNERS = ("tumbling", "sliding", "session", "global", "count")
TRIGGERS = ("event_time", "processing_time", "count", "continuous_event_time",
            "continuous_processing_time", "purging", "never")
EVICTORS = ("count", "time")
TIMES = ("event", "processing")


# --- loading ----------------------------------------------------------------------------------


def case_from_json(doc: Any, path: str = "$", source: str | None = None) -> Case:
    """One case from parsed JSON; raises `CaseFormatError` listing every problem."""
    problems = Problems()
    case = _read_case(doc, path, problems)
    problems.raise_if_any(source)
    return case


def cases_from_json(doc: Any, source: str | None = None) -> list[Case]:
    """A file's cases: one case, or `{"cases": [...]}`."""
    problems = Problems()
    if isinstance(doc, dict) and "cases" in doc and "format" not in doc:
        f = Fields(doc, "$", problems)
        cases = f.take_list("cases", lambda item, p: _read_case(item, p, problems))
        f.done()
    else:
        cases = [_read_case(doc, "$", problems)]
    problems.raise_if_any(source)
    return cases


def load_cases(path: str | Path) -> list[Case]:
    """The cases of one file; a malformed file raises `CaseFormatError` naming the file."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise CaseFormatError([], f"{path}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise CaseFormatError([], f"{path}: not JSON: {e}") from None
    return cases_from_json(doc, str(path))


def case_files(paths: list[str | Path]) -> Iterator[Path]:
    """The `.json` files named, and those found (sorted) in the folders named."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(p.rglob("*.json"))
        else:
            yield p


def _read_case(doc: Any, path: str, problems: Problems) -> Case:
    f = Fields(doc, path, problems)
    fmt = f.take("format")
    if fmt is not None and fmt != CASE_FORMAT:
        problems.add(f.at("format"), f"must be {CASE_FORMAT!r}, not {fmt!r}")
    name = f.take_str("name", None, nullable=True)
    window = _read_window(f.take("window"), f.at("window"), problems) if f.ok else None
    trigger = _read_trigger(f.take("trigger", None), f.at("trigger"), problems)
    evictor = _read_evictor(f.take("evictor", None), f.at("evictor"), problems)
    lateness = f.take_long("allowed_lateness", 0, minimum=0)
    side_output = f.take_bool("late_side_output", False)
    events = f.take_list("events", lambda item, p: _read_event(item, p, problems))
    end_of_input = f.take_bool("end_of_input", True)
    expected_doc = f.take("expected", None)
    f.done()
    expected = None
    if expected_doc is not None:
        try:
            expected = observation_from_json(expected_doc, f.at("expected"))
        except CaseFormatError as e:
            problems.found.extend(e.problems)
    if window is not None:
        _check_fit(window, trigger, evictor, path, problems)
    _check_clock(events, f.at("events"), problems)
    return Case(window=window or Global(), events=tuple(e for e in events if e is not None),
                trigger=trigger, evictor=evictor, allowed_lateness=lateness,
                late_side_output=side_output, end_of_input=end_of_input, name=name,
                expected=expected)


def _read_window(doc: Any, path: str, problems: Problems) -> WindowSpec | None:
    f = Fields(doc, path, problems)
    if not f.ok:
        return None
    kind = f.take_choice("assigner", ASSIGNERS)
    window: WindowSpec | None = None
    if kind == "tumbling":
        window = Tumbling(f.take_long("size"), f.take_long("offset", 0), f.take_choice("time", TIMES, "event"))
    elif kind == "sliding":
        window = Sliding(f.take_long("size"), f.take_long("slide"), f.take_long("offset", 0),
                         f.take_choice("time", TIMES, "event"))
    elif kind == "session":
        window = Session(f.take_long("gap"), f.take_choice("time", TIMES, "event"))
    elif kind == "global":
        window = Global()
    elif kind == "count":
        slide = f.take("slide", None)
        window = Count(f.take_long("size"), None if slide is None else f.take_long("slide"))
    if kind is not None:
        f.done()
    return window


def _read_trigger(doc: Any, path: str, problems: Problems) -> TriggerSpec | None:
    if doc is None:
        return None
    f = Fields(doc, path, problems)
    if not f.ok:
        return None
    kind = f.take_choice("type", TRIGGERS)
    trigger: TriggerSpec | None = None
    if kind == "event_time":
        trigger = EventTimeTrigger()
    elif kind == "processing_time":
        trigger = ProcessingTimeTrigger()
    elif kind == "count":
        trigger = CountTrigger(f.take_long("count"))
    elif kind == "continuous_event_time":
        trigger = ContinuousEventTimeTrigger(f.take_long("interval"))
    elif kind == "continuous_processing_time":
        trigger = ContinuousProcessingTimeTrigger(f.take_long("interval"))
    elif kind == "purging":
        inner_doc = f.take("inner")
        inner = _read_trigger(inner_doc, f.at("inner"), problems) if inner_doc is not None else None
        trigger = PurgingTrigger(inner) if inner is not None else None
    elif kind == "never":
        trigger = NeverTrigger()
    if kind is not None:
        f.done()
    return trigger


def _read_evictor(doc: Any, path: str, problems: Problems) -> EvictorSpec | None:
    if doc is None:
        return None
    f = Fields(doc, path, problems)
    if not f.ok:
        return None
    kind = f.take_choice("type", EVICTORS)
    evictor: EvictorSpec | None = None
    if kind == "count":
        evictor = CountEvictor(f.take_long("max_count"), f.take_bool("after", False))
    elif kind == "time":
        evictor = TimeEvictor(f.take_long("size"), f.take_bool("after", False))
    if kind is not None:
        f.done()
    return evictor


EVENT_KINDS = ("record", "watermark", "processing_time")


def _read_event(doc: Any, path: str, problems: Problems) -> Event | None:
    if not isinstance(doc, dict) or len(doc) != 1 or next(iter(doc)) not in EVENT_KINDS:
        problems.add(path, "must be an object with exactly one of the fields "
                           + ", ".join(map(repr, EVENT_KINDS)))
        return None
    f = Fields(doc, path, problems)
    if "record" in doc:
        r = Fields(f.take("record"), f.at("record"), problems)
        key, value, ts = r.take_str("key"), r.take_long("value"), r.take_long("ts")
        r.done()
        return Record(key or "", value, ts) if r.ok else None
    if "watermark" in doc:
        return Watermark(f.take_long("watermark"))
    return ProcessingTime(f.take_long("processing_time", minimum=0))


def _check_clock(events: list[Event | None], path: str, problems: Problems) -> None:
    """Processing time starts at 0 and only moves forward (DESIGN.md §2)."""
    now = 0
    for i, event in enumerate(events):
        if isinstance(event, ProcessingTime):
            if event.time < now:
                problems.add(f"{path}[{i}].processing_time",
                             f"processing time only moves forward: {event.time} < {now}")
            now = max(now, event.time)


def _innermost(trigger: TriggerSpec | None) -> TriggerSpec | None:
    while isinstance(trigger, PurgingTrigger):
        trigger = trigger.inner
    return trigger


def _check_fit(window: WindowSpec, trigger: TriggerSpec | None, evictor: EvictorSpec | None,
               path: str, problems: Problems) -> None:
    """Combinations the format cannot state meaningfully, or Java's types forbid: `EventTimeTrigger`
    and `ProcessingTimeTrigger` are `Trigger<Object, TimeWindow>`, `NeverTrigger` is
    `Trigger<Object, GlobalWindow>`, and `WindowedStream.trigger` only takes a trigger for its own
    window type. (Flink's own job-time rejections, such as `NeverTrigger` on merging session
    windows, are observations, not format errors.)"""
    inner = _innermost(trigger)
    if isinstance(window, Global) and isinstance(inner, EventTimeTrigger | ProcessingTimeTrigger):
        problems.add(f"{path}.trigger", "EventTimeTrigger and ProcessingTimeTrigger need time windows; "
                                        "the global window is not one")
    if isinstance(window, Tumbling | Sliding) and isinstance(inner, NeverTrigger):
        problems.add(f"{path}.trigger", "NeverTrigger is GlobalWindows' trigger; it does not fit time windows")
    if isinstance(window, Count) and trigger is not None:
        problems.add(f"{path}.trigger", "a count window brings its own trigger (countWindow is "
                                        "GlobalWindows + CountTrigger); use assigner 'global' to set one")
    if isinstance(window, Count) and evictor is not None:
        problems.add(f"{path}.evictor", "a count window brings its own evictor; use assigner 'global' "
                                        "to set one")
    if isinstance(window, Session) and isinstance(evictor, CountEvictor):
        problems.add(f"{path}.evictor", "a count evictor on merging (session) windows depends on the "
                                        "order in which Flink's state backend merges window contents, "
                                        "which Flink leaves unspecified")


# --- dumping ----------------------------------------------------------------------------------


def case_to_json(case: Case) -> dict[str, Any]:
    """The canonical JSON form: every field present, so a dump states the whole case."""
    doc: dict[str, Any] = {"format": CASE_FORMAT}
    if case.name is not None:
        doc["name"] = case.name
    doc |= {
        "window": window_to_json(case.window),
        "trigger": trigger_to_json(case.trigger),
        "evictor": evictor_to_json(case.evictor),
        "allowed_lateness": case.allowed_lateness,
        "late_side_output": case.late_side_output,
        "events": [event_to_json(e) for e in case.events],
        "end_of_input": case.end_of_input,
    }
    if case.expected is not None:
        doc["expected"] = observation_to_json(case.expected)
    return doc


def window_to_json(w: WindowSpec) -> dict[str, Any]:
    if isinstance(w, Tumbling):
        return {"assigner": "tumbling", "time": w.time, "size": w.size, "offset": w.offset}
    if isinstance(w, Sliding):
        return {"assigner": "sliding", "time": w.time, "size": w.size, "slide": w.slide, "offset": w.offset}
    if isinstance(w, Session):
        return {"assigner": "session", "time": w.time, "gap": w.gap}
    if isinstance(w, Count):
        return {"assigner": "count", "size": w.size} | ({} if w.slide is None else {"slide": w.slide})
    return {"assigner": "global"}


def trigger_to_json(t: TriggerSpec | None) -> dict[str, Any] | None:
    match t:
        case None:
            return None
        case EventTimeTrigger():
            return {"type": "event_time"}
        case ProcessingTimeTrigger():
            return {"type": "processing_time"}
        case CountTrigger(count):
            return {"type": "count", "count": count}
        case ContinuousEventTimeTrigger(interval):
            return {"type": "continuous_event_time", "interval": interval}
        case ContinuousProcessingTimeTrigger(interval):
            return {"type": "continuous_processing_time", "interval": interval}
        case PurgingTrigger(inner):
            return {"type": "purging", "inner": trigger_to_json(inner)}
        case NeverTrigger():
            return {"type": "never"}
    raise TypeError(f"not a trigger: {t!r}")


def evictor_to_json(e: EvictorSpec | None) -> dict[str, Any] | None:
    if e is None:
        return None
    if isinstance(e, CountEvictor):
        return {"type": "count", "max_count": e.max_count, "after": e.after}
    return {"type": "time", "size": e.size, "after": e.after}


def event_to_json(e: Event) -> dict[str, Any]:
    if isinstance(e, Record):
        return {"record": {"key": e.key, "value": e.value, "ts": e.ts}}
    if isinstance(e, Watermark):
        return {"watermark": e.timestamp}
    return {"processing_time": e.time}


def dumps_case(case: Case) -> str:
    return json.dumps(case_to_json(case), indent=2)

"""The `window-observation/1` JSON format (docs/format.md): validated loading and dumping."""

from __future__ import annotations

import json
from typing import Any

from conformance.observation import (
    Error,
    Firing,
    GlobalWindow,
    InputWatermark,
    LateRecord,
    Observation,
    TimeWindow,
    Window,
)
from conformance.validation import MISSING, Fields, Problems, is_long

OBSERVATION_FORMAT = "window-observation/1"


def observation_from_json(doc: Any, path: str = "$", source: str | None = None) -> Observation:
    problems = Problems()
    f = Fields(doc, path, problems)
    fmt = f.take("format")
    if fmt not in (MISSING, OBSERVATION_FORMAT):
        problems.add(f.at("format"), f"must be {OBSERVATION_FORMAT!r}, not {fmt!r}")
    firings = f.take_list("firings", lambda d, p: _read_firing(d, p, problems), [])
    late = f.take_list("late", lambda d, p: _read_late(d, p, problems), [])
    dropped = f.take_list("dropped", lambda d, p: _read_late(d, p, problems), [])
    error = _read_error(f.take("error", None), f.at("error"), problems)
    watermarks = f.take_list("watermarks", lambda d, p: _read_watermark(d, p, problems), None)
    f.done()
    problems.raise_if_any(source)
    return Observation(tuple(firings), tuple(late), tuple(dropped), error,
                       None if watermarks is None else tuple(watermarks))


def _read_watermark(doc: Any, path: str, problems: Problems) -> InputWatermark:
    f = Fields(doc, path, problems)
    received = InputWatermark(f.take_long("at", minimum=0), f.take_long("watermark"))
    f.done()
    return received


def _read_window(doc: Any, path: str, problems: Problems) -> Window:
    f = Fields(doc, path, problems)
    if f.obj.get("global") is True:
        f.take("global")
        f.done()
        return GlobalWindow()
    window = TimeWindow(f.take_long("start"), f.take_long("end"))
    f.done()
    return window


def _read_firing(doc: Any, path: str, problems: Problems) -> Firing | None:
    f = Fields(doc, path, problems)
    at, key = f.take_long("at", minimum=0), f.take_str("key")
    window = _read_window(f.take("window"), f.at("window"), problems) if f.ok else GlobalWindow()
    timestamp = f.take_long("timestamp")
    values = f.take("values")
    if values is MISSING:
        values = []
    elif not isinstance(values, list) or not all(is_long(v) for v in values):
        problems.add(f.at("values"), "must be an array of integers in Java long range")
        values = []
    wm = f.take_long("watermark")
    f.done()
    return Firing(at, key or "", window, timestamp, tuple(values), wm)


def _read_late(doc: Any, path: str, problems: Problems) -> LateRecord:
    f = Fields(doc, path, problems)
    late = LateRecord(f.take_long("at", minimum=0), f.take_str("key") or "", f.take_long("value"),
                      f.take_long("ts"))
    f.done()
    return late


def _read_error(doc: Any, path: str, problems: Problems) -> Error | None:
    if doc is None:
        return None
    f = Fields(doc, path, problems)
    error = Error(f.take_choice("kind", ("invalid_spec", "runtime")) or "runtime", f.take_str("message") or "")
    f.done()
    return error


def window_to_json(w: Window) -> dict[str, Any]:
    return {"global": True} if isinstance(w, GlobalWindow) else {"start": w.start, "end": w.end}


def firing_to_json(f: Firing) -> dict[str, Any]:
    return {"at": f.at, "key": f.key, "window": window_to_json(f.window), "timestamp": f.timestamp,
            "values": list(f.values), "watermark": f.watermark}


def late_to_json(r: LateRecord) -> dict[str, Any]:
    return {"at": r.at, "key": r.key, "value": r.value, "ts": r.ts}


def observation_to_json(o: Observation) -> dict[str, Any]:
    return {
        "format": OBSERVATION_FORMAT,
        "firings": [firing_to_json(f) for f in o.firings],
        "late": [late_to_json(r) for r in o.late],
        "dropped": [late_to_json(r) for r in o.dropped],
        "error": None if o.error is None else {"kind": o.error.kind, "message": o.error.message},
    } | ({} if o.watermarks is None else {"watermarks": [watermark_to_json(w) for w in o.watermarks]})


def watermark_to_json(w: InputWatermark) -> dict[str, Any]:
    return {"at": w.at, "watermark": w.watermark}


def dumps_observation(o: Observation) -> str:
    return json.dumps(observation_to_json(o), indent=2)

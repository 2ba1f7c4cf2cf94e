"""The `window-observation/1` JSON format (docs/format.md): validated loading and dumping."""

from __future__ import annotations

import json
from typing import Any

from window_contract.observation import (
    Error,
    Firing,
    GlobalWindow,
    InputWatermark,
    LateRecord,
    Observation,
    TimeWindow,
    Window,
)
from window_contract.validation import MISSING, Fields, Problems, is_long

OBSERVATION_FORMAT = "window-observation/1"


def observation_from_json(doc: Any, path: str = "$", source: str | None = None,
                          position_free: bool = False) -> Observation:
    """The observation in `doc`. A `position_free` implementation's has `"at": null` everywhere, and
    may give `"watermark": null` in a firing (not observed); any other has an integer `at`."""
    problems = Problems()
    f = Fields(doc, path, problems)
    fmt = f.take("format")
    if fmt not in (MISSING, OBSERVATION_FORMAT):
        problems.add(f.at("format"), f"must be {OBSERVATION_FORMAT!r}, not {fmt!r}")
    reader = _Reader(problems, position_free)
    firings = f.take_list("firings", reader.firing, [])
    late = f.take_list("late", reader.late, [])
    dropped = f.take_list("dropped", reader.late, [])
    error = read_error(f.take("error", None), f.at("error"), problems)
    watermarks = f.take_list("watermarks", reader.watermark, None)
    f.done()
    problems.raise_if_any(source)
    return Observation(tuple(firings), tuple(late), tuple(dropped), error,
                       None if watermarks is None else tuple(watermarks))


def _read_window(doc: Any, path: str, problems: Problems) -> Window:
    f = Fields(doc, path, problems)
    if f.obj.get("global") is True:
        f.take("global")
        f.done()
        return GlobalWindow()
    window = TimeWindow(f.take_long("start"), f.take_long("end"))
    f.done()
    return window


class PositionsReader:
    """Reads the positions of an observation's outputs (a window or a join observation's), and the watermarks its
    operator received: an integer `at`, or a null one from a position-free implementation."""

    def __init__(self, problems: Problems, position_free: bool) -> None:
        self.problems, self.position_free = problems, position_free

    def at(self, f: Fields) -> int | None:
        if not self.position_free:
            return f.take_long("at", minimum=0)
        if f.take("at") not in (None, MISSING):
            self.problems.add(f.at("at"), "must be null: the implementation is position-free")
        return None

    def watermark(self, doc: Any, path: str) -> InputWatermark:
        f = Fields(doc, path, self.problems)
        received = InputWatermark(self.at(f), f.take_long("watermark"))
        f.done()
        return received


class _Reader(PositionsReader):
    """Reads the outputs of one observation, positioned or position-free."""

    def firing(self, doc: Any, path: str) -> Firing:
        f = Fields(doc, path, self.problems)
        at, key = self.at(f), f.take_str("key")
        window = _read_window(f.take("window"), f.at("window"), self.problems) if f.ok else GlobalWindow()
        timestamp = f.take_long("timestamp")
        values = f.take("values")
        if values is MISSING:
            values = []
        elif not isinstance(values, list) or not all(is_long(v) for v in values):
            self.problems.add(f.at("values"), "must be an array of integers in Java long range")
            values = []
        observed = not (self.position_free and f.obj.get("watermark", 0) is None)
        wm = f.take_long("watermark") if observed else f.take("watermark")
        f.done()
        return Firing(at, key or "", window, timestamp, tuple(values), wm)

    def late(self, doc: Any, path: str) -> LateRecord:
        f = Fields(doc, path, self.problems)
        late = LateRecord(self.at(f), f.take_str("key") or "", f.take_long("value"), f.take_long("ts"))
        f.done()
        return late


def read_error(doc: Any, path: str, problems: Problems) -> Error | None:
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

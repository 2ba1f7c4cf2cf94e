"""The `JoinObservation`: what a join emitted for one `JoinCase` (`join-observation/1`, docs/format.md).

One output per element the job emits, at the position (`at`, an index into the case's events; `len(events)` the
end of input) of the event during which it was emitted:

- a `Pair` for a window join (`JoinFunction.join(left, right)`) and an interval join
  (`ProcessJoinFunction.processElement(left, right, ...)`), with the output record's timestamp: the window's
  `maxTimestamp()`, or `max(left.ts, right.ts)`;
- a `CoGroup` for a window coGroup: `CoGroupFunction.coGroup(lefts, rights)`, both lists sorted, either may be
  empty;
- a `SqlRow` for a Flink SQL join: the joined row's left and right values, `None` for the side an outer join pads
  with nulls (and for the right of a semi or anti join, which emits left rows alone), with its window's bounds.

`watermark` is the operator's current watermark at the output. `late` holds the records of an interval join's late
side outputs, `dropped` the late records Flink drops (a window join's `numLateRecordsDropped`, an interval join's
side without a late output), each with the input it came from. `watermarks` lists every watermark the join's
operator received (the window operator's, behind the union's one valve; the interval join's combination of its two
inputs' watermarks). Equivalence is the window observation's: the same error, the same watermarks in order, and at
every position the same outputs, late and dropped records as multisets.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from window_contract.observation import Error, InputWatermark
from window_contract.observation_json import read_error, watermark_to_json
from window_contract.validation import MISSING, Fields, Problems, is_long

JOIN_OBSERVATION_FORMAT = "join-observation/1"

#: The two inputs of a join.
Side = Literal["left", "right"]
SIDES: tuple[Side, Side] = ("left", "right")


@dataclass(frozen=True)
class Pair:
    """One joined pair, emitted as a record with `timestamp`."""

    at: int
    key: str
    timestamp: int
    watermark: int
    left: int
    right: int


@dataclass(frozen=True)
class CoGroup:
    """One call of the coGroup function: the window's left and right values, each sorted."""

    at: int
    key: str
    timestamp: int
    watermark: int
    left_values: tuple[int, ...]
    right_values: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "left_values", tuple(sorted(self.left_values)))
        object.__setattr__(self, "right_values", tuple(sorted(self.right_values)))


@dataclass(frozen=True)
class SqlRow:
    """One row of a SQL join: `left`/`right` the values of the joined rows, `None` where padded with nulls (or, for a
    semi or anti join, where there is no right row); `window` the `(window_start, window_end)` the row shows (a window
    join's), else `None`; `timestamp` the output record's (an interval join's), else `None`: a window join's rows
    carry none (`WindowJoinOperator` erases it)."""

    at: int
    key: str
    watermark: int
    left: int | None
    right: int | None
    window: tuple[int, int] | None = None
    timestamp: int | None = None


JoinOutput = Pair | CoGroup | SqlRow


@dataclass(frozen=True)
class SideRecord:
    """A late record of one input, sent to that input's late output (`late`) or dropped (`dropped`)."""

    at: int
    input: Side
    key: str
    value: int
    ts: int


@dataclass(frozen=True)
class JoinObservation:
    outputs: tuple[JoinOutput, ...] = ()
    late: tuple[SideRecord, ...] = ()
    dropped: tuple[SideRecord, ...] = ()
    watermarks: tuple[InputWatermark, ...] = ()
    error: Error | None = None

    def __post_init__(self) -> None:
        for name in ("outputs", "late", "dropped", "watermarks"):
            object.__setattr__(self, name, tuple(getattr(self, name)))


def join_equivalent(a: JoinObservation, b: JoinObservation) -> bool:
    """The same error and watermark sequence, and at every position the same outputs, late and dropped records."""
    return a.error == b.error and a.watermarks == b.watermarks and all(
        Counter(getattr(a, part)) == Counter(getattr(b, part)) for part in ("outputs", "late", "dropped"))


# --- JSON ------------------------------------------------------------------------------------------------------


def join_observation_to_json(o: JoinObservation) -> dict[str, Any]:
    return {"format": JOIN_OBSERVATION_FORMAT,
            "outputs": [_output_to_json(x) for x in o.outputs],
            "late": [_side_record_to_json(r) for r in o.late],
            "dropped": [_side_record_to_json(r) for r in o.dropped],
            "watermarks": [watermark_to_json(w) for w in o.watermarks],
            "error": None if o.error is None else {"kind": o.error.kind, "message": o.error.message}}


def _output_to_json(x: JoinOutput) -> dict[str, Any]:
    if isinstance(x, SqlRow):
        window = None if x.window is None else {"start": x.window[0], "end": x.window[1]}
        return {"at": x.at, "key": x.key, "watermark": x.watermark, "left": x.left, "right": x.right,
                "window": window, "timestamp": x.timestamp}
    doc = {"at": x.at, "key": x.key, "timestamp": x.timestamp, "watermark": x.watermark}
    if isinstance(x, Pair):
        return doc | {"left": x.left, "right": x.right}
    return doc | {"left_values": list(x.left_values), "right_values": list(x.right_values)}


def _side_record_to_json(r: SideRecord) -> dict[str, Any]:
    return {"at": r.at, "input": r.input, "key": r.key, "value": r.value, "ts": r.ts}


def join_observation_from_json(doc: Any, path: str, problems: Problems) -> JoinObservation:
    """The observation in `doc`; every problem goes to `problems`, by JSON path and rule."""
    f = Fields(doc, path, problems)
    fmt = f.take("format")
    if fmt not in (MISSING, JOIN_OBSERVATION_FORMAT):
        problems.add(f.at("format"), f"must be {JOIN_OBSERVATION_FORMAT!r}, not {fmt!r}")
    outputs = f.take_list("outputs", lambda d, p: _read_output(d, p, problems), [])
    late = f.take_list("late", lambda d, p: _read_side_record(d, p, problems), [])
    dropped = f.take_list("dropped", lambda d, p: _read_side_record(d, p, problems), [])
    watermarks = f.take_list("watermarks", lambda d, p: _read_watermark(d, p, problems), [])
    error = read_error(f.take("error", None), f.at("error"), problems)
    f.done()
    return JoinObservation(tuple(outputs), tuple(late), tuple(dropped), tuple(watermarks), error)


def _read_output(doc: Any, path: str, problems: Problems) -> JoinOutput | None:
    f = Fields(doc, path, problems)
    at, key = f.take_long("at", minimum=0), f.take_str("key") or ""
    if "window" in f.obj:
        return _read_sql_row(f, at, key, problems)
    timestamp, watermark = f.take_long("timestamp"), f.take_long("watermark")
    if "left_values" in f.obj or "right_values" in f.obj:
        lefts, rights = (_read_values(f, name, problems) for name in ("left_values", "right_values"))
        f.done()
        return CoGroup(at, key, timestamp, watermark, lefts, rights)
    pair = Pair(at, key, timestamp, watermark, f.take_long("left"), f.take_long("right"))
    f.done()
    return pair


def _read_sql_row(f: Fields, at: int, key: str, problems: Problems) -> SqlRow:
    watermark = f.take_long("watermark")
    left, right, timestamp = (_take_nullable_long(f, name) for name in (*SIDES, "timestamp"))
    window = f.take("window")
    bounds = None
    if window is not None:
        w = Fields(window, f.at("window"), problems)
        bounds = (w.take_long("start"), w.take_long("end"))
        w.done()
    f.done()
    return SqlRow(at, key, watermark, left, right, bounds, timestamp)


def _take_nullable_long(f: Fields, name: str) -> int | None:
    """A long, or `None` where the field is `null` or absent."""
    return None if f.obj.get(name) is None and f.take(name, None) is None else f.take_long(name)


def _read_values(f: Fields, name: str, problems: Problems) -> tuple[int, ...]:
    values = f.take(name)
    if values is MISSING:
        return ()
    if not isinstance(values, list) or not all(is_long(v) for v in values):
        problems.add(f.at(name), "must be an array of integers in Java long range")
        return ()
    return tuple(values)


def _read_side_record(doc: Any, path: str, problems: Problems) -> SideRecord:
    f = Fields(doc, path, problems)
    record = SideRecord(f.take_long("at", minimum=0), f.take_choice("input", SIDES) or "left", f.take_str("key") or "",
                        f.take_long("value"), f.take_long("ts"))
    f.done()
    return record


def _read_watermark(doc: Any, path: str, problems: Problems) -> InputWatermark:
    f = Fields(doc, path, problems)
    received = InputWatermark(f.take_long("at", minimum=0), f.take_long("watermark"))
    f.done()
    return received



def join_difference(expected: JoinObservation, actual: JoinObservation) -> str:
    """What differs between two join observations, one line a part (`join_equivalent`'s parts); empty when they
    are equivalent."""
    if expected.error != actual.error:
        return f"error: expected {expected.error}, got {actual.error}"
    if expected.watermarks != actual.watermarks:
        return (f"watermarks: expected {[(w.at, w.watermark) for w in expected.watermarks]}, "
                f"got {[(w.at, w.watermark) for w in actual.watermarks]}")
    lines = []
    for part in ("outputs", "late", "dropped"):
        wanted, got = Counter(getattr(expected, part)), Counter(getattr(actual, part))
        lines += [f"{part}: {what} {item}" for what, items in (("missing", wanted - got), ("unexpected", got - wanted))
                  for item in sorted(items.elements(), key=lambda x: x.at)]
    return "\n".join(lines)

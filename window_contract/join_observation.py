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

A position-free implementation (an engine that cannot tell at which input event it emitted something) gives `at`
`None` everywhere, and `None` for what it cannot observe either: an output's `watermark`, a SQL row's `timestamp`
(the time of the timer that emitted it), and the `watermarks` (`None`, no field in JSON), which tells it apart even
without outputs. Compared with one, both observations lose their positions and those fields, and the watermarks are
left out: outputs, late and dropped records are equal as multisets over the whole case (`window_contract.equivalence`
does the same for windows).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Literal

from window_contract.observation import Error, InputWatermark
from window_contract.observation_json import PositionsReader, read_error, watermark_to_json
from window_contract.validation import MISSING, Fields, Problems, is_long

JOIN_OBSERVATION_FORMAT = "join-observation/1"

#: The two inputs of a join.
Side = Literal["left", "right"]
SIDES: tuple[Side, Side] = ("left", "right")


@dataclass(frozen=True)
class Pair:
    """One joined pair, emitted as a record with `timestamp`."""

    at: int | None
    key: str
    timestamp: int
    watermark: int | None
    left: int
    right: int


@dataclass(frozen=True)
class CoGroup:
    """One call of the coGroup function: the window's left and right values, each sorted."""

    at: int | None
    key: str
    timestamp: int
    watermark: int | None
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

    at: int | None
    key: str
    watermark: int | None
    left: int | None
    right: int | None
    window: tuple[int, int] | None = None
    timestamp: int | None = None


JoinOutput = Pair | CoGroup | SqlRow


@dataclass(frozen=True)
class SideRecord:
    """A late record of one input, sent to that input's late output (`late`) or dropped (`dropped`)."""

    at: int | None
    input: Side
    key: str
    value: int
    ts: int


@dataclass(frozen=True)
class JoinObservation:
    outputs: tuple[JoinOutput, ...] = ()
    late: tuple[SideRecord, ...] = ()
    dropped: tuple[SideRecord, ...] = ()
    #: Every watermark the join's operator received, in order; `None` where not observed (a position-free engine).
    watermarks: tuple[InputWatermark, ...] | None = ()
    error: Error | None = None

    def __post_init__(self) -> None:
        for name in ("outputs", "late", "dropped"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.watermarks is not None:
            object.__setattr__(self, "watermarks", tuple(self.watermarks))


PARTS = ("outputs", "late", "dropped")


def join_position_free(o: JoinObservation) -> bool:
    """Whether `o` comes from a position-free implementation: its watermarks not observed, or an output or a late or
    dropped record without `at`."""
    return o.watermarks is None or any(x.at is None for part in PARTS for x in getattr(o, part))


def without_positions(o: JoinObservation) -> JoinObservation:
    """`o` as compared with a position-free implementation's: no `at`, no output watermark, no SQL row timestamp, no
    watermarks (the module's docstring)."""
    def unplaced(x: JoinOutput) -> JoinOutput:
        return replace(x, at=None, watermark=None, **({"timestamp": None} if isinstance(x, SqlRow) else {}))

    return JoinObservation(tuple(unplaced(x) for x in o.outputs),
                           *(tuple(replace(r, at=None) for r in getattr(o, part)) for part in ("late", "dropped")),
                           None, o.error)


def join_as_compared(a: JoinObservation, b: JoinObservation,
                     positions: bool = True) -> tuple[JoinObservation, JoinObservation]:
    """`a` and `b` as equivalence compares them: without positions when either is position-free, or not `positions`
    (an observation without outputs does not tell: the caller that knows the implementation does)."""
    if not positions or join_position_free(a) or join_position_free(b):
        return without_positions(a), without_positions(b)
    return a, b


def join_equivalent(a: JoinObservation, b: JoinObservation, positions: bool = True) -> bool:
    """The same error and watermark sequence, and at every position the same outputs, late and dropped records
    (over the whole case, without watermarks, when either is position-free or not `positions`)."""
    a, b = join_as_compared(a, b, positions)
    return a.error == b.error and a.watermarks == b.watermarks and all(
        Counter(getattr(a, part)) == Counter(getattr(b, part)) for part in PARTS)


# --- JSON ------------------------------------------------------------------------------------------------------


def join_observation_to_json(o: JoinObservation) -> dict[str, Any]:
    return {"format": JOIN_OBSERVATION_FORMAT,
            "outputs": [_output_to_json(x) for x in o.outputs],
            "late": [_side_record_to_json(r) for r in o.late],
            "dropped": [_side_record_to_json(r) for r in o.dropped],
            "error": None if o.error is None else {"kind": o.error.kind, "message": o.error.message}} | (
        {} if o.watermarks is None else {"watermarks": [watermark_to_json(w) for w in o.watermarks]})


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


def join_observation_from_json(doc: Any, path: str, problems: Problems, position_free: bool = False) -> JoinObservation:
    """The observation in `doc`; every problem goes to `problems`, by JSON path and rule. A `position_free`
    implementation's has `"at": null` everywhere and may give `"watermark": null` (not observed)."""
    f = Fields(doc, path, problems)
    fmt = f.take("format")
    if fmt not in (MISSING, JOIN_OBSERVATION_FORMAT):
        problems.add(f.at("format"), f"must be {JOIN_OBSERVATION_FORMAT!r}, not {fmt!r}")
    reader = _Reader(problems, position_free)
    outputs = f.take_list("outputs", reader.output, [])
    late = f.take_list("late", reader.side_record, [])
    dropped = f.take_list("dropped", reader.side_record, [])
    watermarks = f.take_list("watermarks", reader.watermark, None if position_free else [])
    error = read_error(f.take("error", None), f.at("error"), problems)
    f.done()
    return JoinObservation(tuple(outputs), tuple(late), tuple(dropped), watermarks, error)


class _Reader(PositionsReader):
    """The parts of a join observation, with the positions its implementation gives: an integer `at` and
    `watermark`, or (position-free) a null `at` and a `watermark` that may be null."""

    def output_watermark(self, f: Fields) -> int | None:
        if self.position_free and f.obj.get("watermark", 0) is None:
            f.take("watermark")
            return None
        return f.take_long("watermark")

    def output(self, doc: Any, path: str) -> JoinOutput:
        f = Fields(doc, path, self.problems)
        at, key = self.at(f), f.take_str("key") or ""
        if "window" in f.obj:
            return self.sql_row(f, at, key)
        timestamp, watermark = f.take_long("timestamp"), self.output_watermark(f)
        if "left_values" in f.obj or "right_values" in f.obj:
            lefts, rights = (_read_values(f, name, self.problems) for name in ("left_values", "right_values"))
            f.done()
            return CoGroup(at, key, timestamp, watermark, lefts, rights)
        pair = Pair(at, key, timestamp, watermark, f.take_long("left"), f.take_long("right"))
        f.done()
        return pair

    def sql_row(self, f: Fields, at: int | None, key: str) -> SqlRow:
        watermark = self.output_watermark(f)
        left, right, timestamp = (_take_nullable_long(f, name) for name in (*SIDES, "timestamp"))
        window = f.take("window")
        bounds = None
        if window is not None:
            w = Fields(window, f.at("window"), self.problems)
            bounds = (w.take_long("start"), w.take_long("end"))
            w.done()
        f.done()
        return SqlRow(at, key, watermark, left, right, bounds, timestamp)

    def side_record(self, doc: Any, path: str) -> SideRecord:
        f = Fields(doc, path, self.problems)
        record = SideRecord(self.at(f), f.take_choice("input", SIDES) or "left", f.take_str("key") or "",
                            f.take_long("value"), f.take_long("ts"))
        f.done()
        return record


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


def join_difference(expected: JoinObservation, actual: JoinObservation, positions: bool = True) -> str:
    """What differs between two join observations, one line a part (`join_equivalent`'s parts); empty when they
    are equivalent (`positions` as there)."""
    expected, actual = join_as_compared(expected, actual, positions)
    if expected.error != actual.error:
        return f"error: expected {expected.error}, got {actual.error}"
    if expected.watermarks != actual.watermarks:
        return (f"watermarks: expected {[(w.at, w.watermark) for w in expected.watermarks]}, "
                f"got {[(w.at, w.watermark) for w in actual.watermarks]}")
    lines = []
    for part in PARTS:
        wanted, got = Counter(getattr(expected, part)), Counter(getattr(actual, part))
        lines += [f"{part}: {what} {item}" for what, items in (("missing", wanted - got), ("unexpected", got - wanted))
                  for item in sorted(items.elements(), key=lambda x: -1 if x.at is None else x.at)]
    return "\n".join(lines)

"""How one observation departs from another, in the domain's words: a line for each difference.

Two observations are equivalent when their errors match, the watermarks the operator received are the
same sequence, and for every position `at` their firings, late and dropped records are equal as
multisets (`window_contract.equivalence`). So the outputs that differ are the multiset differences: what
the expected observation has and the actual one lacks ("missing"), and the reverse ("extra"). Before
they are told, a missing and an extra output of the same thing are paired, so that one firing of a
window at another position reads as "comes at the end of input instead of at position 1", not as one
missing and one extra firing:

- firings pair by key and window, preferring the same position, then the same values;
- late and dropped records pair by key, value and timestamp, across the two outputs, so that a record
  dropped instead of going to the side output reads as that.

The watermarks the operator received, where the case observes them, are a sequence: the first place
where the two part is their difference. Positions are those of the case's events; given the number of
events, the position after the last one reads as the end of input. Compared with a position-free
implementation, the outputs have no positions (`window_contract.equivalence.as_compared`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from window_contract.case import Record
from window_contract.equivalence import as_compared
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.observation import Error, Firing, InputWatermark, LateRecord, Observation

OUTPUTS = ("late", "dropped")
#: A record that went to one output where the other was expected.
MOVED = {"late": "goes to the side output instead of being dropped",
         "dropped": "is dropped instead of going to the side output"}


def time_text(t: int) -> str:
    """A time as people read it: the `long` bounds by name."""
    return {LONG_MAX: "+inf (Long.MAX_VALUE)", LONG_MIN: "-inf (Long.MIN_VALUE)"}.get(t, str(t))


@dataclass(frozen=True)
class Positions:
    """Event positions in words: `at position 2`, or `at the end of input` past the last event."""

    events: int | None

    def __call__(self, at: int | None) -> str:
        if at is None:
            return "in the case"
        return "at the end of input" if at == self.events else f"at position {at}"


def _order(at: int | None) -> float:
    """A position as a sort key; an unknown one (position-free) first."""
    return -1 if at is None else at


def _earlier(a: int | None, b: int | None) -> float:
    return min(_order(a), _order(b))


def _apart(a: int | None, b: int | None) -> float:
    return 0 if a is None or b is None else abs(a - b)


def differences(want: Observation, got: Observation, events: int | None = None, positions: bool = True) -> list[str]:
    """Every way `got` departs from `want`, in the order of the case's events (`events` of them);
    empty when they are equivalent (`positions`: as in `window_contract.equivalence.equivalent`)."""
    want, got = as_compared(want, got, positions)
    where = Positions(events)
    found = _error(want.error, got.error) + _watermarks(want.watermarks, got.watermarks, where)
    found += _firings(_extra(want.firings, got.firings), _extra(got.firings, want.firings), where)
    found += _records(want, got, where)
    return [text for _, text in sorted(found, key=lambda item: _order(item[0]))]


def difference(expected: Observation, actual: Observation, events: int | None = None, positions: bool = True) -> str:
    """How `actual` departs from `expected`, a line each; empty when they are equivalent."""
    return "\n".join(differences(expected, actual, events, positions))


def _extra(a: tuple, b: tuple) -> list:
    """What `a` holds more often than `b`, as a multiset."""
    return sorted((Counter(a) - Counter(b)).elements(), key=lambda x: (_order(x.at), repr(x)))


def _error(want: Error | None, got: Error | None) -> list[tuple[float, str]]:
    if want == got:
        return []
    if got is None:
        return [(-1, f"the {want.kind} error is missing: {want.message}")]
    if want is None:
        return [(-1, f"an unexpected {got.kind} error: {got.message}")]
    return [(-1, f"the error is {got.kind}: {got.message!r}, not {want.kind}: {want.message!r}")]


def _watermarks(want: tuple[InputWatermark, ...] | None, got: tuple[InputWatermark, ...] | None,
                where: Positions) -> list[tuple[float, str]]:
    """The operator's input watermarks are a sequence: the first place where they part is the difference."""
    if want == got:
        return []
    if want is None or got is None:
        return [(-1, "the watermarks the operator received are " + ("missing" if got is None else "extra"))]
    for i, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return [(_earlier(a.at, b.at), f"the operator's watermark #{i + 1} is {_watermark(b, where)} instead of "
                                      f"{_watermark(a, where)}")]
    i = min(len(want), len(got))
    if len(got) > len(want):
        return [(got[i].at, f"the operator receives an extra watermark {_watermark(got[i], where)}")]
    return [(want[i].at, f"the operator's watermark {_watermark(want[i], where)} is missing")]


def _watermark(w: InputWatermark, where: Positions) -> str:
    return f"{time_text(w.watermark)} {where(w.at)}"


def _key(key: str) -> str:
    """A key as it reads in a sentence; quoted when it is empty or has spaces."""
    return key if key and key.isprintable() and " " not in key else repr(key)


def _firing_name(f: Firing) -> str:
    return f"firing of {f.window!r} for key {_key(f.key)}"


def firing_text(f: Firing, events: int | None = None) -> str:
    """A firing in the case format's words, where it happened in a case of `events` events:
    `the firing of [0, 10) for key a at position 3 (values [1, 2])`."""
    return f"the {_firing_name(f)} {Positions(events)(f.at)} (values {list(f.values)})"


def record_text(r: LateRecord | Record) -> str:
    """A record (an event, or a late output) in the case format's words: `record a=1 @ 5`."""
    return _record_name(r)


def _changes(want: Firing, got: Firing) -> list[str]:
    changes = []
    if want.values != got.values:
        changes.append(f"values {list(got.values)} instead of {list(want.values)}")
    if want.timestamp != got.timestamp:
        changes.append(f"timestamp {time_text(got.timestamp)} instead of {time_text(want.timestamp)}")
    if want.watermark != got.watermark:
        changes.append(f"watermark {time_text(got.watermark)} instead of {time_text(want.watermark)}")
    return changes


def _firings(missing: list[Firing], extra: list[Firing], where: Positions) -> list[tuple[float, str]]:
    found = []
    for want in missing:
        same = [f for f in extra if (f.key, f.window) == (want.key, want.window)]
        if not same:
            found.append((want.at, f"{_firing_name(want)} {where(want.at)} (values {list(want.values)}) "
                                   "is missing"))
            continue
        got = min(same, key=lambda f: (f.at != want.at, f.values != want.values, _apart(f.at, want.at)))
        extra.remove(got)
        changes = _changes(want, got)
        if got.at == want.at:
            found.append((want.at, f"{_firing_name(want)} {where(want.at)} has {', '.join(changes)}"))
        else:
            text = f"{_firing_name(want)} comes {where(got.at)} instead of {where(want.at)}"
            found.append((_earlier(want.at, got.at), text + (f", with {', '.join(changes)}" if changes else "")))
    found += [(f.at, f"extra {_firing_name(f)} {where(f.at)} (values {list(f.values)})") for f in extra]
    return found


def _record_name(r: LateRecord | Record) -> str:
    return f"record {_key(r.key)}={r.value} @ {time_text(r.ts)}"


def _records(want: Observation, got: Observation, where: Positions) -> list[tuple[float, str]]:
    missing = [(part, r) for part in OUTPUTS for r in _extra(getattr(want, part), getattr(got, part))]
    extra = [(part, r) for part in OUTPUTS for r in _extra(getattr(got, part), getattr(want, part))]
    found = []
    for part, r in missing:
        same = [(p, e) for p, e in extra if (e.key, e.value, e.ts) == (r.key, r.value, r.ts)]
        if not same:
            found.append((r.at, f"{part} {_record_name(r)} {where(r.at)} "
                                "is missing"))
            continue
        other_part, e = min(same, key=lambda pe: (pe[0] != part, _apart(pe[1].at, r.at)))
        extra.remove((other_part, e))
        if other_part != part:
            found.append((r.at, f"{_record_name(r)} {where(e.at)} {MOVED[other_part]}"))
        else:
            found.append((_earlier(r.at, e.at), f"{part} {_record_name(r)} comes {where(e.at)} instead of "
                                           f"{where(r.at)}"))
    found += [(e.at, f"extra {part} {_record_name(e)} {where(e.at)}") for part, e in extra]
    return found

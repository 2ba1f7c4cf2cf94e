"""Join events as hand cases write them: `left(event)`, `right(event)`, `both(w)` (a watermark on each input) and
`a(value, ts)` (a record of key "a")."""

from __future__ import annotations

from window_contract.case import Record, Watermark
from window_contract.join_case import JoinEvent


def left(event) -> JoinEvent:
    return JoinEvent("left", event)


def right(event) -> JoinEvent:
    return JoinEvent("right", event)


def both(w: int) -> tuple[JoinEvent, JoinEvent]:
    return left(Watermark(w)), right(Watermark(w))


def a(value: int, ts: int) -> Record:
    return Record("a", value, ts)

"""Keys: a watermark for each key, and a key's state forgotten when it holds no window.

Flink's rule: the window operator's watermark and processing time hold for every key, and a key's state lives as
long as the job. The switches below give each key its own operator and inputs (`KeyedParts`), as
`reference.dialects.dialect.Dialect.parts` builds them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from window_contract import case
from window_contract.facts import LONG_MAX


@dataclass(frozen=True)
class KeySwitches:
    """The switches of keys; every default is Flink's."""

    #: The operator's watermark holds for every key; "key": each key has a watermark of its own, from a
    #: generator that sees only its records (listed watermarks still reach every key) (Bytewax's clocks).
    watermark_scope: Literal["operator", "key"] = "operator"
    #: A key's state lives as long as the job; True: a key that holds no window after an event that reached it
    #: is discarded with its watermark, and starts again from `Long.MIN_VALUE` and the watermarks it is sent
    #: next; a session assigner keeps its keys (Bytewax's `_WindowLogic._is_empty`).
    key_state_discarded_when_empty: bool = False


class _Clock:
    """What `drive` reads of an operator's timers: the processing time."""

    def __init__(self) -> None:
        self.current_processing_time = 0


class _Valve:
    """What `drive` reads of the inputs' valve: the watermark it has let out (the least of the keys')."""

    def __init__(self, keyed: KeyedParts) -> None:
        self.keyed = keyed

    @property
    def last_output_watermark(self) -> int:
        return min((inputs.valve.last_output_watermark for _, inputs in self.keyed.parts.values()), default=LONG_MAX)


class KeyedParts:
    """`watermark_scope="key"`, `key_state_discarded_when_empty`: an operator and its inputs for each key of the
    case, sharing the collector, as `drive` sees one operator and one set of inputs. A record goes to its key's;
    a listed watermark, a status, the end of a channel or of the input to every key's. With
    `watermark_scope="key"` each key's generator sees only its records; otherwise every key's generator sees
    every record, and gives the operator's watermark. With `key_state_discarded_when_empty`, a key whose
    operator holds no window after an event that reached it (and does not merge windows) gets new ones. Every
    key's input watermarks are recorded."""

    def __init__(self, dialect: KeySwitches, driven: case.Case, build: Callable[[], tuple], advance: bool) -> None:
        self.build, self.advance = build, advance
        self.own_clocks = dialect.watermark_scope == "key"
        self.discards = dialect.key_state_discarded_when_empty
        self.timers = _Clock()
        self.valve = _Valve(self)
        self.parts = {key: build() for key in sorted({r.key for r in driven.records})}

    # --- the operator's part of drive ------------------------------------------------------------------

    def process_element(self, key, value, timestamp):
        self.parts[key][0].process_element(key, value, timestamp)

    def advance_processing_time(self, time):
        """Every key's operator's clock, then its inputs' (`drive` calls this as the operator's and as the
        inputs': the second call finds nothing due)."""
        self.timers.current_processing_time = time
        for operator, _ in self.parts.values():
            operator.advance_processing_time(time)
        for _, inputs in self.parts.values():
            inputs.advance_processing_time(time)

    # --- the inputs' part ------------------------------------------------------------------------------

    def receivers(self, record: case.Record) -> list[str]:
        return [record.key] if self.own_clocks else list(self.parts)

    def timestamp(self, record: case.Record) -> int:
        stamps = {key: self.parts[key][1].timestamp(record) for key in self.receivers(record)}
        return stamps[record.key]

    def after_element(self, record, timestamp):
        for key in self.receivers(record):
            self.parts[key][1].after_element(record, timestamp)
        self.discard_empty(self.receivers(record))
        if self.advance:
            self.process_watermark(case.Watermark(timestamp - 1, record.channel))

    def process_watermark(self, watermark):
        for _, inputs in self.parts.values():
            inputs.process_watermark(watermark)
        self.discard_empty(list(self.parts))

    def process_watermark_status(self, event):
        for _, inputs in self.parts.values():
            inputs.process_watermark_status(event)

    def end_channel(self, channel):
        for _, inputs in self.parts.values():
            inputs.end_channel(channel)

    @property
    def open_channels(self) -> set[int]:
        return {c for _, inputs in self.parts.values() for c in inputs.open_channels}

    def end_of_input(self) -> None:
        for _, inputs in self.parts.values():
            if inputs.open_channels and inputs.valve.last_output_watermark < LONG_MAX:
                inputs.end_of_input()

    def discard_empty(self, keys: list[str]) -> None:
        if not self.discards:
            return
        for key in keys:
            operator, _ = self.parts[key]
            if not operator.window_state and not operator.assigner.is_merging:
                operator, inputs = self.parts[key] = self.build()
                if self.timers.current_processing_time:
                    operator.advance_processing_time(self.timers.current_processing_time)
                    inputs.advance_processing_time(self.timers.current_processing_time)

"""Flink's window operator for the keys of one shard, fed the log in pieces: the state a streaming query keeps.

A Flink job's window operator holds state and timers per key, and two clocks for all keys: the watermark and the
processing time (`InternalTimerServiceImpl`: one timer queue over every key of the operator; `advanceWatermark`
sets the watermark, then polls the earliest timer of any key until none is due). The batch replay
(`spark_impl.grouped`) gives each key a copy of every watermark and replays it alone (`operator.simulate`). A
streaming query cannot: it does not know tomorrow's keys, and replaying every key at every watermark costs the
keys times the watermarks. So a shard (a fixed slice of the keys, `hash(key) mod shards`) receives its keys'
records and every clock event of the log (the watermarks and processing-time advances, sent to every shard),
in the log's order, one micro-batch at a time, and keeps:

- each key's `KeyedWindowOperator` (`spark_impl.operator`, the batch replay's own per-key code, unchanged), frozen
  between micro-batches (`freeze`, `thaw`), while it holds state: once all of a key's windows are cleaned up and
  its timers fired (`KeyedWindowOperator.holds_state`), Flink holds nothing for it and the shard removes it, so the
  state is the keys with windows, not every key ever seen. A key loaded afresh takes the shard's clocks and goes
  on as the removed one would; what it forgets is only the contract's count of its outputs (`OUTPUT_LIMIT`, no
  rule of Flink's), which thus counts a key's outputs since it last held no state;
- the shard's clocks (`Clocks`): the watermark and processing time, the position of the last event applied, and
  the earliest event-time and processing-time timer of every key that has one, Flink's timer queue reduced to one
  entry per key.

A clock event reaches only the keys with a timer due by it (`InternalTimerServiceImpl` polls only those): the others
would set their clock and fire nothing, so they take the shard's clocks when next loaded (`_loaded`). That is exact
because a key's timer that is due when a watermark arrives fires at that watermark (the key is loaded and advanced
then), while a timer a record registers at or below the current watermark waits for the next watermark that rises,
as in Flink, and a key loaded for a record takes the watermark without firing anything.

What a micro-batch boundary changes: nothing, as long as the pieces come in the log's order. A piece is sorted by
position (`at`) before it is applied; a position at or below the last one applied is out of order, which the
shard reports as a runtime error (the log's order was lost between micro-batches), and it stops.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from spark_impl.grouped import output_rows
from spark_impl.javalong import LONG_MIN
from spark_impl.operator import PROCESSING_TIME, RECORD, WATERMARK, JobFailure, KeyedWindowOperator, Outputs
from spark_impl.spec import OperatorSpec

#: The message of an event whose position is not after the last one the shard applied.
OUT_OF_ORDER = ("arrival {at} came after arrival {last} was applied: a stream must deliver the log in arrival order "
                "across micro-batches")


@dataclass
class Clocks:
    """A shard's shared clocks and its timer queue (one entry per key: the time of its earliest timer)."""

    watermark: int = LONG_MIN
    processing_time: int = 0
    last_at: int | None = None
    failed: bool = False
    event_timers: dict[str, int] = field(default_factory=dict)
    processing_timers: dict[str, int] = field(default_factory=dict)


#: The fields of a `KeyedWindowOperator` that are its specification, rebuilt by `thaw` rather than stored.
_SPECIFICATION = ("spec", "key", "trigger", "evictor")


def freeze(op: KeyedWindowOperator) -> bytes:
    """A key's operator state between micro-batches: its windows, contents, trigger state, timers and output count."""
    return pickle.dumps({name: value for name, value in vars(op).items() if name not in _SPECIFICATION})


def thaw(frozen: bytes, spec: OperatorSpec, key: str) -> KeyedWindowOperator:
    op = KeyedWindowOperator(spec, key)
    vars(op).update(pickle.loads(frozen))
    return op


class ShardOperator:
    """The window operator of one shard's keys for one micro-batch: `apply` the batch's events, then store `ops`."""

    def __init__(self, spec: OperatorSpec, clocks: Clocks, load: Callable[[str], KeyedWindowOperator | None], *,
                 stride: int = 1, reports_watermarks: bool = False) -> None:
        """`stride`: the positions `at` are `arrival * stride + slot` (`spark_impl.live_fold`); with
        `reports_watermarks` the shard outputs each watermark it receives (one shard of a case does)."""
        self.spec, self.clocks, self.load, self.stride = spec, clocks, load, stride
        self.ops: dict[str, KeyedWindowOperator] = {}  # the keys this batch touched, to be stored
        self.received: list[tuple[int, int]] | None = [] if reports_watermarks else None

    def _loaded(self, key: str) -> KeyedWindowOperator:
        """The key's operator; a key without a due timer takes the shard's clocks (see the module's docstring)."""
        op = self.ops.get(key)
        if op is None:
            op = self.load(key) or KeyedWindowOperator(self.spec, key)
            self.ops[key] = op
        return op

    def _synced(self, key: str, *, watermark: bool = True, processing_time: bool = True) -> KeyedWindowOperator:
        """The key's operator with the shard's clocks, except the one about to advance (which fires its timers)."""
        op = self._loaded(key)
        if watermark:
            op.watermark = max(op.watermark, self.clocks.watermark)
        if processing_time:
            op.processing_time = max(op.processing_time, self.clocks.processing_time)
        return op

    def _reindex(self, op: KeyedWindowOperator) -> None:
        for timers, index in ((op.event_timers, self.clocks.event_timers),
                              (op.processing_timers, self.clocks.processing_timers)):
            earliest = timers.earliest()
            if earliest is None:
                index.pop(op.key, None)
            else:
                index[op.key] = earliest

    def _due(self, index: dict[str, int], up_to: int) -> list[str]:
        """The keys with a timer at or before `up_to`, earliest first (Flink's queue polls across keys by time)."""
        return sorted((k for k, t in index.items() if t <= up_to), key=lambda k: (index[k], k))

    def apply(self, events: Iterable[tuple[int, int, str | None, int | None, int]]) -> None:
        """Applies `(at, kind, key, value, ts)` events (a processing-time advance's time and a watermark in `ts`) in
        the order of `at`; a failure (Flink's job failure, or the log out of order) stops the shard."""
        clocks = self.clocks
        for at, kind, key, value, ts in sorted(events, key=lambda e: e[0]):
            if clocks.failed:
                return
            if clocks.last_at is not None and at <= clocks.last_at:
                self._fail(None, at, OUT_OF_ORDER.format(at=at // self.stride, last=clocks.last_at // self.stride))
                return
            clocks.last_at = at
            if kind == RECORD:
                self._step(self._synced(key), at, _process_element, value, ts)
            elif kind == WATERMARK:
                if ts <= clocks.watermark:
                    continue  # watermarks that do not increase are ignored
                clocks.watermark = ts
                if self.received is not None:
                    self.received.append((at, ts))
                for due in self._due(clocks.event_timers, ts):
                    self._step(self._synced(due, watermark=False), at, KeyedWindowOperator.advance_watermark, ts)
            elif kind == PROCESSING_TIME:
                clocks.processing_time = max(clocks.processing_time, ts)
                for due in self._due(clocks.processing_timers, clocks.processing_time - 1):
                    self._step(self._synced(due, processing_time=False), at,
                               KeyedWindowOperator.advance_processing_time, clocks.processing_time)

    def _step(self, op: KeyedWindowOperator, at: int, action: Callable[..., None], *arguments: int) -> None:
        op.at = at
        try:
            action(op, *arguments)
        except JobFailure as e:
            self._fail(op, at, str(e))
        self._reindex(op)

    def _fail(self, op: KeyedWindowOperator | None, at: int, message: str) -> None:
        self.clocks.failed = True
        if op is None:
            op = self._loaded(OUT_OF_ORDER_KEY)
        op.out.error = (at, message)

    def outputs(self, case_id: int) -> list[dict]:
        """The rows (`frames.OUTPUT_SCHEMA`, with `slot` and `seq`) of what the keys emitted in this batch, which they
        then forget (keeping only how many, for the contract's `OUTPUT_LIMIT`), and the watermarks the shard received
        if it reports them (kind `watermark`, no key). `at` is the arrival, `slot` the event at it (0 the log's own
        event, 1, 2, ... the watermarks Flink made after it), and `seq` numbers a key's outputs during one arrival from
        0, so `(at, seq)` is the key's firing order: an arrival is never split between micro-batches, and the number
        needs no memory of the key's earlier outputs, which a key that holds no state forgets."""
        rows = []
        for key, op in self.ops.items():
            out = op.out
            rows += self._numbered(sorted(output_rows(case_id, None if key == OUT_OF_ORDER_KEY else key, out),
                                          key=lambda r: (r["at"], r["kind"] == "error")))
            op.out = Outputs(earlier=out.earlier + len(out.firings) + len(out.late) + len(out.dropped))
        if self.received:
            rows += self._numbered([{"case_id": case_id, "kind": "watermark", "at": at, "key": None, "watermark": ts}
                                    for at, ts in self.received])
            self.received.clear()
        return rows

    def _numbered(self, emitted: list[dict]) -> list[dict]:
        """One key's rows, in order, with their arrival, slot and number within the arrival."""
        rows, seq = [], 0
        for i, row in enumerate(emitted):
            arrival, slot = divmod(row["at"], self.stride)
            seq = seq + 1 if i and arrival == rows[-1]["at"] else 0
            rows.append(row | {"at": arrival, "slot": slot, "seq": seq})
        return rows

    def stored(self) -> dict[str, bytes | None]:
        """The touched keys' frozen operators, or None for a key that holds no state (`holds_state`): Flink holds
        nothing for it, so neither does the shard (its state is removed; a later record starts it afresh). Nothing
        for the out-of-order marker, which is no key."""
        return {key: freeze(op) if op.holds_state() else None for key, op in self.ops.items()
                if key != OUT_OF_ORDER_KEY}


def _process_element(op: KeyedWindowOperator, value: int, ts: int) -> None:
    """A record, as `operator.simulate` applies it: a timer it registered for a time already past fires at once."""
    op.process_element(value, ts)
    op.advance_processing_time(op.processing_time)


#: The key under which an out-of-order error is reported: it belongs to no key of the log.
OUT_OF_ORDER_KEY = "\0out-of-order"

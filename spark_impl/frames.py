"""Cases in, observations out: the Arrow tables that cross between Python and Spark.

Events: one row per event of every case (`case_id, at, kind, key, value, ts`; a processing-time
advance keeps its time in `ts`), and, for a case with end of input, a `Watermark(Long.MAX_VALUE)` at
`at = len(events)`, which is what Flink's bounded source sends.

Outputs (`OUTPUT_SCHEMA`): one row per firing, late or dropped record, or runtime error, with the
columns the row's kind needs and nulls elsewhere; a global window has null `window_start`/`window_end`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import pyarrow as pa

from spark_impl.javalong import LONG_MAX
from window_contract.case import (
    Case,
    EventTimeTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    Record,
    Watermark,
    innermost_trigger,
)
from window_contract.observation import Error, Firing, GlobalWindow, LateRecord, Observation, TimeWindow

RECORD, WATERMARK, PROCESSING_TIME = 0, 1, 2

EVENT_SCHEMA = pa.schema([("case_id", pa.int64()), ("at", pa.int64()), ("kind", pa.int8()),
                          ("key", pa.string()), ("value", pa.int64()), ("ts", pa.int64())])

OUTPUT_SCHEMA = pa.schema([
    ("case_id", pa.int64()), ("kind", pa.string()), ("at", pa.int64()), ("key", pa.string()),
    ("window_start", pa.int64()), ("window_end", pa.int64()), ("timestamp", pa.int64()),
    ("values", pa.list_(pa.int64())), ("watermark", pa.int64()),
    ("value", pa.int64()), ("ts", pa.int64()), ("message", pa.string())])

#: The same schema as a Spark DDL string, for `mapInArrow`.
OUTPUT_DDL = ("case_id long, kind string, at long, key string, window_start long, window_end long, "
              "timestamp long, values array<long>, watermark long, value long, ts long, message string")


def events_table(cases: Sequence[tuple[int, Case]]) -> pa.Table:
    """The events of `cases` (given with their case ids) as one Arrow table."""
    cols: dict[str, list] = {name: [] for name in EVENT_SCHEMA.names}

    def add(case_id: int, at: int, kind: int, key, value, ts: int) -> None:
        for name, v in zip(EVENT_SCHEMA.names, (case_id, at, kind, key, value, ts), strict=True):
            cols[name].append(v)

    for case_id, case in cases:
        for at, e in enumerate(case.events):
            if isinstance(e, Record):
                add(case_id, at, RECORD, e.key, e.value, e.ts)
            elif isinstance(e, Watermark):
                add(case_id, at, WATERMARK, None, None, e.timestamp)
            else:
                add(case_id, at, PROCESSING_TIME, None, None, e.time)
        if case.end_of_input:
            add(case_id, len(case.events), WATERMARK, None, None, LONG_MAX)
    return pa.table(cols, schema=EVENT_SCHEMA)


def timer_positions(case: Case) -> frozenset[int]:
    """The positions at which `case` fires by timers whose time is the window's `maxTimestamp`:
    the watermarks, processing-time advances and the end of input, when the trigger is
    `EventTimeTrigger` or `ProcessingTimeTrigger` (the default of time windows), purging or not.
    Empty for the other triggers, whose timers are not at the output timestamp."""
    # a `ProcessingTimeoutTrigger`'s own timers are at no window's maxTimestamp
    if not isinstance(innermost_trigger(case.trigger, through=(PurgingTrigger,)),
                      EventTimeTrigger | ProcessingTimeTrigger | None):
        return frozenset()
    return frozenset([at for at, e in enumerate(case.events) if not isinstance(e, Record)] + [len(case.events)])


def in_timer_order(firings: list[Firing], positions: frozenset[int]) -> list[Firing]:
    """`firings` with those at `positions` in timestamp order, as Flink's timer queue fires them
    (`InternalTimerServiceImpl.advanceWatermark` polls the earliest timer of any key); rows from
    different keys come out of Spark in no particular order. The sort is stable: within one key and
    timestamp, the replay's order stays."""
    return sorted(firings, key=lambda f: (f.at, f.timestamp if f.at in positions else 0))


def observations(outputs: pa.Table, case_ids: Sequence[int],
                 timer_ordered: Mapping[int, frozenset[int]]) -> dict[int, Observation]:
    """The observation of each case id from the output rows (ordered by `at` within each case, and
    by timestamp at each case's `timer_ordered` positions)."""
    parts: dict[int, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for row in sorted(outputs.to_pylist(), key=lambda r: (r["case_id"], r["at"], r["kind"] != "error")):
        part, kind = parts[row["case_id"]], row["kind"]
        if kind == "firing":
            window = (GlobalWindow() if row["window_start"] is None
                      else TimeWindow(row["window_start"], row["window_end"]))
            part["firings"].append(Firing(row["at"], row["key"], window, row["timestamp"],
                                          tuple(row["values"]), row["watermark"]))
        elif kind == "error":
            part["error"].append(Error("runtime", row["message"]))
        else:
            part[kind].append(LateRecord(row["at"], row["key"], row["value"], row["ts"]))
    return {cid: Observation(tuple(in_timer_order(parts[cid]["firings"], timer_ordered.get(cid, frozenset()))),
                             tuple(parts[cid]["late"]),
                             tuple(parts[cid]["dropped"]), (parts[cid]["error"] or [None])[0])
            for cid in case_ids}

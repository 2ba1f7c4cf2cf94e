"""Pathway 0.33's temporal joins as an engine under test: the joins of `pathway` (`engines/pathway.py`), answering
`run_joins` requests in the same process.

Each join case becomes the computation a Pathway user writes for the same Flink job, over two stream tables, the
left input's rows and the right's (`pw.debug.table_from_rows(..., is_stream=True)`, the i-th event of the case
arriving alone at processing time `2 * (i + 1)`, as the windows' adapter does), keyed by the record's key:

    left.interval_join(right, left.ts, right.ts, pw.temporal.interval(lower, upper), left.key == right.key,
                       behavior=pw.temporal.common_behavior(cutoff=1))            # _left, _right, _outer likewise
    left.window_join(right, left.ts, right.ts, pw.temporal.tumbling(duration=size), left.key == right.key)

- **Interval join** (`KeyedStream.intervalJoin(..).between(lower, upper)`): `interval_join` with
  `pw.temporal.interval(lower, upper)`, which joins a right row to a left one when `right.ts - left.ts` lies in
  `[lower, upper]`, both bounds inclusive as Flink's; an exclusive bound is the inclusive one moved by 1 ms (Pathway's
  interval has no exclusive bound, and refuses one whose lower bound is above its upper: the case's `invalid_spec`,
  in Pathway's words). **Flink SQL's interval join** (`l.rt BETWEEN r.rt + lower AND r.rt + upper`, so `r.rt - l.rt`
  in `[-upper, -lower]`) is `interval_join`, `interval_join_left`, `_right` or `_outer` with
  `pw.temporal.interval(-upper, -lower)` for `JOIN`, `LEFT`, `RIGHT` and `FULL JOIN`.
- **Watermarks and lateness**: Pathway has no watermark. Each side of an interval join keeps its own time, the
  largest time of its rows so far, updated after each batch of input; `common_behavior(cutoff=c)` ignores a row whose
  time is at most its side's time minus `c`, and forgets a buffered row of a side (it joins nothing more) once that
  side's time reaches the row's time plus `c` and that side receives a row it does not ignore (`_freeze` comes before
  `_forget`). Flink's interval join drops an
  element behind the watermark (`ts < watermark`, `IntervalJoinOperator.isLate`): with `cutoff=1` Pathway ignores
  exactly the rows behind its time. A Flink `Watermark(w)` of an input is a heartbeat row at `w` in that input's
  table, on an instance none of the case's keys has (each side its own, so the heartbeats join nothing, and an outer
  join's padded heartbeats are left out); `Watermark(Long.MAX_VALUE)` (and a channel's end) is a heartbeat just late
  enough to make every record so far late, one past the largest timestamp so far. A watermark (or end) that an idle
  channel sends never reaches Flink's operator (`RecordWriterOutput` drops it while the status is idle): it is no
  heartbeat either, nor one that does not rise above what its input sent before (the input's valve lets only a
  rise through); Pathway has no idleness to translate otherwise. The case's records move their
  side's time too: that is Pathway's rule, not the adapter's. Flink SQL's interval join drops nothing: the same
  behavior makes Pathway drop what comes behind its time there too.
- **Window join** (`a.join(b).where(..).equalTo(..).window(assigner).apply(JoinFunction)`): `window_join` with the
  window of the windows' adapter (`engines.pathway.window`). Pathway's window join has no behavior: it joins every
  pair of a window as it comes, drops nothing, and has no watermark to listen to, so the case's watermarks are no
  rows there. A session groups both sides' rows of a key as Flink's merging windows do; Pathway's session ends at its
  last row (`[first, last]`).
- **End of input**: the two tables end, and Pathway's time with them.

What Pathway emits and how it is read, never corrected (as the windows' adapter does):

- every row the result table inserts (`pw.io.subscribe`'s `is_addition`) is an output; a deletion withdraws an earlier
  one and is no output: an outer join's row padded with nulls at once, withdrawn when a partner comes, was emitted;
  a session's pairs, withdrawn and inserted again with the session's new bounds as it grows, were emitted each time;
- a pair's timestamp is what the user's job computes from the row: `max(left.ts, right.ts)` for an interval join, the
  window's last millisecond for a window join (`_pw_window_end - 1`; a session's end is its last timestamp, read as
  the half-open `[first, last + 1)`); a SQL row carries none;
- a record is **dropped** when Pathway ignored it: the same join as an outer one, with the same behavior, pads every
  row it took that joined nothing, so a record in none of its rows was ignored. Pathway has no late side output: a
  record Flink sends to one is dropped here too;
- the adapter is position-free (`engines.serving`), as the windows' is: Pathway tells no watermark of an output;
- an exception of the computation fails the job: a `runtime` error with its message (cases computed together are
  then computed alone); a record in more than `WINDOWS_PER_ELEMENT_LIMIT` sliding windows stops the case before it,
  with no end of input, as in the windows' adapter.

Not declared: the window coGroup (Pathway has no coGroup function: its outer window join pads rows one by one, where
a coGroup is called once a window with both lists), Flink SQL's window join (Pathway's window join has no semi or
anti join), and what the windows' adapter leaves out (triggers but the event-time one, evictors, allowed lateness,
channels), which a window join needs as a window does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import pathway as pw

from engines.pathway import HEARTBEAT, Rows, in_runs, window, windows_of
from window_contract.case import EndOfChannel, Record, Session, Watermark, WatermarkStatus
from window_contract.facts import LONG_MAX, LONG_MIN, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.join_case import IntervalJoin, JoinCase, SqlIntervalJoin, WindowJoin
from window_contract.join_observation import SIDES, JoinObservation, Pair, Side, SideRecord, SqlRow
from window_contract.observation import Error

JOIN_FEATURES = frozenset({"join.interval", "join.sql_interval", "join.window"})

#: Pathway's interval join for each of Flink SQL's interval join types.
SQL_JOINS = {"inner": "interval_join", "left": "interval_join_left", "right": "interval_join_right",
             "full": "interval_join_outer"}

#: A row's time is ignored, and a buffered row forgotten, once its side's time is this far past it: Flink's late
#: element is behind the watermark (`ts < watermark`), a heartbeat row at the watermark.
CUTOFF = 1


def interval(case: JoinCase):
    """Pathway's interval for the case's join: `right.ts - left.ts` in `[lower, upper]`."""
    join = case.join
    if isinstance(join, SqlIntervalJoin):
        return pw.temporal.interval(-join.upper, -join.lower)
    return pw.temporal.interval(join.lower + join.lower_exclusive, join.upper - join.upper_exclusive)


def heartbeat_keys(case: JoinCase) -> dict[Side, str]:
    """An instance of each side's own, which none of the case's keys is."""
    keys = {e.event.key for e in case.events if isinstance(e.event, Record)}
    out = {}
    for side in SIDES:
        key = f"heartbeat-{side}"
        while key in keys:
            key += "'"
        out[side] = key
    return out


def rows(case: JoinCase, heartbeats: dict[Side, str] | None) -> tuple[dict[Side, list[tuple]], Error | None]:
    """Each side's stream: (key, value, ts, index, processing time, diff) a row per record and, when `heartbeats`,
    per watermark and channel end (module docstring), cut before a record in too many windows."""
    out: dict[Side, list[tuple]] = {side: [] for side in SIDES}
    latest = 0
    idle = {side: False for side in SIDES}
    highest = {side: LONG_MIN for side in SIDES}  # what each input's valve let through so far
    for index, joined in enumerate(case.events):
        event = joined.event
        if isinstance(event, WatermarkStatus):
            idle[joined.input] = event.idle
            continue
        if isinstance(event, Record):
            row = (event.key, event.value, event.ts, index)
            if isinstance(case.join, WindowJoin) and windows_of(case.join.window, event.ts) > WINDOWS_PER_ELEMENT_LIMIT:
                return out, Error("runtime", TOO_MANY_WINDOWS)
            latest = max(latest, event.ts)
        elif heartbeats and isinstance(event, Watermark | EndOfChannel) and not idle[joined.input]:
            sent = LONG_MAX if isinstance(event, EndOfChannel) else event.timestamp
            if sent <= highest[joined.input]:
                continue
            highest[joined.input] = sent
            row = (heartbeats[joined.input], 0, latest + 1 if sent == LONG_MAX else sent, HEARTBEAT)
        else:
            continue
        out[joined.input].append((*row, 2 * (index + 1), 1))
    return out, None


def table(stream: list[tuple]) -> pw.Table:
    return pw.debug.table_from_rows(Rows, stream, is_stream=True) if stream else pw.Table.empty(**Rows.typehints())


@dataclass
class JoinJob:
    """One join case's computation in the graph, and what its result tables emitted."""

    case: JoinCase
    stop: Error | None
    last_time: int
    #: (processing time, key, left value or None, right value or None, left ts, right ts, window start, end)
    emitted: list[tuple] = field(default_factory=list)
    #: The indexes of the events Pathway took (in a row of the outer join with the same behavior).
    taken: set[int] = field(default_factory=set)

    def output(self, key, left, right, lt, rt, start, end):
        join = self.case.join
        if isinstance(join, SqlIntervalJoin):
            return SqlRow(None, key, None, left, right)
        if isinstance(join, IntervalJoin):
            return Pair(None, key, max(lt, rt), None, left, right)
        last = end if isinstance(join.window, Session) else end - 1
        return Pair(None, key, last, None, left, right)

    def observation(self, error: Error | None) -> JoinObservation:
        outputs = tuple(self.output(*row[1:]) for row in self.emitted
                        if self.stop is None or row[0] <= self.last_time)
        if error is not None or isinstance(self.case.join, WindowJoin):
            return JoinObservation(outputs, watermarks=None, error=error or self.stop)
        dropped = tuple(SideRecord(None, e.input, e.event.key, e.event.value, e.event.ts)
                        for i, e in enumerate(self.case.events)
                        if isinstance(e.event, Record) and i not in self.taken)
        return JoinObservation(outputs, (), dropped, None, self.stop)


def build(case: JoinCase) -> JoinJob:
    """The case's tables, join and subscriptions in the current graph (Pathway checks the join as it builds it)."""
    windowed = isinstance(case.join, WindowJoin)
    heartbeats = None if windowed else heartbeat_keys(case)
    streams, stop = rows(case, heartbeats)
    print(f"pathway: {case.join}, {len(streams['left'])} + {len(streams['right'])} rows", file=sys.stderr, flush=True)
    job = JoinJob(case, stop, max((row[4] for s in streams.values() for row in s), default=0))
    left, right = table(streams["left"]), table(streams["right"])
    on = left.key == right.key
    if windowed:
        result = left.window_join(right, left.ts, right.ts, window(case.join.window), on).select(
            key=left.key, left=left.value, right=right.value, lt=left.ts, rt=right.ts,
            start=pw.left._pw_window_start, end=pw.left._pw_window_end)
    else:
        behavior = pw.temporal.common_behavior(cutoff=CUTOFF)
        how = SQL_JOINS[case.join.type] if isinstance(case.join, SqlIntervalJoin) else "interval_join"
        result = getattr(left, how)(right, left.ts, right.ts, interval(case), on, behavior=behavior).select(
            key=pw.coalesce(left.key, right.key), left=left.value, right=right.value, lt=left.ts, rt=right.ts,
            start=0, end=0)
        taken = left.interval_join_outer(right, left.ts, right.ts, interval(case), on, behavior=behavior).select(
            li=left.index, ri=right.index)

        def took(key, row, time, is_addition) -> None:
            job.taken.update(i for i in (row["li"], row["ri"]) if i is not None)

        pw.io.subscribe(taken, on_change=took)

    def emitted(key, row, time, is_addition) -> None:
        if is_addition and row["key"] not in (heartbeats or {}).values():
            job.emitted.append((time, row["key"], row["left"], row["right"], row["lt"], row["rt"], row["start"],
                                row["end"]))

    pw.io.subscribe(result, on_change=emitted)
    return job


def run_joins(cases: Sequence[JoinCase]) -> list[JoinObservation]:
    return in_runs(cases, build, lambda refused: JoinObservation(watermarks=None, error=Error("invalid_spec", refused)))

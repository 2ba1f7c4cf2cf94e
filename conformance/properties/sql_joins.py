"""The rules of Flink SQL's window join (`WindowJoinOperator`) and interval join (`RowTimeIntervalJoin`), by brute
force over a case and its observation, for the join properties (`test_joins.py`).

The window join:

- **Rows:** a record of an input is in every window of its window table function (`TUMBLE`, `HOP`, `CUMULATE`,
  enumerated here from their definitions); in a window whose last millisecond the operator's watermark had reached
  when it arrived (`windowEnd - 1 <= watermark`) it is dropped, in each other it is kept. Once the operator's
  watermark reaches a window's last millisecond (a window it never reaches, the inputs idle or without end, is
  never joined), the window of a key makes, by the join's type, its rows: every pair of its kept left and right
  values (inner, outer joins), each kept value of an outer side padded with nulls when the other side kept none,
  each left value when the right side kept some (semi) or none (anti). The join emits exactly those rows, each
  once, and drops exactly the dropped ones.
- **When:** each row of a window is emitted during the event at which the operator's watermark first reaches the
  window's last millisecond, and never before: a window is joined once, when it closes.

The interval join (`lower <= l.rt - r.rt <= upper`; a left row's relative size is `-lower`, a right row's `upper`):

- **Padding once, and only without a partner:** an outer side's row is padded with nulls at most once, and never
  when it is also in a pair.
- **Padding when no partner can come:** a row is padded only once the operator's time (its watermark, 0 while
  that is negative) has reached the row's time plus its relative size: at once, when it arrives that late (it is
  not cached), else when its cleanup finds it expired (`operatorTime - relativeSize - 1 >= rowTime`).
- **Pairs in bounds:** every pair is of one key and `l.rt - r.rt` lies within the bounds.

The operator's watermark is taken from the observation (the differential rule checks it against the reference's,
and the hold-back rule against the inputs').
"""

from __future__ import annotations

from collections import Counter

from window_contract.case import Cumulative, Record, Sliding, Tumbling, WindowSpec
from window_contract.join_case import JoinCase
from window_contract.join_observation import JoinObservation, SideRecord, SqlRow

LONG_MIN = -(2**63)
Window = tuple[int, int]


def windows(window: WindowSpec, ts: int) -> list[Window]:
    """The windows of a record at `ts`: `TUMBLE` one, `HOP` `size / slide`, `CUMULATE` one per step to the end of
    its period."""
    offset = window.offset
    match window:
        case Tumbling(size=size):
            start = (ts - offset) // size * size + offset
            return [(start, start + size)]
        case Sliding(size=size, slide=slide):
            last = (ts - offset) // slide * slide + offset
            return [(start, start + size) for start in range(last, ts - size, -slide)]
        case Cumulative(size=size, step=step):
            start = (ts - offset) // size * size + offset
            first_end = (ts - offset) // step * step + offset + step
            return [(start, end) for end in range(first_end, start + size + 1, step)]
    raise ValueError(f"not a SQL window: {window!r}")


def watermark_before(observation: JoinObservation, at: int) -> int:
    return max((w.watermark for w in observation.watermarks if w.at < at), default=LONG_MIN)


def expected_rows(case: JoinCase, observation: JoinObservation) -> tuple[Counter, Counter]:
    """The rows `(key, left, right, window)` the join's type makes of each window's kept values, and the dropped
    records, by brute force."""
    kept: dict[tuple[str, Window], dict[str, list[int]]] = {}
    dropped: Counter = Counter()
    for at, e in enumerate(case.events):
        if not isinstance(e.event, Record):
            continue
        record, watermark = e.event, watermark_before(observation, at)
        for window in windows(case.join.window, record.ts):
            if window[1] - 1 <= watermark:
                dropped[SideRecord(at, e.input, record.key, record.value, record.ts)] += 1
            else:
                kept.setdefault((record.key, window), {"left": [], "right": []})[e.input].append(record.value)
    rows: Counter = Counter()
    join_type, final = case.join.type, max((w.watermark for w in observation.watermarks), default=LONG_MIN)
    for (key, window), sides in kept.items():
        if window[1] - 1 > final:
            continue
        lefts, rights = sides["left"], sides["right"]
        if join_type in ("semi", "anti"):
            rows.update((key, left, None, window) for left in lefts if bool(rights) == (join_type == "semi"))
            continue
        rows.update((key, left, right, window) for left in lefts for right in rights)
        if join_type in ("left", "full") and not rights:
            rows.update((key, left, None, window) for left in lefts)
        if join_type in ("right", "full") and not lefts:
            rows.update((key, None, right, window) for right in rights)
    return rows, dropped


def window_rows_exactly_once(case: JoinCase, observation: JoinObservation) -> str | None:
    rows, dropped = expected_rows(case, observation)
    emitted = Counter((r.key, r.left, r.right, r.window) for r in observation.outputs if isinstance(r, SqlRow))
    if emitted != rows:
        return (f"rows (key, left, right, window) missing {sorted((rows - emitted).elements(), key=str)}, "
                f"unexpected {sorted((emitted - rows).elements(), key=str)}")
    if Counter(observation.dropped) != dropped:
        return f"dropped {list(observation.dropped)}, expected {sorted(dropped.elements(), key=str)}"
    return None


def window_rows_when_the_watermark_passes(case: JoinCase, observation: JoinObservation) -> str | None:
    for row in observation.outputs:
        if not isinstance(row, SqlRow) or row.window is None:
            continue
        closing = next((w for w in observation.watermarks if w.watermark >= row.window[1] - 1), None)
        if closing is None or closing.at != row.at:
            return (f"the row {row} of window [{row.window[0]}, {row.window[1]}) was emitted at position {row.at}, "
                    f"but the watermark first reached {row.window[1] - 1} at "
                    f"{'no position' if closing is None else closing.at}")
    return None


def records_by_value(case: JoinCase) -> dict[tuple[str, int], Record]:
    """Each input's records by input and value (a generated case's values are unique)."""
    return {(e.input, e.event.value): e.event for e in case.events if isinstance(e.event, Record)}


def padded_once_and_only_without_a_partner(case: JoinCase, observation: JoinObservation) -> str | None:
    rows = [r for r in observation.outputs if isinstance(r, SqlRow)]
    paired = {("left", r.left) for r in rows if r.right is not None} | {
        ("right", r.right) for r in rows if r.left is not None}
    padded = Counter(("left", r.left) if r.right is None else ("right", r.right) for r in rows
                     if (r.left is None) != (r.right is None))
    for (side, value), times in padded.items():
        if times > 1 or (side, value) in paired:
            return (f"the {side} row {value} was padded with nulls {times} times" if times > 1
                    else f"the {side} row {value} was padded with nulls and also joined")
    return None


def padded_when_no_partner_can_come(case: JoinCase, observation: JoinObservation) -> str | None:
    join, records = case.join, records_by_value(case)
    for r in observation.outputs:
        if not isinstance(r, SqlRow) or (r.left is None) == (r.right is None):
            continue
        side, value = ("left", r.left) if r.right is None else ("right", r.right)
        record = records[side, value]
        last_partner = record.ts + (-join.lower if side == "left" else join.upper)
        if max(r.watermark, 0) < last_partner:
            return (f"the {side} row {value} at {record.ts} was padded at position {r.at}, where the operator's time "
                    f"{max(r.watermark, 0)} had not reached {last_partner}, the last time a partner can have")
    return None


def interval_pairs_within_the_bounds(case: JoinCase, observation: JoinObservation) -> str | None:
    join, records = case.join, records_by_value(case)
    for r in observation.outputs:
        if isinstance(r, SqlRow) and r.left is not None and r.right is not None:
            left, right = records["left", r.left], records["right", r.right]
            if left.key != right.key or not join.lower <= left.ts - right.ts <= join.upper:
                return (f"the pair of left {r.left} at {left.ts} and right {r.right} at {right.ts} lies outside "
                        f"{join.lower} <= l.rt - r.rt <= {join.upper}")
    return None

"""Windows and assigners in Java `long` arithmetic, for the per-key simulation.

Windows are the contract's values: `TimeWindow(start, end)` is Flink's `TimeWindow` `[start, end)`,
`GlobalWindow()` its `GlobalWindow`. The functions mirror `TimeWindow` and the assigners of
`org.apache.flink.streaming.api.windowing.assigners`.
"""

from __future__ import annotations

from spark_impl.javalong import LONG_MAX, LONG_MIN, add, div, rem, sub, to_int
from window_contract.case import Cumulative, DynamicSession, Global, Session, Sliding, Tumbling
from window_contract.facts import DYNAMIC_GAP_MESSAGE, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT
from window_contract.observation import GlobalWindow, TimeWindow

NO_TIMESTAMP_MESSAGE = ("Record has Long.MIN_VALUE timestamp (= no timestamp marker). Did you forget to call "
                        "'DataStream.assignTimestampsAndWatermarks(...)'?")

class AssignerFailure(Exception):
    """An exception an assigner throws for one record (it fails the job)."""


def max_timestamp(w) -> int:
    """`Window.maxTimestamp()`: `end - 1` (wrapping), `Long.MAX_VALUE` for the global window."""
    return LONG_MAX if isinstance(w, GlobalWindow) else sub(w.end, 1)


def window_start(ts: int, offset: int, size: int) -> int:
    """`TimeWindow.getWindowStartWithOffset`: floor alignment, also for negative timestamps."""
    r = rem(sub(ts, offset), size)
    return sub(ts, add(r, size)) if r < 0 else sub(ts, r)


def assign_windows(assigner, ts: int, now: int, value: int = 0) -> list:
    """`WindowAssigner.assignWindows` for a record of `value` with timestamp `ts` at processing time `now`."""
    try:
        return _assign(assigner, ts, now, value)
    except ArithmeticError as e:  # a zero size or slide, possible only with offset Long.MIN_VALUE
        raise AssignerFailure(str(e)) from None


def _assign(assigner, ts: int, now: int, value: int) -> list:
    if isinstance(assigner, Global):
        return [GlobalWindow()]
    t = ts if assigner.time == "event" else now
    if isinstance(assigner, Session):
        return [TimeWindow(t, add(t, assigner.gap))]
    if isinstance(assigner, DynamicSession):
        gap = dynamic_gap(assigner, value)
        if gap <= 0:  # DynamicEventTimeSessionWindows.assignWindows: IllegalArgumentException
            raise AssignerFailure(DYNAMIC_GAP_MESSAGE)
        return [TimeWindow(t, add(t, gap))]
    if assigner.time == "event" and ts == LONG_MIN:
        raise AssignerFailure(NO_TIMESTAMP_MESSAGE)
    if isinstance(assigner, Tumbling):
        start = window_start(t, rem(assigner.offset, assigner.size), assigner.size)
        return [TimeWindow(start, add(start, assigner.size))]
    if isinstance(assigner, Cumulative):
        return _cumulative(assigner, t)
    return _sliding(assigner, t)


def dynamic_gap(assigner: DynamicSession, value: int) -> int:
    """`SessionWindowTimeGapExtractor.extract` of the extractor the case names: `value`, the record's value."""
    assert assigner.gap_extractor == "value", assigner.gap_extractor
    return value


def _sliding(s: Sliding, t: int) -> list[TimeWindow]:
    """`for (start = lastStart; start > timestamp - size; start -= slide)` in `long` arithmetic.

    When `start -= slide` wraps around, the loop goes on from the top of the range. Wrapped or not, the
    contract stops the case once an element has more than `WINDOWS_PER_ELEMENT_LIMIT` windows."""
    capacity = to_int(div(s.size, s.slide))
    if capacity < 0:  # new ArrayList<>((int) (size / slide))
        raise AssignerFailure(f"Illegal Capacity: {capacity}")
    windows, lower = [], sub(t, s.size)
    start = window_start(t, s.offset, s.slide)
    while start > lower:
        windows.append(TimeWindow(start, add(start, s.size)))
        if len(windows) > WINDOWS_PER_ELEMENT_LIMIT:
            raise AssignerFailure(TOO_MANY_WINDOWS)
        start = sub(start, s.slide)
    return windows


def _cumulative(c: Cumulative, t: int) -> list[TimeWindow]:
    """`CumulativeWindowAssigner.assignWindows`: one start aligned on the size, an end every step from the end of
    `t`'s step, `for (end = firstEnd; end <= lastEnd; end += step)` in `long` arithmetic. A last end within a step of
    `Long.MAX_VALUE` makes `end += step` wrap below it, and the loop goes on until the contract's limit stops it."""
    start = window_start(t, c.offset, c.size)
    last_end, end = add(start, c.size), add(window_start(t, c.offset, c.step), c.step)
    windows = []
    while end <= last_end:
        windows.append(TimeWindow(start, end))
        if len(windows) > WINDOWS_PER_ELEMENT_LIMIT:
            raise AssignerFailure(TOO_MANY_WINDOWS)
        end = add(end, c.step)
    return windows


def intersects(a: TimeWindow, b: TimeWindow) -> bool:
    """`TimeWindow.intersects`: adjacent windows intersect too."""
    return a.start <= b.end and a.end >= b.start


def cover(a: TimeWindow, b: TimeWindow) -> TimeWindow:
    return TimeWindow(min(a.start, b.start), max(a.end, b.end))


def merge_windows(windows: list[TimeWindow]) -> list[tuple[TimeWindow, list[TimeWindow]]]:
    """`TimeWindow.mergeWindows`: sorted by start, runs of intersecting windows with their cover.

    Only runs of two or more distinct windows are reported, as Flink's callback is called only for
    them: Flink gathers a run in a `HashSet`, so a new window equal to an in-flight one is a run of
    one, nothing merges, and `MergingWindowSet.addWindow` then maps that window to itself.
    """
    runs: list[tuple[TimeWindow, list[TimeWindow]]] = []
    for w in sorted(set(windows), key=lambda w: w.start):
        if runs and intersects(runs[-1][0], w):
            runs[-1] = (cover(runs[-1][0], w), runs[-1][1] + [w])
        else:
            runs.append((w, [w]))
    return [(c, ws) for c, ws in runs if len(ws) > 1]

"""The Java `long` sums Flink computes for a case, and whether one of them leaves the `long` range.

Flink computes times in `long`: a sum past `Long.MAX_VALUE` (or below `Long.MIN_VALUE`) wraps around, and the
answer then depends on the wrapping (`reference/javalong.py`). An implementation that computes in unbounded
or saturating integers is right on every case where no sum wraps, so the contract holds it to the others only
when it declares `extreme_values` (`window_contract.features`). `overflows(case)` bounds every sum from
above, never from below: a case on which one of Flink's sums wraps always overflows here, and a case that
overflows here may still not wrap (a window the element never reaches, a timer that never fires).

The sums, for each element's time `t` (its timestamp, or the clock for processing-time windows):

- `WindowOperator.isElementLate`: `t + allowedLateness`;
- the assigners: `t - offset` (`TimeWindow.getWindowStartWithOffset`), `start + size` (a window's end),
  `t - size` and `start -= slide` down to it (`SlidingEventTimeWindows.assignWindows`), the first end
  `getWindowStartWithOffset(t, offset, step) + step` and `end += step` up to one step past the last end
  (`CumulativeWindowAssigner.assignWindows`), `t + gap` (sessions; a dynamic gap is the record's value);
- `WindowOperator.cleanupTime` (`maxTimestamp + allowedLateness`, whose overflow Flink turns into
  `Long.MAX_VALUE`) and the merge check `maxTimestamp + allowedLateness <= watermark`;
- the continuous triggers' next fire time `time + interval`, up to the window's `maxTimestamp` (or, for the
  global window, up to the highest watermark, `Long.MAX_VALUE` when the input ends; over a window that keeps
  its contents, up to the contract's limit on one key's outputs, each timer firing them), and
  `ProcessingTimeoutTrigger`'s `now + timeout`, on the clock;
- the evictors: `TimeEvictor`'s newest timestamp `- size`, `CountEvictor`'s `size - maxCount` (the evictor
  `countWindow(size, slide)` brings included);
- the watermark generators: `maxTimestamp - bound - 1` (`BoundedOutOfOrdernessWatermarks`; the legacy extractor
  `- bound`), and the next periodic emit `now + interval` (`TimestampsAndWatermarksOperator`).
"""

from __future__ import annotations

from collections.abc import Iterator

from window_contract.case import (
    BoundedOutOfOrdernessTimestampExtractor,
    BoundedOutOfOrdernessWatermarks,
    Case,
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    Count,
    CountEvictor,
    Cumulative,
    DynamicSession,
    EndOfChannel,
    Global,
    Kind,
    ProcessingTime,
    ProcessingTimeoutTrigger,
    PurgingTrigger,
    Record,
    Session,
    Sliding,
    TimeEvictor,
    Tumbling,
    Watermark,
)
from window_contract.facts import LONG_MAX, LONG_MIN, OUTPUT_LIMIT


def overflows(case: Case) -> bool:
    """Whether a `long` sum Flink computes for `case` may leave the `long` range (and wrap)."""
    return any(not LONG_MIN <= value <= LONG_MAX for value in sums(case))


def lateness_headroom(case: Case) -> int:
    """The largest allowed lateness with which no `time + allowedLateness` of `case` leaves the `long` range:
    `Long.MAX_VALUE` less the highest time the lateness is added to (negative when that one is out of range)."""
    return LONG_MAX - max(_lateness_bases(case), default=0)


def sums(case: Case) -> Iterator[int]:
    """Every `long` sum of the module docstring's list, computed in Python's unbounded integers, or a bound
    above (below) it."""
    yield from (base + case.allowed_lateness for base in _lateness_bases(case))
    clock = _clock(case)
    kinds = list(_kinds(case))
    intervals = [k.interval for k in kinds if isinstance(k, ContinuousEventTimeTrigger)]
    records = list(_elements(case))
    for record in records:
        yield from (record.ts + interval for interval in intervals)  # the first fire time, from the element's
        for time in _element_times(case, record):
            assigned, end = _assignment(case, time, record.value)
            yield from assigned
            if end is not None:  # the next fire time, up to the window's maxTimestamp
                yield from (end - 1 + interval for interval in intervals)
        for kind in kinds:
            if isinstance(kind, TimeEvictor):
                yield record.ts - kind.size
            elif isinstance(kind, BoundedOutOfOrdernessWatermarks | BoundedOutOfOrdernessTimestampExtractor):
                yield record.ts - kind.bound - 1
    for kind in kinds:
        if isinstance(kind, ContinuousEventTimeTrigger) and isinstance(case.window, Global | Count) and records:
            # The global window ends at Long.MAX_VALUE: each timer up to the watermark sets the next, however many
            # over an empty window (a purged or evicted one); over one that keeps its contents each fires them,
            # until the contract's limit on a key's outputs stops the case.
            first = max(abs(r.ts) for r in records) + kind.interval
            reach = _highest_watermark(case)
            if not _may_empty(case, kinds):
                reach = min(reach, first + OUTPUT_LIMIT * kind.interval)
            yield reach + kind.interval
        elif isinstance(kind, ContinuousProcessingTimeTrigger):
            yield clock + kind.interval
        elif isinstance(kind, ProcessingTimeoutTrigger):
            yield clock + kind.timeout
        elif isinstance(kind, CountEvictor):
            yield len(records) - kind.max_count  # `size - maxCount`, at most every record in one window
    if isinstance(case.window, Count) and case.window.slide is not None:
        yield len(records) - case.window.size  # the `CountEvictor.of(size)` of `countWindow(size, slide)`
    if case.watermark_generator is not None:
        yield clock + case.watermark_generator.interval


def _may_empty(case: Case, kinds: list[Kind]) -> bool:
    """Whether the window's contents may go while its trigger still fires: a `PurgingTrigger`, or an evictor."""
    return case.evictor is not None or any(isinstance(k, PurgingTrigger) for k in kinds) or (
        isinstance(case.window, Count) and case.window.slide is not None)  # countWindow(size, slide)'s evictor


def _lateness_bases(case: Case) -> Iterator[int]:
    """What the allowed lateness is added to: each element's timestamp (`isElementLate`) and the
    `maxTimestamp` of its highest window (`cleanupTime`, the merge check); nothing unless the assigner runs on
    event time (`WindowOperator` checks `windowAssigner.isEventTime()` first)."""
    w = case.window
    if not isinstance(w, Tumbling | Sliding | Cumulative | Session | DynamicSession) or w.time != "event":
        return
    for record in _elements(case):
        yield record.ts
        _, end = _assignment(case, record.ts, record.value)
        if end is not None:
            yield end - 1


def _elements(case: Case) -> Iterator[Record]:
    """The records the window operator processes: up to the one at which the job fails before any sum (no
    timestamp, or a dynamic gap <= 0)."""
    for record in (e for e in case.events if isinstance(e, Record)):
        if record.ts == LONG_MIN or (isinstance(case.window, DynamicSession) and record.value <= 0):
            return
        yield record


def _clock(case: Case) -> int:
    """The latest processing time of the case (the clock starts at 0 and never goes back)."""
    return max((e.time for e in case.events if isinstance(e, ProcessingTime)), default=0)


def _element_times(case: Case, record: Record) -> tuple[int, ...]:
    """The times the assigner sees for `record`: its timestamp, or for processing-time windows the lowest and
    highest reading of the clock (the windows' bounds grow with the time)."""
    return (0, _clock(case)) if getattr(case.window, "time", "event") == "processing" else (record.ts,)


def _kinds(case: Case) -> Iterator[Kind]:
    """The case's triggers (nested ones included), evictor and watermark generator."""
    pending: list[Kind] = [k for k in (case.trigger, case.evictor, case.watermark_generator) if k is not None]
    while pending:
        kind = pending.pop()
        yield kind
        pending += kind.parts()


def _assignment(case: Case, time: int, value: int) -> tuple[list[int], int | None]:
    """The sums the assigner computes for an element at `time` (with `value`, a dynamic session's gap), lowest
    and highest among them, and the end of its highest window (`None`: the global window)."""
    w = case.window
    if isinstance(w, Tumbling) and w.size > 0:
        start = time - (time - w.offset) % w.size  # floor alignment, as Flink 2.x
        return [time - w.offset, start, start + w.size], start + w.size
    if isinstance(w, Sliding) and w.size > 0 and w.slide > 0:
        last_start = time - (time - w.offset) % w.slide
        lowest = time - w.size  # the loop runs while `start > timestamp - size`
        below = last_start - max(0, -(-(last_start - lowest) // w.slide)) * w.slide  # where `start -= slide` stops
        return [time - w.offset, lowest, below, last_start + w.size], last_start + w.size
    if isinstance(w, Cumulative) and w.size > 0 and w.step > 0:
        last_end = time - (time - w.offset) % w.size + w.size
        first_end = time - (time - w.offset) % w.step + w.step
        return [time - w.offset, first_end, last_end, last_end + w.step], last_end  # the loop ends past last_end
    if isinstance(w, Session | DynamicSession):
        end = time + (w.gap if isinstance(w, Session) else value)
        return [end], end
    return [], None


def _highest_watermark(case: Case) -> int:
    """The highest watermark the window operator may see: `Long.MAX_VALUE` once the input or a channel ends,
    otherwise the highest explicit watermark, or a generated one (below the highest timestamp)."""
    if case.end_of_input or any(isinstance(e, EndOfChannel) for e in case.events):
        return LONG_MAX
    return max([e.timestamp for e in case.events if isinstance(e, Watermark)] + [r.ts for r in _elements(case)])

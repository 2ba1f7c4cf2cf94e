"""What makes an engine crash, stall, stop or reject a job: each cause checked on the case, by the model.

An explainer that accounts for an engine's error (`conformance.divergences`: `fails`, `rejects`) names the cause
that produces it, and explains a case only where that cause holds on it. A matching error text is not enough: a
wrapper that fails every case with the engine's stall text, or rejects every job with its rejection, would
otherwise be explained everywhere. Each cause is a necessary condition of the engine's behaviour, computed on the
case (the model's windows, its firings under the engine's dialect, the case's times), and answers with the cause
in words where it holds, `None` elsewhere.

A list names a cause by its name, with its parameters: `cause = "records_in_no_window"` or
`cause = { name = "windows_above", limit = 2000 }`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from reference.dialects import Dialect
from reference.errors import InvalidSpec, JobFailure
from reference.implementation import simulate
from reference.job import build_assigner
from reference.trace import TraceListener
from reference.windows import get_window_start_with_offset
from window_contract.case import (
    Case,
    CountTrigger,
    DeltaEvictor,
    DeltaTrigger,
    DynamicSession,
    Kind,
    Record,
    Sliding,
    Tumbling,
    Watermark,
)
from window_contract.facts import LONG_MAX, LONG_MIN
from window_contract.observation import TimeWindow

#: A cause: its words where it holds on the case (with the engine's dialect), else None.
Cause = Callable[[Case, Dialect], str | None]


def unfired_records() -> Cause:
    """Some record enters a window and leaves in no firing before the watermark reaches `Long.MAX_VALUE` (the end
    of input, or a listed `Watermark(Long.MAX_VALUE)`): no trigger fires it by then (a count not reached, a
    `NeverTrigger`), as the model runs the case in the engine's dialect up to that watermark. An engine whose
    watermark holds wait for such records (Beam's) finds its watermark complete and its records still held. Each
    record is told apart by its position, its value replaced by it; where the job reads values (a dynamic gap, a
    delta trigger or evictor) they cannot be replaced, and the cause is not decided (it does not hold)."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        parts = [case.window, *_kinds(case.trigger), *_kinds(case.evictor)]
        if any(isinstance(part, DynamicSession | DeltaTrigger | DeltaEvictor) for part in parts):
            return None
        end = next((i + 1 for i, e in enumerate(case.events) if type(e) is Watermark and e.timestamp == LONG_MAX),
                   len(case.events))
        events = [dataclasses.replace(e, value=i) if type(e) is Record else e for i, e in enumerate(case.events[:end])]
        observed = simulate(dataclasses.replace(case, events=events, end_of_input=case.end_of_input or
                                                end < len(case.events)), dialect=dialect)
        if observed.error is not None:
            return None
        out = {v for f in observed.firings for v in f.values} | {r.value for r in observed.late + observed.dropped}
        held = [i for i, e in enumerate(events) if type(e) is Record and i not in out]
        return f"the records of events {held} are in no firing when the watermark ends" if held else None
    return holds


class _Merges(TraceListener):
    """The merges the model makes, counted."""

    def __init__(self) -> None:
        self.count = 0

    def merged(self, key, windows, into) -> None:
        self.count += 1


def late_pane_beside_merge() -> Cause:
    """A window fires behind the watermark on a record (a late firing within the allowed lateness), and the case
    merges windows, on that key or another, as the model runs it in the engine's dialect: where Beam's explicit
    `EventTimeTrigger` (`AfterWatermark(late=AfterCount(1))`) fires a late pane of a merging window, its direct
    runner stalls, though every record has been emitted (found by the census; the shape of the stall, not Beam's
    code path, which is not traced here)."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        merges = _Merges()
        observed = simulate(case, merges, dialect=dialect)
        late = [f for f in observed.firings if isinstance(f.window, TimeWindow) and f.at is not None
                and f.at < len(case.events) and type(case.events[f.at]) is Record
                and f.window.end - 1 <= f.watermark]
        if late and merges.count:
            return f"a late pane of {late[0].window} fires at event {late[0].at}, and windows merge"
        return None
    return holds


def records_in_no_window() -> Cause:
    """Some record falls in no window of its event-time assigner (a sliding window shorter than its slide)."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        try:
            assigner = build_assigner(case.window, get_window_start_with_offset, dialect.assigners(case))
        except InvalidSpec:
            return None
        if not assigner.is_event_time:
            return None
        alone = []
        for i, e in enumerate(case.events):
            try:
                if type(e) is Record and not assigner.assign_windows(e.ts, 0, e.value):
                    alone.append(i)
            except JobFailure:
                return None
        return f"the records of events {alone} fall in no window" if alone else None
    return holds


def windows_above(limit: int) -> Cause:
    """The case's records are in more than `limit` windows: each in `ceil(size / slide)` sliding windows, or in one."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        window, records = case.window, len(case.records)
        each = -(-window.size // window.slide) if isinstance(window, Sliding) and window.slide > 0 else 1
        return f"the records are in {records * each:,} windows" if records * each > limit else None
    return holds


def _step(case: Case) -> int | None:
    """The distance between a time window's starts (a sliding window's slide, a tumbling window's size)."""
    window = case.window
    step = window.slide if isinstance(window, Sliding) else window.size if isinstance(window, Tumbling) else None
    return step if step is not None and step > 0 else None


def time_jump_above(steps: int) -> Cause:
    """In arrival order, the case's time moves forward at once by at least `steps` steps of its window (a stream
    time an engine keeps as records and watermarks arrive): a record's timestamp, a listed watermark, and the end
    of input or `Watermark(Long.MAX_VALUE)` as the time that closes every window so far (the highest time yet, from
    0, plus the window's size and the watermark generator's bound)."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        step = _step(case)
        if step is None:
            return None
        bound = getattr(case.watermark_generator, "bound", 0)
        latest, highest = None, 0
        ends = [Watermark(LONG_MAX)] if case.end_of_input else []
        for i, e in enumerate([*case.events, *ends]):
            if type(e) is Record:
                time = e.ts
            elif type(e) is Watermark:
                time = highest + case.window.size + bound if e.timestamp == LONG_MAX else e.timestamp
            else:
                continue
            if latest is not None and (time - latest) // step >= steps:
                return f"the time jumps {(time - latest) // step:,} window steps at event {i}"
            latest = time if latest is None else max(latest, time)
            highest = max(highest, time)
        return None
    return holds


def walk_above(frames: int) -> Cause:
    """A walk of more than `frames` window steps: from the lowest record's timestamp up to the highest watermark
    (a listed one, `Long.MAX_VALUE` included, or the end of input's, one window past the highest record), one step
    a window end, and one more a watermark (an engine that visits every window end up to each watermark)."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        step, times = _step(case), [r.ts for r in case.records]
        if step is None or not times:
            return None
        marks = [e.timestamp for e in case.events if type(e) is Watermark]
        ends = marks + ([max(times) + case.window.size] if case.end_of_input else [])
        walk = (max(ends, default=LONG_MIN) - min(times)) // step + len(marks) + 1
        return f"a walk of {walk:,} window steps" if walk > frames else None
    return holds


def zero_window_parameter() -> Cause:
    """A time window's size or slide is 0."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        window = case.window
        zero = [n for n in ("size", "slide") if isinstance(window, Tumbling | Sliding) and getattr(window, n, 1) == 0]
        return f"the window's {' and '.join(zero)} is 0" if zero else None
    return holds


def _kinds(kind: Kind | None) -> Iterator[Kind]:
    if kind is not None:
        yield kind
        for part in kind.parts():
            yield from _kinds(part)


def count_trigger_below(count: int) -> Cause:
    """A `CountTrigger` (nested or not) of fewer than `count` elements."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        low = [k.count for k in _kinds(case.trigger) if isinstance(k, CountTrigger) and k.count < count]
        return f"CountTrigger.of({low[0]})" if low else None
    return holds


def slide_above_size() -> Cause:
    """A sliding window whose slide exceeds its size (windows with gaps between them)."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        w = case.window
        return f"slide {w.slide} > size {w.size}" if isinstance(w, Sliding) and w.slide > w.size else None
    return holds


def slide_not_below_size() -> Cause:
    """A sliding window whose slide is as large as its size or larger."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        w = case.window
        return f"slide {w.slide} >= size {w.size}" if isinstance(w, Sliding) and w.slide >= w.size else None
    return holds


def size_not_multiple_of_slide() -> Cause:
    """A sliding window whose size (above 0) is no multiple of its slide (above 0)."""
    def holds(case: Case, dialect: Dialect) -> str | None:
        w = case.window
        if isinstance(w, Sliding) and w.size > 0 and w.slide > 0 and w.size % w.slide:
            return f"size {w.size} is no multiple of slide {w.slide}"
        return None
    return holds


#: The causes a list may name.
CAUSES: dict[str, Callable[..., Cause]] = {f.__name__: f for f in (
    unfired_records, late_pane_beside_merge, records_in_no_window, windows_above, time_jump_above, walk_above,
    zero_window_parameter, count_trigger_below, slide_above_size, slide_not_below_size, size_not_multiple_of_slide)}

"""The window operator for one key, replayed event by event: the grouped-map half of the pipeline.

Used for everything the relational pipeline (`spark_impl.relational`) does not state as joins and
window functions: merging session windows, count and continuous triggers, purging, evictors, Flink
SQL's emit strategy, processing time, the global window, and times near the ends of the `long` range.
What these have in common is state that each arrival rewrites depending on everything before it (a
count reset by a firing, a fire time re-registered by its own timer, windows merged into others,
contents evicted), so the outputs are a fold over the arrival order, not a function of a few
aggregates. The fold is cheap per key, and keys are independent in Flink (state and timers are
keyed; only the watermark and the processing time are shared), so Spark runs it per (case, key)
(`spark_impl.grouped`).

The rules are Flink's `WindowOperator` and `EvictingWindowOperator` (processElement, onEventTime,
onProcessingTime, the cleanup timer), the table runtime's `AggregateWindowOperator` under an emit
strategy (a firing emits only a result that changed), `MergingWindowSet.addWindow` and `InternalTimerServiceImpl`
(timers deduplicated per window and time, fired in time order, including those registered meanwhile).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from spark_impl.evictors import evictions
from spark_impl.javalong import LONG_MAX, LONG_MIN, add
from spark_impl.spec import OperatorSpec
from spark_impl.triggers import TriggerFailure, decisions
from spark_impl.windows import AssignerFailure, assign_windows, max_timestamp, merge_windows
from window_contract.facts import OUTPUT_LIMIT, TOO_MANY_OUTPUTS
from window_contract.observation import Firing, LateRecord, TimeWindow

RECORD, WATERMARK, PROCESSING_TIME = 0, 1, 2

class JobFailure(Exception):
    """An exception that fails the Flink job; the case's observation ends with a runtime error."""


@dataclass
class Outputs:
    firings: list[Firing] = field(default_factory=list)
    late: list[LateRecord] = field(default_factory=list)
    dropped: list[LateRecord] = field(default_factory=list)
    #: (at, message) of the failure that ended the run, if any.
    error: tuple[int, str] | None = None
    #: How many outputs the key emitted before these since it last held no state (handed on already:
    #: `spark_impl.live_shard`, which forgets a key that holds none, and with it this count).
    earlier: int = 0


class _Timers:
    """One key's timers of one domain: deduplicated per (time, window), polled in time order, and among equal times in
    the order they were registered. A deleted timer stays on the heap until it reaches the top; the registration
    number it carries then no longer matches `pending`'s, so a timer deleted and registered again fires at its new
    place, whenever the stale entry is dropped (`earliest` drops them early, `poll` late)."""

    def __init__(self) -> None:
        self.pending: dict = {}  # (time, window) -> the registration number of its live heap entry
        self.heap: list = []
        self.registered = 0  # windows need not be comparable; ties keep registration order

    def register(self, time: int, window) -> None:
        if (time, window) not in self.pending:
            self.pending[(time, window)] = self.registered
            heapq.heappush(self.heap, (time, self.registered, window))
            self.registered += 1

    def delete(self, time: int, window) -> None:
        self.pending.pop((time, window), None)

    def _is_live(self, entry: tuple) -> bool:
        time, registration, window = entry
        return self.pending.get((time, window)) == registration

    def poll(self, up_to: int):
        """The earliest pending timer with time <= up_to, removed, or None."""
        while self.heap and self.heap[0][0] <= up_to:
            entry = heapq.heappop(self.heap)
            if self._is_live(entry):
                time, _, window = entry
                del self.pending[(time, window)]
                return time, window
        return None

    def __bool__(self) -> bool:
        """Whether a timer is pending (`InternalTimerServiceImpl` holds one in its queues for the key)."""
        return bool(self.pending)

    def earliest(self) -> int | None:
        """The time of the earliest pending timer, or None (deleted timers left on the heap are dropped)."""
        while self.heap and not self._is_live(self.heap[0]):
            heapq.heappop(self.heap)
        return self.heap[0][0] if self.heap else None

    def due(self, up_to: int):
        """The timers `poll(up_to)` gives one after another, those registered meanwhile included (however
        many: a continuous trigger's chain over an empty window is one of them, `spark_impl.chains`)."""
        while (timer := self.poll(up_to)) is not None:
            yield timer


class KeyedWindowOperator:
    """`WindowOperator` (or `EvictingWindowOperator`) restricted to one key."""

    def __init__(self, spec: OperatorSpec, key: str) -> None:
        self.spec, self.key = spec, key
        self.trigger = decisions(spec.trigger)
        self.evictor = None if spec.evictor is None else evictions(spec.evictor)
        self.watermark = LONG_MIN
        self.processing_time = 0
        self.contents: dict = {}  # state window -> [(value, ts)] in arrival order; absent when empty
        self.trigger_state: dict = {}  # (name, window) -> value
        self.event_timers, self.processing_timers = _Timers(), _Timers()
        self.merging: dict = {}  # MergingWindowSet: window -> state window
        self.out = Outputs()
        #: Under `spec.produce_updates`: state window -> the values its last firing emitted.
        self.emitted: dict = {}
        self.at = 0
        self.element = 0  # the value of the element being processed, for DeltaTrigger

    # --- the trigger context ------------------------------------------------------------------

    @property
    def is_event_time(self) -> bool:
        return self.spec.is_event_time

    def register_event_timer(self, time: int, window) -> None:
        self.event_timers.register(time, window)

    def delete_event_timer(self, time: int, window) -> None:
        self.event_timers.delete(time, window)

    def register_processing_timer(self, time: int, window) -> None:
        self.processing_timers.register(time, window)

    def delete_processing_timer(self, time: int, window) -> None:
        self.processing_timers.delete(time, window)

    def get_state(self, name: str, window):
        return self.trigger_state.get((name, window))

    def set_state(self, name: str, window, value) -> None:
        if value is None:
            self.trigger_state.pop((name, window), None)
        else:
            self.trigger_state[(name, window)] = value

    def merge_state(self, name: str, target, sources, reduce) -> None:
        """Heap keyed state's `mergeNamespaces`: the sources are reduced into the target and removed."""
        values = [v for v in (self.trigger_state.pop((name, s), None) for s in sources) if v is not None]
        current = self.get_state(name, target)
        for v in values:
            current = v if current is None else reduce(current, v)
        self.set_state(name, target, current)

    def holds_state(self) -> bool:
        """Whether Flink holds anything for this key: a window's contents, trigger state, a merging window set or a
        timer. `WindowOperator.clearAllState` clears the first three at a window's cleanup time and the timer
        service deletes a fired timer, so a key all of whose windows are cleaned up holds none, and an operator
        built afresh for it (with the shared clocks) goes on exactly as this one would."""
        return bool(self.contents or self.trigger_state or self.merging or self.event_timers
                    or self.processing_timers)

    # --- WindowOperator -----------------------------------------------------------------------

    def cleanup_time(self, window) -> int:
        """`WindowOperator.cleanupTime`: maxTimestamp + allowedLateness, saturating, for event time."""
        m = max_timestamp(window)
        if not self.spec.is_event_time:
            return m
        t = add(m, self.spec.allowed_lateness)
        return t if t >= m else LONG_MAX

    def is_window_late(self, window) -> bool:
        return self.spec.is_event_time and self.cleanup_time(window) <= self.watermark

    def _cleanup_timer(self, window, register: bool) -> None:
        t = self.cleanup_time(window)
        if t == LONG_MAX:
            return
        timers = self.event_timers if self.spec.is_event_time else self.processing_timers
        (timers.register if register else timers.delete)(t, window)

    def process_element(self, value: int, ts: int) -> None:
        try:
            windows = assign_windows(self.spec.assigner, ts, self.processing_time, value)
        except AssignerFailure as e:
            raise JobFailure(str(e)) from None
        skipped, self.element = True, value
        for window in windows:
            if self.spec.is_merging:
                window = self._add_merging_window(window)
                if self.is_window_late(window):
                    self.merging.pop(window, None)  # retireWindow
                    continue
                state_window = self.merging[window]
            else:
                if self.is_window_late(window):
                    continue
                state_window = window
            skipped = False
            self.contents.setdefault(state_window, []).append((value, ts))
            fire, purge = self._trigger(self.trigger.on_element, ts, window)
            if fire:
                self._emit(window, state_window)
            if purge:
                self.contents.pop(state_window, None)
            self._cleanup_timer(window, register=True)
        if skipped and self.spec.is_event_time and add(ts, self.spec.allowed_lateness) <= self.watermark:
            self._count_output()
            late = LateRecord(self.at, self.key, value, ts)
            (self.out.late if self.spec.late_side_output else self.out.dropped).append(late)

    def _left(self) -> int:
        """How many more outputs the key may emit before the job stops (`OUTPUT_LIMIT`)."""
        out = self.out
        return OUTPUT_LIMIT - (out.earlier + len(out.firings) + len(out.late) + len(out.dropped))

    def _count_output(self) -> None:
        """The key's next output: past `OUTPUT_LIMIT` of them the job stops instead (`TOO_MANY_OUTPUTS`)."""
        if self._left() <= 0:
            raise JobFailure(TOO_MANY_OUTPUTS)

    def _trigger(self, method, time: int, window) -> tuple[bool, bool]:
        try:
            return method(self, time, window)
        except TriggerFailure as e:
            raise JobFailure(str(e)) from None

    def _emit(self, window, state_window) -> None:
        """Call the window function with the window's contents (evicting around it, if asked)."""
        contents = self.contents.get(state_window)
        if not contents:
            return
        evictor = self.evictor
        if evictor is not None and not evictor.after:
            contents = evictor.evict(contents)
        values = tuple(v for v, _ in contents)
        if self.spec.produce_updates:  # "if the previous agg equals to the current agg, no need to send"
            if self.emitted.get(state_window) == values:
                return
            self.emitted[state_window] = values
        self._count_output()
        self.out.firings.append(Firing(self.at, self.key, window, max_timestamp(window), values, self.watermark))
        if evictor is not None:
            if evictor.after:
                contents = evictor.evict(contents)
            if contents:
                self.contents[state_window] = contents
            else:
                self.contents.pop(state_window, None)

    def _on_timer(self, time: int, window, domain: str, bound: int) -> None:
        """`WindowOperator.onEventTime` / `onProcessingTime` for the timer at `time`, fired by an advance up
        to `bound`; a window without contents lets the trigger step over its periodic timers at once."""
        if self.spec.is_merging:
            state_window = self.merging.get(window)
            if state_window is None:  # the window was merged away or retired
                return
        else:
            state_window = window
        if state_window not in self.contents:
            try:
                if self.trigger.skip_empty(self, domain, time, bound, window) is not None:
                    return  # nothing emitted, and before maxTimestamp: not the cleanup timer
            except TriggerFailure as e:
                raise JobFailure(str(e)) from None
        elif self.evictor is None and not self.spec.produce_updates and self.trigger.runs_past(
                self, self._left(), domain, time, bound, window):
            self._fire_to_the_limit(window, state_window)
        event_time = domain == "event"
        method = self.trigger.on_event_time if event_time else self.trigger.on_processing_time
        cleans_up = self.spec.is_event_time == event_time
        fire, purge = self._trigger(method, time, window)
        if fire:
            self._emit(window, state_window)
        if purge:
            self.contents.pop(state_window, None)
        if cleans_up and time == self.cleanup_time(window):
            self._clear_all_state(window, state_window)

    def _fire_to_the_limit(self, window, state_window) -> None:
        """A chain of periodic FIREs longer than the key's outputs left, each emitting the same contents (no
        evictor changes them): the key's last outputs at once, then the job stops (`TOO_MANY_OUTPUTS`). Timers
        of other windows that Flink fires between them would come later here; the outputs of the event a key
        stops in are not compared (`window_contract.equivalence`)."""
        values = tuple(v for v, _ in self.contents[state_window])
        firing = Firing(self.at, self.key, window, max_timestamp(window), values, self.watermark)
        self.out.firings.extend([firing] * self._left())
        raise JobFailure(TOO_MANY_OUTPUTS)

    def _clear_all_state(self, window, state_window) -> None:
        self.contents.pop(state_window, None)
        self.emitted.pop(state_window, None)
        self.trigger.clear(self, window)
        if self.spec.is_merging:
            self.merging.pop(window, None)

    def advance_watermark(self, time: int) -> None:
        """`InternalTimerServiceImpl.advanceWatermark`; watermarks that do not increase are ignored."""
        if time <= self.watermark:
            return
        self.watermark = time
        for timer in self.event_timers.due(time):
            self._on_timer(*timer, "event", time)

    def advance_processing_time(self, time: int) -> None:
        """The clock moves to `time` (never back); a timer for t fires once the clock has passed t, as
        `SystemProcessingTimeService` schedules it `t - now + 1` ms ahead (at once when t is past)."""
        self.processing_time = max(self.processing_time, time)
        due = self.processing_time - 1
        for timer in self.processing_timers.due(due):
            self._on_timer(*timer, "processing", due)

    # --- MergingWindowSet ---------------------------------------------------------------------

    def _add_merging_window(self, new: TimeWindow) -> TimeWindow:
        """`MergingWindowSet.addWindow` with `WindowOperator`'s merge function."""
        result, merged_new = new, False
        for cover, merged in merge_windows([*self.merging, new]):
            if new in merged:
                merged.remove(new)
                merged_new, result = True, cover
            state_window = self.merging[merged[0]]
            merged_state_windows = [self.merging.pop(w) for w in merged if w in self.merging]
            self.merging[cover] = state_window
            merged_state_windows.remove(state_window)
            if not (cover in merged and len(merged) == 1):
                self._merge(cover, merged, state_window, merged_state_windows)
        if result == new and not merged_new:
            self.merging[result] = result
        return result

    def _merge(self, cover: TimeWindow, merged: list, state_window, merged_state_windows: list) -> None:
        m, name = max_timestamp(cover), f"TimeWindow{{start={cover.start}, end={cover.end}}}"
        if self.spec.is_event_time and add(m, self.spec.allowed_lateness) <= self.watermark:
            raise JobFailure("The end timestamp of an event-time window cannot become earlier than the "
                             f"current watermark by merging. Current watermark: {self.watermark} "
                             f"window: {name}")
        if not self.spec.is_event_time and m <= self.processing_time:
            raise JobFailure("The end timestamp of a processing-time window cannot become earlier than the "
                             "current processing time by merging. Current processing time: "
                             f"{self.processing_time} window: {name}")
        self.trigger.on_merge(self, cover, merged)
        for w in merged:
            self.trigger.clear(self, w)
            self._cleanup_timer(w, register=False)
        for sw in merged_state_windows:
            moved = self.contents.pop(sw, [])
            if moved:
                self.contents.setdefault(state_window, []).extend(moved)


def simulate(spec: OperatorSpec, key: str, events) -> Outputs:
    """Replay one key's view of a case: `events` are (at, kind, value, ts) in arrival order, with the
    key's records and all of the case's watermarks and processing-time advances (the end of input
    included, as `Watermark(Long.MAX_VALUE)` at `at = len(case.events)`)."""
    return replayed(spec, key, events).out


def replayed(spec: OperatorSpec, key: str, events) -> KeyedWindowOperator:
    """The key's operator after `simulate`'s replay of `events`, with its outputs and what state it still holds."""
    op = KeyedWindowOperator(spec, key)
    try:
        for at, kind, value, ts in events:
            op.at = at
            if kind == RECORD:
                op.process_element(value, ts)
                # A timer it registered for a time already past fires at once, before the next input.
                op.advance_processing_time(op.processing_time)
            elif kind == WATERMARK:
                op.advance_watermark(ts)
            else:
                op.advance_processing_time(ts)
    except JobFailure as e:
        op.out.error = (op.at, str(e))
    return op

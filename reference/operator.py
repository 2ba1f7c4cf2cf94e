"""The window operator: the one place that sequences assigner, trigger, evictor, state and timers.

Models `WindowOperator` and `EvictingWindowOperator` (`org.apache.flink.streaming.runtime.operators.
windowing`) for one parallel instance. Window contents are lists in arrival order, keyed by
`(key, state window)`; trigger state is keyed by `(key, window, name)`.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol

from reference.assigners import WindowAssigner
from reference.errors import JobFailure
from reference.evictors import Evictor
from reference.javalong import LONG_MAX, ladd
from reference.merging import MergingWindowSet
from reference.timers import InternalTimer, InternalTimerService
from reference.trace import NO_TRACE, TraceListener
from reference.triggers import Trigger, TriggerResult
from reference.windows import TimeWindow, Window, merge_windows

CONTINUE = TriggerResult.CONTINUE  # a trigger's usual answer: nothing to do


class WindowOutput(Protocol):
    """Where the operator's results go: the window function's output and the late records."""

    def emit(self, key: str, window: Window, values: list[int], watermark: int) -> None: ...
    def side_output(self, key: str, value: int, timestamp: int) -> None: ...
    def drop(self, key: str, value: int, timestamp: int) -> None: ...
    def remaining(self, key: str) -> int:
        """How many more outputs `key` may emit before the contract stops the case (`TOO_MANY_OUTPUTS`)."""
        ...


class Context:
    """`WindowOperator.Context`: the trigger's view of one key and window (and, in `on_merge`, of
    the windows being merged into it). As in Flink, the operator keeps one context and sets its
    `key` and `window` before each call (`triggerContext.key = key; triggerContext.window = w`).
    Flink passes the element's value to `onElement` as an argument; here `element` holds it, set with
    the window before `on_element` (only `DeltaTrigger` reads it)."""

    __slots__ = ("op", "timers", "event_time_timers", "processing_time_timers", "key", "window",
                 "merged_windows", "element")

    def __init__(self, op: WindowOperator) -> None:
        self.op, self.timers = op, op.timers
        self.event_time_timers = op.timers.event_time_timers
        self.processing_time_timers = op.timers.processing_time_timers
        self.key: str = ""
        self.window: Window | None = None
        self.merged_windows: list[TimeWindow] = []
        self.element: int = 0

    def current_watermark(self) -> int:
        return self.timers.current_watermark

    def current_processing_time(self) -> int:
        return self.timers.current_processing_time

    def register_event_time_timer(self, time: int) -> None:
        if self.event_time_timers.add(time, self.key, self.window):
            self.op.listener.timer_registered(self.key, self.window, time, "event")

    def delete_event_time_timer(self, time: int) -> None:
        self.event_time_timers.remove(time, self.key, self.window)

    def register_processing_time_timer(self, time: int) -> None:
        if self.processing_time_timers.add(time, self.key, self.window):
            self.op.listener.timer_registered(self.key, self.window, time, "processing")

    def delete_processing_time_timer(self, time: int) -> None:
        self.processing_time_timers.remove(time, self.key, self.window)

    def get_state(self, name: str) -> int | None:
        return self.op.trigger_state.get((self.key, self.window, name))

    def set_state(self, name: str, value: int | None) -> None:
        if value is None:
            self.op.trigger_state.pop((self.key, self.window, name), None)
        else:
            self.op.trigger_state[(self.key, self.window, name)] = value

    def merge_state(self, name: str, reduce) -> None:
        """`OnMergeContext.mergePartitionedState`: fold the merged windows' state into this one's."""
        state = self.op.trigger_state
        values = [v for w in self.merged_windows if (v := state.pop((self.key, w, name), None)) is not None]
        if (own := state.get((self.key, self.window, name))) is not None:
            values.append(own)
        if values:
            merged = values[0]
            for v in values[1:]:
                merged = reduce(merged, v)
            state[(self.key, self.window, name)] = merged


class WindowOperator:
    """`WindowOperator`: assigns each element to windows, asks the trigger, fires and cleans up.

    A window's contents are the values of its elements (Flink's `windowState` holds
    `element.getValue()`); `EvictingWindowOperator` keeps their timestamps too. Each step is told
    to `listener` (for `explain`; by default nobody listens).
    """

    #: Whether the window state keeps `(value, timestamp)` rather than the value alone.
    keeps_timestamps = False
    #: Whether an evictor may change the contents when the window fires.
    evicts = False

    def __init__(self, assigner: WindowAssigner, trigger: Trigger, allowed_lateness: int,
                 late_data_output: bool, output: WindowOutput, listener: TraceListener = NO_TRACE) -> None:
        self.assigner, self.trigger, self.allowed_lateness = assigner, trigger, allowed_lateness
        self.is_event_time = assigner.is_event_time  # `windowAssigner.isEventTime()`, asked all the time
        self.late_data_output = late_data_output  # sideOutputLateData was set
        self.output = output
        self.listener = listener
        self.timers = InternalTimerService()
        self.trigger_context = Context(self)
        self.window_state: dict[tuple[str, Window], list] = {}
        self.trigger_state: dict[tuple[str, Window, str], int] = {}
        self.merging_window_sets: dict[str, MergingWindowSet] = {}

    # --- lateness and cleanup --------------------------------------------------------------

    def cleanup_time(self, window: Window) -> int:
        """`WindowOperator.cleanupTime`: event time: `maxTimestamp + allowedLateness`, saturating at
        `Long.MAX_VALUE` on overflow; processing time: `maxTimestamp`."""
        max_timestamp = window.max_timestamp()
        if not self.is_event_time:
            return max_timestamp
        # Java: `cleanupTime >= maxTimestamp ? cleanupTime : Long.MAX_VALUE`. The lateness is never
        # negative, so the sum can only overflow upwards: saturating is the same thing.
        cleanup_time = max_timestamp + self.allowed_lateness
        return cleanup_time if cleanup_time <= LONG_MAX else LONG_MAX

    def is_window_late(self, cleanup_time: int) -> bool:
        """`WindowOperator.isWindowLate`: an event-time window whose cleanup time the watermark
        has reached. Takes the window's `cleanup_time`, which the caller needs again for the
        cleanup timer."""
        return self.is_event_time and cleanup_time <= self.timers.current_watermark

    def with_lateness(self, time: int) -> int:
        """`time + allowedLateness`, a Java `long` sum that wraps (with a huge lateness a positive
        timestamp can become "late")."""
        return ladd(time, self.allowed_lateness)

    def is_element_late(self, timestamp: int) -> bool:
        """`WindowOperator.isElementLate`: `timestamp + allowedLateness <= watermark`."""
        return self.is_event_time and self.with_lateness(timestamp) <= self.timers.current_watermark

    def register_cleanup_timer(self, cleanup_time: int) -> None:
        """`WindowOperator.registerCleanupTimer`: a timer, in the assigner's notion of time, for the
        context's key and window at its `cleanup_time` (which the caller computed once for
        `is_window_late` too); none for a window cleaned up only at the end of time."""
        if cleanup_time == LONG_MAX:
            return  # don't set a GC timer for "end of time"
        if self.is_event_time:
            self.trigger_context.register_event_time_timer(cleanup_time)
        else:
            self.trigger_context.register_processing_time_timer(cleanup_time)

    def delete_cleanup_timer(self, window: Window) -> None:
        """`WindowOperator.deleteCleanupTimer`: deletes the timer `register_cleanup_timer` set for
        the context's key and `window`."""
        cleanup_time = self.cleanup_time(window)
        if cleanup_time == LONG_MAX:
            return  # no need to clean up because we didn't set one
        if self.is_event_time:
            self.trigger_context.delete_event_time_timer(cleanup_time)
        else:
            self.trigger_context.delete_processing_time_timer(cleanup_time)

    # --- elements ----------------------------------------------------------------------------

    def process_element(self, key: str, value: int, timestamp: int) -> None:
        """`WindowOperator.processElement`: the element goes to each of its windows that is not
        late; when all of them were late, a late element goes to the side output (or is dropped)."""
        windows = self.assigner.assign_windows(timestamp, self.timers.current_processing_time, value)
        self.listener.assigned(key, value, timestamp, windows)
        element = (value, timestamp) if self.keeps_timestamps else value
        self.trigger_context.key = key
        if self.assigner.is_merging:
            is_skipped_element = self.add_to_merging_windows(key, element, timestamp, windows)
        else:
            is_skipped_element = True
            for window in windows:
                # drop if the window is already late
                cleanup_time = self.cleanup_time(window)
                if self.is_window_late(cleanup_time):
                    self.listener.window_late(key, window)
                    continue
                is_skipped_element = False
                self.add_to_window(key, element, timestamp, window, window, cleanup_time)
        if is_skipped_element and self.is_element_late(timestamp):
            self.late_record(key, value, timestamp)

    def late_record(self, key: str, value, timestamp: int) -> None:
        """The end of `processElement` for a record no window took and `isElementLate`: `sideOutput(element)`
        with a late-data output tag, else `numLateRecordsDropped.inc()`."""
        if self.late_data_output:
            self.listener.side_output(key, value, timestamp)
            self.output.side_output(key, value, timestamp)
        else:
            self.listener.dropped(key, value, timestamp)
            self.output.drop(key, value, timestamp)

    def add_to_merging_windows(self, key: str, element, timestamp: int, windows: list[Window]) -> bool:
        """The merging branch of `processElement`: each window is first added to the key's
        `MergingWindowSet`; the window it merges into decides lateness. True if every one was late."""
        is_skipped_element = True
        merging = self.merging_window_set(key)
        for window in windows:
            # adding the new window might result in a merge; the element then goes to the merged window
            window = merging.add_window(
                window, lambda result, merged, state_result, merged_states:
                self.merge(key, result, merged, state_result, merged_states))
            # drop if the window is already late
            cleanup_time = self.cleanup_time(window)
            if self.is_window_late(cleanup_time):
                self.listener.window_late(key, window)
                merging.retire_window(window)
                continue
            is_skipped_element = False
            self.add_to_window(key, element, timestamp, window, merging.get_state_window(window), cleanup_time)
        return is_skipped_element

    def add_to_window(self, key: str, element, timestamp: int, window: Window, state_window: Window,
                      cleanup_time: int) -> None:
        """Add the element to the window's state, ask the trigger, act on its answer and register
        the window's cleanup timer."""
        state_key = (key, state_window)
        contents = self.window_state.get(state_key)
        if contents is None:
            self.window_state[state_key] = [element]
        else:
            contents.append(element)
        ctx = self.trigger_context
        ctx.window = window
        ctx.element = element[0] if self.keeps_timestamps else element
        result = self.trigger.on_element(timestamp, window, ctx)
        if result is not CONTINUE:
            self.act_on(result, key, window, state_window)
        self.register_cleanup_timer(cleanup_time)

    def merging_window_set(self, key: str) -> MergingWindowSet:
        merging = self.merging_window_sets.get(key)
        if merging is None:
            merging = self.merging_window_sets[key] = MergingWindowSet(self.merge_windows)
        return merging

    #: `TimeWindow.mergeWindows`, which the key's `MergingWindowSet` merges with.
    merge_windows = staticmethod(merge_windows)

    def merge(self, key: str, merge_result: TimeWindow, merged_windows: list[TimeWindow],
              state_window_result: TimeWindow, merged_state_windows: list[TimeWindow]) -> None:
        """The merge function of `WindowOperator.processElement`: a merge may not produce a window
        that is already late (`check_merge`); the trigger merges its state, the merged windows' triggers and
        cleanup timers are cleared, and their contents move into the result's state window."""
        self.check_merge(merge_result)
        self.listener.merged(key, merged_windows, merge_result)
        ctx = self.trigger_context
        ctx.key, ctx.window, ctx.merged_windows = key, merge_result, merged_windows
        self.trigger.on_merge(merge_result, ctx)
        for window in merged_windows:
            ctx.window = window
            self.trigger.clear(window, ctx)
            self.delete_cleanup_timer(window)
        # merge the merged state windows into the newly resulting state window
        merged_contents = [e for w in merged_state_windows for e in self.window_state.pop((key, w), ())]
        if merged_contents:
            self.window_state.setdefault((key, state_window_result), []).extend(merged_contents)

    def check_merge(self, merge_result: TimeWindow) -> None:
        """The merge function's check: in event time, `maxTimestamp + allowedLateness` (a wrapping sum) above the
        watermark; in processing time, `maxTimestamp` above the clock (an `IllegalStateException`)."""
        if self.is_event_time:
            if self.with_lateness(merge_result.max_timestamp()) <= self.timers.current_watermark:
                raise JobFailure(
                    "The end timestamp of an event-time window cannot become earlier than the current "
                    f"watermark by merging. Current watermark: {self.timers.current_watermark} "
                    f"window: {flink_repr(merge_result)}", "merge.behind_watermark")
        elif merge_result.max_timestamp() <= self.timers.current_processing_time:
            raise JobFailure(
                "The end timestamp of a processing-time window cannot become earlier than the current "
                f"processing time by merging. Current processing time: "
                f"{self.timers.current_processing_time} window: {flink_repr(merge_result)}", "merge.behind_watermark")

    # --- timers --------------------------------------------------------------------------------

    def process_watermark(self, time: int) -> None:
        self.timers.advance_watermark(time, self.on_event_time)

    def advance_processing_time(self, time: int) -> None:
        self.timers.advance_processing_time(time, self.on_processing_time)

    def on_event_time(self, timer: InternalTimer) -> None:
        """`WindowOperator.onEventTime`: the trigger decides; an event-time window's state is
        cleared when the timer is its cleanup timer."""
        time, key, window = timer
        self.listener.timer_fired(key, window, time, "event")
        merging, state_window = self.state_window_for_timer(key, window)
        if state_window is None:
            return
        ctx = self.trigger_context
        ctx.key, ctx.window = key, window
        if self.skipped_empty_firings(key, window, state_window, "event", time, self.timers.event_time_due):
            return
        self.stop_a_runaway_chain(key, window, state_window, "event", time, self.timers.event_time_due)
        result = self.trigger.on_event_time(time, window, ctx)
        if result is not CONTINUE:
            self.act_on(result, key, window, state_window)
        if self.is_event_time and time == self.cleanup_time(window):
            self.clear_all_state(key, window, state_window, merging)

    def on_processing_time(self, timer: InternalTimer) -> None:
        """`WindowOperator.onProcessingTime`: the trigger decides; a processing-time window's state
        is cleared when the timer is its cleanup timer."""
        time, key, window = timer
        self.listener.timer_fired(key, window, time, "processing")
        merging, state_window = self.state_window_for_timer(key, window)
        if state_window is None:
            return
        ctx = self.trigger_context
        ctx.key, ctx.window = key, window
        if self.skipped_empty_firings(key, window, state_window, "processing", time,
                                      self.timers.processing_time_due()):
            return
        self.stop_a_runaway_chain(key, window, state_window, "processing", time, self.timers.processing_time_due())
        result = self.trigger.on_processing_time(time, window, ctx)
        if result is not CONTINUE:
            self.act_on(result, key, window, state_window)
        if not self.is_event_time and time == self.cleanup_time(window):
            self.clear_all_state(key, window, state_window, merging)

    def skipped_empty_firings(self, key: str, window: Window, state_window: Hashable, domain: str, time: int,
                              bound: int) -> bool:
        """Whether the timer at `time` was one of the trigger's periodic timers on a window without
        contents, fired together with the chain of them it leads to, up to `bound` (the latest timer
        the advance fires), in one move (`Trigger.skip_empty_firings`). Such a firing emits nothing and
        is never the cleanup timer (it comes before `maxTimestamp`), so nothing is left to do."""
        if (key, state_window) in self.window_state:
            return False
        fired = self.trigger.skip_empty_firings(domain, time, bound, window, self.trigger_context)
        if fired is None:
            return False
        self.listener.empty_firings(key, window, time, fired, domain)
        return True

    def stop_a_runaway_chain(self, key: str, window: Window, state_window: Hashable, domain: str, time: int,
                             bound: int) -> None:
        """Not Flink's, its outcome in one move: when the timer at `time` starts a chain of the trigger's periodic
        timers up to `bound` that FIREs the window's contents, unchanged (no evictor), more often than the key
        may still emit (`Trigger.fires_past`), emit them until the contract stops the key (`TOO_MANY_OUTPUTS`),
        without stepping the trigger through each. Other windows' timers that Flink would fire between them
        emit later in ours, but the contract does not compare the outputs of the event it stops in
        (`window_contract.equivalence`)."""
        contents = self.window_state.get((key, state_window))
        if self.evicts or contents is None:
            return
        if self.trigger.fires_past(self.output.remaining(key), domain, time, bound, window, self.trigger_context):
            values, watermark = list(contents), self.timers.current_watermark
            while True:  # the output raises TOO_MANY_OUTPUTS once the key has emitted its last
                self.listener.fired(key, window, values)
                self.output.emit(key, window, values, watermark)

    def state_window_for_timer(self, key: str, window: Window) -> tuple[MergingWindowSet | None, Hashable | None]:
        """The key's `MergingWindowSet` (None for a non-merging assigner) and the window whose state
        a timer of `window` reads. None for a merging window no longer in flight: "Timer firing for
        non-existent window, this can only happen if a trigger did not clean up timers. We have
        already cleared the merging window and therefore the Trigger state, however, so nothing to
        do." (`WindowOperator.onEventTime`)"""
        if not self.assigner.is_merging:
            return None, window
        merging = self.merging_window_sets.get(key)
        return merging, merging.get_state_window(window) if merging is not None else None

    def act_on(self, result: TriggerResult, key: str, window: Window, state_window: Hashable) -> None:
        """FIRE emits the window's contents, if it has any; PURGE drops them."""
        if result.is_fire:
            contents = self.window_state.get((key, state_window))
            if contents is not None:
                self.emit_window_contents(key, window, state_window, contents)
        if result.is_purge:
            self.listener.purged(key, window)
            self.window_state.pop((key, state_window), None)

    def emit_window_contents(self, key: str, window: Window, state_window: Hashable, contents: list) -> None:
        values = list(contents)  # a copy: the window may get more elements after a FIRE
        self.listener.fired(key, window, values)
        self.output.emit(key, window, values, self.timers.current_watermark)

    def clear_all_state(self, key: str, window: Window, state_window: Hashable,
                        merging: MergingWindowSet | None) -> None:
        """`WindowOperator.clearAllState`: contents, trigger state, and the in-flight window."""
        self.listener.cleared(key, window)
        self.window_state.pop((key, state_window), None)
        self.trigger.clear(window, self.trigger_context)
        if merging is not None:
            merging.retire_window(window)


class EvictingWindowOperator(WindowOperator):
    """`EvictingWindowOperator`: the evictor trims the contents around each call of the function.

    The function is called even when `evictBefore` removed everything (with no values); what
    remains after `evictAfter` is the window's new contents.
    """

    keeps_timestamps = True  # the evictors need them: Flink keeps the `StreamRecord`s
    evicts = True

    def __init__(self, assigner, trigger, evictor: Evictor, allowed_lateness, late_data_output, output,
                 listener: TraceListener = NO_TRACE) -> None:
        super().__init__(assigner, trigger, allowed_lateness, late_data_output, output, listener)
        self.evictor = evictor

    def emit_window_contents(self, key, window, state_window, contents):
        elements = list(contents)
        self.evictor.evict_before(elements, len(elements))
        super().emit_window_contents(key, window, state_window, [v for v, _ in elements])
        self.evictor.evict_after(elements, len(elements))
        if len(elements) < len(contents):
            self.listener.evicted(key, window, [v for v, _ in elements])
        if elements:
            self.window_state[(key, state_window)] = elements
        else:
            self.window_state.pop((key, state_window), None)


class UpdatingWindowOperator(WindowOperator):
    """The table runtime's `AggregateWindowOperator` with `produceUpdates` (an emit strategy's early or late
    firing, `reference.emit_strategy`): a window's first firing emits its result (`+I`), a later one only a result
    that differs from the last it emitted (`-U`, `+U`); "if the previous agg equals to the current agg, no need to
    send retract and accumulate". The result here is the window's contents, so a firing emits nothing when no
    element came into the window since its last emission. What it emitted is forgotten with the window's state."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.previous_results: dict[tuple[str, Hashable], list] = {}

    def emit_window_contents(self, key, window, state_window, contents):
        values = list(contents)
        if self.previous_results.get((key, state_window)) == values:
            return
        self.previous_results[(key, state_window)] = values
        super().emit_window_contents(key, window, state_window, values)

    def clear_all_state(self, key, window, state_window, merging):
        self.previous_results.pop((key, state_window), None)
        super().clear_all_state(key, window, state_window, merging)


def flink_repr(window: TimeWindow) -> str:
    """`TimeWindow.toString()`, as it appears in Flink's messages."""
    return f"TimeWindow{{start={window.start}, end={window.end}}}"

"""Triggers: when a window fires, and whether it keeps its contents.

Models `org.apache.flink.streaming.api.windowing.triggers` (Flink 2.x). Each trigger answers one
question per callback with a `TriggerResult`; the window operator is the only place that acts on it.
A trigger keeps its own per-window state through the `TriggerContext` (Flink's partitioned state).
Each class names the kind of the format it models (`@models`, `reference.kinds`).
"""

from __future__ import annotations

from typing import Literal, Protocol

from reference.delta import DELTA_FUNCTIONS
from reference.errors import JobFailure
from reference.javalong import ladd, lrem, lsub
from reference.kinds import models
from reference.timer_chains import chain_end
from reference.windows import Window
from window_contract import case
from window_contract.facts import CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE, NEVER_ENDS


class TriggerResult:
    """`TriggerResult`: whether to call the window function (fire) and whether to clear (purge).

    Four constants, `CONTINUE`, `FIRE`, `PURGE`, `FIRE_AND_PURGE` (plain attributes, not an `Enum`:
    they are read for every element).
    """

    __slots__ = ("name", "is_fire", "is_purge")

    def __init__(self, name: str, is_fire: bool, is_purge: bool) -> None:
        self.name, self.is_fire, self.is_purge = name, is_fire, is_purge

    def __repr__(self) -> str:
        return f"TriggerResult.{self.name}"


TriggerResult.CONTINUE = TriggerResult("CONTINUE", False, False)
TriggerResult.FIRE = TriggerResult("FIRE", True, False)
TriggerResult.PURGE = TriggerResult("PURGE", False, True)
TriggerResult.FIRE_AND_PURGE = TriggerResult("FIRE_AND_PURGE", True, True)


class TriggerContext(Protocol):
    """`Trigger.TriggerContext` / `OnMergeContext`, bound to one key and window."""

    def current_watermark(self) -> int: ...
    def current_processing_time(self) -> int: ...
    def register_event_time_timer(self, time: int) -> None: ...
    def delete_event_time_timer(self, time: int) -> None: ...
    def register_processing_time_timer(self, time: int) -> None: ...
    def delete_processing_time_timer(self, time: int) -> None: ...
    def get_state(self, name: str) -> int | None: ...
    def set_state(self, name: str, value: int | None) -> None: ...
    def merge_state(self, name: str, reduce) -> None: ...


class Trigger:
    """`Trigger`: decides, for one key and window at a time, when the window function is called.

    The operator calls these callbacks, each with the window and a `TriggerContext` bound to the key
    and window (the subclasses only say what they decide). By default every callback continues and
    nothing can merge; `repr` is the expression that builds the trigger in Flink's API.
    """

    #: `canMerge()`: whether the trigger supports merging its state, so that it can be used with a
    #: merging assigner (session windows); a merging assigner with any other trigger is rejected.
    can_merge = False

    def on_element(self, timestamp: int, window: Window, ctx: TriggerContext) -> TriggerResult:
        """`onElement`: called for every element added to `window`, with the element's timestamp."""
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: Window, ctx: TriggerContext) -> TriggerResult:
        """`onEventTime`: called when an event-time timer the trigger set for `window` fires at `time`
        (the operator's cleanup timer calls it too)."""
        return TriggerResult.CONTINUE

    def on_processing_time(self, time: int, window: Window, ctx: TriggerContext) -> TriggerResult:
        """`onProcessingTime`: called when a processing-time timer set for `window` fires at `time`."""
        return TriggerResult.CONTINUE

    def on_merge(self, window: Window, ctx: TriggerContext) -> None:
        """`onMerge`: called when windows were merged into `window`; the trigger merges their state
        (`ctx.merge_state`) and registers the timers the merged window needs. The merged windows'
        own state and timers are cleared next, by `clear`."""

    def clear(self, window: Window, ctx: TriggerContext) -> None:
        """`clear`: called when `window` is cleaned up (or merged away); the trigger deletes the
        timers it set and the state it keeps for it."""

    def skip_empty_firings(self, domain: str, time: int, bound: int, window: Window,
                           ctx: TriggerContext) -> int | None:
        """Not Flink's: the operator asks this instead of `on_event_time` / `on_processing_time` when
        `window` has no contents. When the timer at `time` (of `domain`, "event" or "processing") is one
        of the trigger's periodic timers, fire it and the chain of periodic timers it leads to up to
        `bound` in one move, with the same state and timers after it as firing each would leave
        (`reference.timer_chains` says why), and return how many fired; a chain that never gets past
        `bound` fails with `NEVER_ENDS`. None: it is not one, the timer fires as usual."""
        return None

    def fires_past(self, limit: int, domain: str, time: int, bound: int, window: Window, ctx: TriggerContext) -> bool:
        """Not Flink's: whether the timer at `time` is one of the trigger's periodic timers whose chain up to
        `bound` FIREs more than `limit` times, each alike (FIRE without PURGE, so a window without an evictor
        emits the same contents every time), or never ends. The state is left as it is."""
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}.create()"


@models(case.EventTimeTrigger)
class EventTimeTrigger(Trigger):
    """`EventTimeTrigger`: fires once the watermark passes the window's `maxTimestamp`.

    An element for a window whose `maxTimestamp <= watermark` (a late element within the allowed
    lateness) fires the window at once; otherwise a timer is set at `maxTimestamp`.
    """

    can_merge = True

    def on_element(self, timestamp, window, ctx):
        max_timestamp = window.max_timestamp()
        if max_timestamp <= ctx.current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(max_timestamp)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def on_merge(self, window, ctx):
        # Only a window whose end the watermark has not passed needs a timer.
        max_timestamp = window.max_timestamp()
        if max_timestamp > ctx.current_watermark():
            ctx.register_event_time_timer(max_timestamp)

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())


@models(case.ProcessingTimeTrigger)
class ProcessingTimeTrigger(Trigger):
    """`ProcessingTimeTrigger`: fires once processing time passes the window's `maxTimestamp` (see `timers.py`)."""

    can_merge = True

    def on_element(self, timestamp, window, ctx):
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.FIRE

    def on_merge(self, window, ctx):
        max_timestamp = window.max_timestamp()
        if max_timestamp > ctx.current_processing_time():
            ctx.register_processing_time_timer(max_timestamp)

    def clear(self, window, ctx):
        ctx.delete_processing_time_timer(window.max_timestamp())


@models(case.CountTrigger)
class CountTrigger(Trigger):
    """`CountTrigger`: fires when `maxCount` elements arrived since the last firing (the count is
    reset on firing); merged windows add up their counts."""

    can_merge = True
    STATE = "count"

    def __init__(self, max_count: int) -> None:
        self.max_count = max_count

    def __repr__(self) -> str:
        return f"CountTrigger.of({self.max_count})"

    def on_element(self, timestamp, window, ctx):
        count = ladd(ctx.get_state(self.STATE) or 0, 1)
        if count >= self.max_count:
            ctx.set_state(self.STATE, None)
            return TriggerResult.FIRE
        ctx.set_state(self.STATE, count)
        return TriggerResult.CONTINUE

    def on_merge(self, window, ctx):
        ctx.merge_state(self.STATE, ladd)

    def clear(self, window, ctx):
        ctx.set_state(self.STATE, None)


class _ContinuousTrigger(Trigger):
    """What `ContinuousEventTimeTrigger` and `ContinuousProcessingTimeTrigger` share: a "fire-time"
    state (merged by `min`) holding the next firing, `min(t + interval, maxTimestamp)`, and a timer
    for it in the trigger's own notion of time."""

    can_merge = True
    STATE = "fire-time"
    #: The timer domain the trigger registers its fire times in: "event" or "processing".
    domain: str

    def __init__(self, interval: int) -> None:
        self.interval = interval

    def __repr__(self) -> str:
        return f"{type(self).__name__}.of({self.interval})"

    def register(self, ctx: TriggerContext, time: int) -> None:
        raise NotImplementedError

    def delete(self, ctx: TriggerContext, time: int) -> None:
        raise NotImplementedError

    def first_fire_from(self, time: int) -> int:
        """`time - (time % interval)`: Java's `%` truncates, so negative times round *up*."""
        try:
            return lsub(time, lrem(time, self.interval))
        except ArithmeticError as e:  # an interval of 0
            raise JobFailure(str(e), "arithmetic") from None

    def register_next_fire_timestamp(self, time: int, window: Window, ctx: TriggerContext) -> None:
        next_fire = min(ladd(time, self.interval), window.max_timestamp())
        current = ctx.get_state(self.STATE)
        ctx.set_state(self.STATE, next_fire if current is None else min(current, next_fire))
        self.register(ctx, next_fire)

    def on_timer(self, time: int, window: Window, ctx: TriggerContext) -> TriggerResult:
        if time == window.max_timestamp():
            return TriggerResult.FIRE
        fire_time = ctx.get_state(self.STATE)
        if fire_time is not None and fire_time == time:
            ctx.set_state(self.STATE, None)
            self.register_next_fire_timestamp(time, window, ctx)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def chain(self, domain: str, time: int, bound: int, window: Window,
              ctx: TriggerContext) -> tuple[int, int] | None | Literal["never ends"]:
        """The chain of periodic timers that the timer at `time` starts, up to `bound`: `(firings, next fire
        time)` as `reference.timer_chains.chain_end` finds it, "never ends", or None when the timer is not
        one of the trigger's periodic timers."""
        max_timestamp = window.max_timestamp()
        if domain != self.domain or time == max_timestamp or ctx.get_state(self.STATE) != time:
            return None
        return chain_end(time, self.interval, max_timestamp, bound) or "never ends"

    def skip_empty_firings(self, domain, time, bound, window, ctx):
        end = self.chain(domain, time, bound, window, ctx)
        if end is None:
            return None
        if end == "never ends":  # `time + interval` wraps back below the bound for ever
            raise JobFailure(NEVER_ENDS, "contract.never_ends")
        firings, next_fire = end
        ctx.set_state(self.STATE, next_fire)
        self.register(ctx, next_fire)
        return firings

    def fires_past(self, limit, domain, time, bound, window, ctx):
        end = self.chain(domain, time, bound, window, ctx)
        return end is not None and (end == "never ends" or end[0] > limit)

    def on_merge(self, window, ctx):
        ctx.merge_state(self.STATE, min)
        fire_time = ctx.get_state(self.STATE)
        if fire_time is not None:
            self.register(ctx, fire_time)

    def clear(self, window, ctx):
        # Only the next periodic timer is deleted; the one at maxTimestamp (event time) stays.
        fire_time = ctx.get_state(self.STATE)
        if fire_time is not None:
            self.delete(ctx, fire_time)
            ctx.set_state(self.STATE, None)


@models(case.ContinuousEventTimeTrigger)
class ContinuousEventTimeTrigger(_ContinuousTrigger):
    """`ContinuousEventTimeTrigger` (Flink 2.x): fires every `interval` of event time and at the
    window's end; an element for a window the watermark has passed fires it at once."""

    domain = "event"

    def register(self, ctx, time):
        ctx.register_event_time_timer(time)

    def delete(self, ctx, time):
        ctx.delete_event_time_timer(time)

    def on_element(self, timestamp, window, ctx):
        if window.max_timestamp() <= ctx.current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        if ctx.get_state(self.STATE) is None:
            self.register_next_fire_timestamp(self.first_fire_from(timestamp), window, ctx)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return self.on_timer(time, window, ctx)


@models(case.ContinuousProcessingTimeTrigger)
class ContinuousProcessingTimeTrigger(_ContinuousTrigger):
    """`ContinuousProcessingTimeTrigger` (Flink 2.x): fires every `interval` of processing time,
    aligned to the processing time of the window's first element, and at the window's end."""

    domain = "processing"

    def register(self, ctx, time):
        ctx.register_processing_time_timer(time)

    def delete(self, ctx, time):
        ctx.delete_processing_time_timer(time)

    def on_element(self, timestamp, window, ctx):
        if ctx.get_state(self.STATE) is None:
            now = ctx.current_processing_time()
            self.register_next_fire_timestamp(self.first_fire_from(now), window, ctx)
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        if time != window.max_timestamp() and ctx.get_state(self.STATE) is None:
            # `fireTimestampState.get().equals(time)` on an empty state
            raise JobFailure(CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE, "continuous.state")
        return self.on_timer(time, window, ctx)


@models(case.PurgingTrigger)
class PurgingTrigger(Trigger):
    """`PurgingTrigger`: turns every FIRE of the nested trigger into FIRE_AND_PURGE."""

    def __init__(self, nested: Trigger) -> None:
        self.nested = nested
        self.can_merge = nested.can_merge

    def __repr__(self) -> str:
        return f"PurgingTrigger.of({self.nested!r})"

    @staticmethod
    def _purging(result: TriggerResult) -> TriggerResult:
        return TriggerResult.FIRE_AND_PURGE if result.is_fire else result

    def on_element(self, timestamp, window, ctx):
        return self._purging(self.nested.on_element(timestamp, window, ctx))

    def on_event_time(self, time, window, ctx):
        return self._purging(self.nested.on_event_time(time, window, ctx))

    def on_processing_time(self, time, window, ctx):
        return self._purging(self.nested.on_processing_time(time, window, ctx))

    def on_merge(self, window, ctx):
        self.nested.on_merge(window, ctx)

    def clear(self, window, ctx):
        self.nested.clear(window, ctx)

    def skip_empty_firings(self, domain, time, bound, window, ctx):
        # FIRE_AND_PURGE on an empty window is FIRE on it: nothing to emit, nothing to purge.
        return self.nested.skip_empty_firings(domain, time, bound, window, ctx)


@models(case.NeverTrigger)
class NeverTrigger(Trigger):
    """`GlobalWindows.NeverTrigger`: never fires; it cannot merge."""

    def __repr__(self) -> str:
        return "GlobalWindows.NeverTrigger()"


@models(case.DeltaTrigger)
class DeltaTrigger(Trigger):
    """`DeltaTrigger`: fires when `getDelta(last, element) > threshold` (strictly; a `double`
    comparison), where `last` is its "last-element" state. The window's first element only becomes
    `last`, without firing; an element that fires becomes the new `last`, one that does not leaves it.
    Firing does not clear the state (a `PurgingTrigger` around it purges the contents, not `last`);
    `clear` does. It cannot merge (it does not override `canMerge`)."""

    STATE = "last-element"

    def __init__(self, threshold: float, delta_function: str) -> None:
        self.threshold, self.delta_function = threshold, delta_function
        self.get_delta = DELTA_FUNCTIONS[delta_function]

    def __repr__(self) -> str:
        return f"DeltaTrigger.of({self.threshold!r}, {self.delta_function}, serializer)"

    def on_element(self, timestamp, window, ctx):
        last = ctx.get_state(self.STATE)
        if last is None:
            ctx.set_state(self.STATE, ctx.element)
            return TriggerResult.CONTINUE
        if self.get_delta(last, ctx.element) > self.threshold:
            ctx.set_state(self.STATE, ctx.element)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def clear(self, window, ctx):
        ctx.set_state(self.STATE, None)


@models(case.ProcessingTimeoutTrigger)
class ProcessingTimeoutTrigger(Trigger):
    """`ProcessingTimeoutTrigger`: the nested trigger, plus a processing-time timeout.

    On an element the nested trigger decides first; when it fires, the timeout is cleared with it
    (`clear`, the nested trigger's `clear` included) and its result returned. Otherwise the first
    element sets a "timeout" state and a processing-time timer at `now + interval`, `long` arithmetic
    (every element does, the previous timer deleted, with `resetTimerOnNewRecord`). Every timer of the
    window, event or processing time, the timeout's, the nested trigger's or the operator's cleanup
    timer, FIREs (FIRE_AND_PURGE when the nested trigger purges), clearing everything first with
    `shouldClearOnTimeout`. Flink checks none of the arguments; it cannot merge.
    """

    STATE = "timeout"

    def __init__(self, nested: Trigger, interval: int, reset_timer_on_new_record: bool,
                 should_clear_on_timeout: bool) -> None:
        self.nested, self.interval = nested, interval
        self.reset_timer_on_new_record = reset_timer_on_new_record
        self.should_clear_on_timeout = should_clear_on_timeout

    def __repr__(self) -> str:
        return (f"ProcessingTimeoutTrigger.of({self.nested!r}, Duration.ofMillis({self.interval}), "
                f"{str(self.reset_timer_on_new_record).lower()}, {str(self.should_clear_on_timeout).lower()})")

    def on_element(self, timestamp, window, ctx):
        result = self.nested.on_element(timestamp, window, ctx)
        if result.is_fire:
            self.clear(window, ctx)
            return result
        next_fire_timestamp = ladd(ctx.current_processing_time(), self.interval)
        timeout = ctx.get_state(self.STATE)
        if timeout is not None and self.reset_timer_on_new_record:
            ctx.delete_processing_time_timer(timeout)
            ctx.set_state(self.STATE, None)
            timeout = None
        if timeout is None:
            ctx.set_state(self.STATE, next_fire_timestamp)
            ctx.register_processing_time_timer(next_fire_timestamp)
        return result

    def _on_timer(self, result: TriggerResult, window: Window, ctx: TriggerContext) -> TriggerResult:
        if self.should_clear_on_timeout:
            self.clear(window, ctx)
        return TriggerResult.FIRE_AND_PURGE if result.is_purge else TriggerResult.FIRE

    def on_processing_time(self, time, window, ctx):
        return self._on_timer(self.nested.on_processing_time(time, window, ctx), window, ctx)

    def on_event_time(self, time, window, ctx):
        return self._on_timer(self.nested.on_event_time(time, window, ctx), window, ctx)

    def skip_empty_firings(self, domain, time, bound, window, ctx):
        # Without `shouldClearOnTimeout` every timer FIREs and the nested trigger's periodic timers chain
        # as they do alone; with it, the first one clears the chain.
        if self.should_clear_on_timeout:
            return None
        return self.nested.skip_empty_firings(domain, time, bound, window, ctx)

    def fires_past(self, limit, domain, time, bound, window, ctx):
        # Every timer of the nested chain FIREs (`_on_timer`), unless the first one clears the chain.
        return not self.should_clear_on_timeout and self.nested.fires_past(limit, domain, time, bound, window, ctx)

    def clear(self, window, ctx):
        timeout = ctx.get_state(self.STATE)
        if timeout is not None:
            ctx.delete_processing_time_timer(timeout)
            ctx.set_state(self.STATE, None)
        self.nested.clear(window, ctx)

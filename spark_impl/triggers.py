"""Flink's triggers as decisions on one window, for the per-key simulation (`spark_impl.operator`).

Each class decides for one kind of the format (`window_contract.case`) and mirrors the `Trigger`
subclass of the same name (`org.apache.flink.streaming.api.windowing.triggers`), method by method;
`ctx` is the operator's trigger context for the current key: the watermark, the processing time, timers
and partitioned trigger state. A result is `(fire, purge)`, Flink's `TriggerResult`. `decisions(spec)`
is the trigger a case names; a new kind is one class here.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Protocol

from spark_impl.chains import skip_to
from spark_impl.delta import get_delta
from spark_impl.javalong import add, rem, sub
from spark_impl.kinds import OfKind
from spark_impl.windows import max_timestamp
from window_contract import case as spec
from window_contract.facts import CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE, NEVER_ENDS

CONTINUE = (False, False)
FIRE = (True, False)

#: The state names Flink's triggers use (`CountTrigger` "count", the continuous ones "fire-time",
#: `ProcessingTimeoutTrigger` "timeout": two timeout triggers nested in each other share it, as in Flink).
COUNT, FIRE_TIME, TIMEOUT = "count", "fire-time", "timeout"
#: `DeltaTrigger`'s state: the value of the last element that fired (the window's first one to begin with).
LAST_ELEMENT = "last-element"


class TriggerContext(Protocol):
    watermark: int
    processing_time: int
    #: Whether the window's clock is event time (`WindowAssigner.isEventTime()`).
    is_event_time: bool
    #: The value of the element `on_element` is called for (Flink passes it as `onElement`'s argument).
    element: int

    def register_event_timer(self, time: int, window) -> None: ...
    def delete_event_timer(self, time: int, window) -> None: ...
    def register_processing_timer(self, time: int, window) -> None: ...
    def delete_processing_timer(self, time: int, window) -> None: ...
    def get_state(self, name: str, window): ...
    def set_state(self, name: str, window, value) -> None: ...
    def merge_state(self, name: str, target, sources, reduce) -> None: ...


class TriggerFailure(Exception):
    """An exception a Flink trigger throws (it fails the job)."""


class Trigger(OfKind):
    """A trigger's decisions for one window: by default it continues, keeps nothing and cannot merge
    (`Trigger.canMerge()` is false unless a trigger says otherwise). `kind` is the format's kind it
    decides for (`spark_impl.kinds`); the fields of that kind are its attributes."""

    classes: ClassVar[dict[type, type]] = {}
    can_merge: ClassVar[bool] = False

    def __init__(self, trigger) -> None:
        for f in dataclasses.fields(trigger):
            value = getattr(trigger, f.name)
            setattr(self, f.name, decisions(value) if isinstance(value, spec.Kind) else value)

    def on_element(self, ctx: TriggerContext, ts: int, window) -> tuple[bool, bool]:
        return CONTINUE

    def on_event_time(self, ctx: TriggerContext, time: int, window) -> tuple[bool, bool]:
        return CONTINUE

    def on_processing_time(self, ctx: TriggerContext, time: int, window) -> tuple[bool, bool]:
        return CONTINUE

    def clear(self, ctx: TriggerContext, window) -> None:
        pass

    def on_merge(self, ctx: TriggerContext, window, merged: list) -> None:
        pass

    def skip_empty(self, ctx: TriggerContext, domain: str, time: int, bound: int, window) -> int | None:
        """For a window without contents: if the timer at `time` (`domain` "event" or "processing") is one
        of this trigger's periodic timers, the number of them that fire from it up to `bound`, their
        state and timer moved past them at once (`spark_impl.chains`); None if it is not one. A chain
        that never stops fails the job with `NEVER_ENDS`."""
        return None

    def runs_past(self, ctx: TriggerContext, limit: int, domain: str, time: int, bound: int, window) -> bool:
        """Whether the timer at `time` is one of this trigger's periodic timers and the chain of them up to
        `bound` answers FIRE (no purge) more than `limit` times or for ever; nothing is changed."""
        return False


def decisions(trigger) -> Trigger:
    """The decisions of the trigger a case names (`trigger`, a kind of `window_contract.case`)."""
    return Trigger.of_kind(trigger)


class EventTimeTrigger(Trigger):
    kind = spec.EventTimeTrigger
    can_merge = True

    def on_element(self, ctx, ts, window):
        m = max_timestamp(window)
        if m <= ctx.watermark:
            return FIRE
        ctx.register_event_timer(m, window)
        return CONTINUE

    def on_event_time(self, ctx, time, window):
        return FIRE if time == max_timestamp(window) else CONTINUE

    def clear(self, ctx, window):
        ctx.delete_event_timer(max_timestamp(window), window)

    def on_merge(self, ctx, window, merged):
        m = max_timestamp(window)
        if m > ctx.watermark:
            ctx.register_event_timer(m, window)


class ProcessingTimeTrigger(Trigger):
    kind = spec.ProcessingTimeTrigger
    can_merge = True

    def on_element(self, ctx, ts, window):
        ctx.register_processing_timer(max_timestamp(window), window)
        return CONTINUE

    def on_processing_time(self, ctx, time, window):
        return FIRE

    def clear(self, ctx, window):
        ctx.delete_processing_timer(max_timestamp(window), window)

    def on_merge(self, ctx, window, merged):
        m = max_timestamp(window)
        if m > ctx.processing_time:
            ctx.register_processing_timer(m, window)


class CountTrigger(Trigger):
    kind = spec.CountTrigger
    can_merge = True
    count: int

    def on_element(self, ctx, ts, window):
        n = add(ctx.get_state(COUNT, window) or 0, 1)
        if n >= self.count:
            ctx.set_state(COUNT, window, None)
            return FIRE
        ctx.set_state(COUNT, window, n)
        return CONTINUE

    def clear(self, ctx, window):
        ctx.set_state(COUNT, window, None)

    def on_merge(self, ctx, window, merged):
        ctx.merge_state(COUNT, window, merged, add)


class DeltaTrigger(Trigger):
    """It cannot merge."""

    kind = spec.DeltaTrigger
    threshold: float
    delta_function: str

    def on_element(self, ctx, ts, window):
        # The first element is only remembered; an element fires when its delta to the remembered
        # one exceeds the threshold (strictly), and is remembered instead.
        last = ctx.get_state(LAST_ELEMENT, window)
        if last is not None and not get_delta(self.delta_function, last, ctx.element) > self.threshold:
            return CONTINUE
        ctx.set_state(LAST_ELEMENT, window, ctx.element)
        return CONTINUE if last is None else FIRE

    def clear(self, ctx, window):
        ctx.set_state(LAST_ELEMENT, window, None)


class _Continuous(Trigger):
    """What the two continuous triggers share: a "fire-time" state, the next fire time registered on
    their own clock, and the window's end."""

    can_merge = True
    interval: int
    #: Which clock its fire times are on: "event" or "processing".
    domain: ClassVar[str]

    def register_timer(self, ctx: TriggerContext, time: int, window) -> None:
        raise NotImplementedError

    def delete_timer(self, ctx: TriggerContext, time: int, window) -> None:
        raise NotImplementedError

    def register_next(self, ctx: TriggerContext, time: int, window) -> None:
        """`registerNextFireTimestamp`: the next fire time, capped at the window's maxTimestamp."""
        nxt = min(add(time, self.interval), max_timestamp(window))
        current = ctx.get_state(FIRE_TIME, window)
        ctx.set_state(FIRE_TIME, window, nxt if current is None else min(current, nxt))
        self.register_timer(ctx, nxt, window)

    def aligned(self, time: int) -> int:
        """`time - time % interval` (Java's truncating `%`); an interval of 0 throws, failing the job."""
        try:
            return sub(time, rem(time, self.interval))
        except ArithmeticError as e:
            raise TriggerFailure(str(e)) from None

    def clear(self, ctx, window):
        # Deletes only the pending fire timer, not the one at maxTimestamp (Flink 2.x).
        fire_time = ctx.get_state(FIRE_TIME, window)
        if fire_time is not None:
            self.delete_timer(ctx, fire_time, window)
            ctx.set_state(FIRE_TIME, window, None)

    def on_merge(self, ctx, window, merged):
        ctx.merge_state(FIRE_TIME, window, merged, min)
        fire_time = ctx.get_state(FIRE_TIME, window)
        if fire_time is not None:
            self.register_timer(ctx, fire_time, window)

    def _chain(self, ctx, domain, time, bound, window) -> tuple[int, int] | None | bool:
        """`skip_to`'s answer for the periodic timer at `time`, False when the chain never stops, None when the
        timer is not one of them."""
        m = max_timestamp(window)
        if domain != self.domain or time == m or ctx.get_state(FIRE_TIME, window) != time:
            return None
        return skip_to(time, self.interval, m, bound) or False

    def skip_empty(self, ctx, domain, time, bound, window):
        stop = self._chain(ctx, domain, time, bound, window)
        if stop is None:
            return None
        if stop is False:
            raise TriggerFailure(NEVER_ENDS)
        ctx.set_state(FIRE_TIME, window, stop[1])
        self.register_timer(ctx, stop[1], window)
        return stop[0]

    def runs_past(self, ctx, limit, domain, time, bound, window):
        stop = self._chain(ctx, domain, time, bound, window)
        return stop is False or (stop is not None and stop[0] > limit)


class ContinuousEventTimeTrigger(_Continuous):
    kind = spec.ContinuousEventTimeTrigger
    domain = "event"

    def register_timer(self, ctx, time, window):
        ctx.register_event_timer(time, window)

    def delete_timer(self, ctx, time, window):
        ctx.delete_event_timer(time, window)

    def on_element(self, ctx, ts, window):
        m = max_timestamp(window)
        if m <= ctx.watermark:
            return FIRE
        ctx.register_event_timer(m, window)
        if ctx.get_state(FIRE_TIME, window) is None:
            self.register_next(ctx, self.aligned(ts), window)
        return CONTINUE

    def on_event_time(self, ctx, time, window):
        if time == max_timestamp(window):
            return FIRE
        if ctx.get_state(FIRE_TIME, window) == time:
            ctx.set_state(FIRE_TIME, window, None)
            self.register_next(ctx, time, window)
            return FIRE
        return CONTINUE


class ContinuousProcessingTimeTrigger(_Continuous):
    kind = spec.ContinuousProcessingTimeTrigger
    domain = "processing"

    def register_timer(self, ctx, time, window):
        ctx.register_processing_timer(time, window)

    def delete_timer(self, ctx, time, window):
        ctx.delete_processing_timer(time, window)

    def on_element(self, ctx, ts, window):
        now = ctx.processing_time
        if ctx.get_state(FIRE_TIME, window) is None:
            self.register_next(ctx, self.aligned(now), window)
        return CONTINUE

    def on_processing_time(self, ctx, time, window):
        if time == max_timestamp(window):
            return FIRE
        fire_time = ctx.get_state(FIRE_TIME, window)
        if fire_time is None:  # Flink calls fireTimestampState.get().equals(time)
            raise TriggerFailure(CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE)
        if fire_time == time:
            ctx.set_state(FIRE_TIME, window, None)
            self.register_next(ctx, time, window)
            return FIRE
        return CONTINUE


class PurgingTrigger(Trigger):
    """FIRE becomes FIRE_AND_PURGE; it merges when its nested trigger does."""

    kind = spec.PurgingTrigger
    inner: Trigger

    @property
    def can_merge(self) -> bool:
        return self.inner.can_merge

    @staticmethod
    def purging(result: tuple[bool, bool]) -> tuple[bool, bool]:
        return (True, True) if result[0] else result

    def on_element(self, ctx, ts, window):
        return self.purging(self.inner.on_element(ctx, ts, window))

    def on_event_time(self, ctx, time, window):
        return self.purging(self.inner.on_event_time(ctx, time, window))

    def on_processing_time(self, ctx, time, window):
        return self.purging(self.inner.on_processing_time(ctx, time, window))

    def clear(self, ctx, window):
        self.inner.clear(ctx, window)

    def on_merge(self, ctx, window, merged):
        self.inner.on_merge(ctx, window, merged)

    def skip_empty(self, ctx, domain, time, bound, window):
        return self.inner.skip_empty(ctx, domain, time, bound, window)  # nothing to purge either


class NeverTrigger(Trigger):
    """`GlobalWindows.NeverTrigger`: never fires; it cannot merge."""

    kind = spec.NeverTrigger


class ProcessingTimeoutTrigger(Trigger):
    """The nested trigger plus a processing-time timeout; every timer of the window FIREs it. It cannot
    merge."""

    kind = spec.ProcessingTimeoutTrigger
    inner: Trigger
    timeout: int
    reset_timer_on_new_record: bool
    should_clear_on_timeout: bool

    def on_element(self, ctx, ts, window):
        result = self.inner.on_element(ctx, ts, window)
        if result[0]:  # the nested trigger fired: the timeout goes with it
            self.clear(ctx, window)
            return result
        pending = ctx.get_state(TIMEOUT, window)
        if pending is not None and self.reset_timer_on_new_record:
            ctx.delete_processing_timer(pending, window)
            pending = None
        if pending is None:
            due = add(ctx.processing_time, self.timeout)
            ctx.set_state(TIMEOUT, window, due)
            ctx.register_processing_timer(due, window)
        return result

    def timed_out(self, ctx: TriggerContext, result: tuple[bool, bool], window) -> tuple[bool, bool]:
        """On any timer of the window: FIRE, keeping the nested trigger's purge."""
        if self.should_clear_on_timeout:
            self.clear(ctx, window)
        return (True, result[1])

    def on_event_time(self, ctx, time, window):
        return self.timed_out(ctx, self.inner.on_event_time(ctx, time, window), window)

    def on_processing_time(self, ctx, time, window):
        return self.timed_out(ctx, self.inner.on_processing_time(ctx, time, window), window)

    def clear(self, ctx, window):
        pending = ctx.get_state(TIMEOUT, window)
        if pending is not None:
            ctx.delete_processing_timer(pending, window)
            ctx.set_state(TIMEOUT, window, None)
        self.inner.clear(ctx, window)

    def skip_empty(self, ctx, domain, time, bound, window):
        # Clearing on timeout ends the nested trigger's chain at its first timer; otherwise it runs as alone.
        return None if self.should_clear_on_timeout else self.inner.skip_empty(ctx, domain, time, bound, window)

    def runs_past(self, ctx, limit, domain, time, bound, window):
        # Every timer FIREs (`onEventTime` / `onProcessingTime` answer FIRE whatever the nested one answers).
        return not self.should_clear_on_timeout and self.inner.runs_past(ctx, limit, domain, time, bound, window)


# --- Flink SQL's emit strategy ----------------------------------------------------------------------------------

#: `ProcessingTimeTriggers.AfterFirstElementPeriodic`'s state, its next firing, is named by its interval
#: ("processingTime-every-" + interval): an early and a late firing of the same delay share it.
NEXT_FIRING = "processingTime-every-{}"
#: `EventTimeTriggers.AfterEndOfWindowEarlyAndLate`'s state: whether the window has fired on time.
FIRED_ON_TIME = "eventTime-afterEOW"


class _EveryElement:
    """`ElementTriggers.EveryElement` (a delay of 0): fires on every element, on no timer."""

    def on_element(self, ctx, window):
        return FIRE

    def on_processing_time(self, ctx, time, window):
        return CONTINUE

    def clear(self, ctx, window):
        pass


class _AfterFirstElementPeriodic:
    """`ProcessingTimeTriggers.every(interval)` (a delay above 0): an element finding no next firing sets it at
    `now + interval`, unaligned; that timer fires the window and sets the next, `interval` later."""

    def __init__(self, interval: int) -> None:
        self.interval, self.state = interval, NEXT_FIRING.format(interval)

    def on_element(self, ctx, window):
        if ctx.get_state(self.state, window) is None:
            at = add(ctx.processing_time, self.interval)
            ctx.register_processing_timer(at, window)
            ctx.set_state(self.state, window, at)
        return CONTINUE

    def on_processing_time(self, ctx, time, window):
        if ctx.get_state(self.state, window) != time:
            return CONTINUE
        ctx.register_processing_timer(add(time, self.interval), window)
        ctx.set_state(self.state, window, add(time, self.interval))
        return FIRE

    def clear(self, ctx, window):
        at = ctx.get_state(self.state, window)
        if at is not None:
            ctx.delete_processing_timer(at, window)
            ctx.set_state(self.state, window, None)


def _firing(delay: int | None):
    """`WindowEmitStrategy.createTriggerFromFireDelay`: off, every element (0), or periodic (above 0)."""
    if delay is None:
        return None
    return _AfterFirstElementPeriodic(delay) if delay > 0 else _EveryElement()


class EmitStrategyTrigger(Trigger):
    """Flink SQL's emit strategy (`after_end_of_window`): the trigger the planner's `WindowEmitStrategy.getTrigger`
    builds, the table runtime's `EventTimeTriggers.afterEndOfWindow()` (`ProcessingTimeTriggers`' on a
    processing-time window, `ctx.is_event_time` false) with the early and late firings: the window fires when its
    clock passes its `maxTimestamp`; before that, `early` decides on elements and its own timers. On event time an
    element for a window the watermark has passed fires it; with a late firing (`AfterEndOfWindowEarlyAndLate`, not
    every element: "every-element late firing can be ignored") `late` decides instead once the window has fired on
    time. A processing-time window has no late firing. They all merge (`canMerge`); the planner lets no session
    window fire early or late."""

    kind = spec.AfterEndOfWindowTrigger
    can_merge = True
    early_firing_delay: int | None
    late_firing_delay: int | None

    def __init__(self, trigger: spec.AfterEndOfWindowTrigger) -> None:
        super().__init__(trigger)
        self.early = _firing(self.early_firing_delay)
        late = _firing(self.late_firing_delay)
        self.late = None if isinstance(late, _EveryElement) else late

    def _register_end(self, ctx, window) -> None:
        m = max_timestamp(window)
        (ctx.register_event_timer if ctx.is_event_time else ctx.register_processing_timer)(m, window)

    def on_element(self, ctx, ts, window):
        if ctx.is_event_time:
            if self.late is not None and ctx.get_state(FIRED_ON_TIME, window):
                return self.late.on_element(ctx, window)
            if max_timestamp(window) <= ctx.watermark:
                return FIRE  # the on-time firing, or one of the late phase before the window fired on time
        self._register_end(ctx, window)
        return CONTINUE if self.early is None else self.early.on_element(ctx, window)

    def on_event_time(self, ctx, time, window):
        if not ctx.is_event_time or time != max_timestamp(window):
            return CONTINUE  # neither firing sets event-time timers
        if self.late is not None:
            if ctx.get_state(FIRED_ON_TIME, window):
                return CONTINUE
            ctx.set_state(FIRED_ON_TIME, window, True)
        return FIRE

    def on_processing_time(self, ctx, time, window):
        if not ctx.is_event_time:
            # `||`: the early firing is not asked at the window's end
            if time == max_timestamp(window):
                return FIRE
            return CONTINUE if self.early is None else self.early.on_processing_time(ctx, time, window)
        late_phase = self.late is not None and ctx.get_state(FIRED_ON_TIME, window)
        firing = self.late if late_phase else self.early
        return CONTINUE if firing is None else firing.on_processing_time(ctx, time, window)

    def clear(self, ctx, window):
        m = max_timestamp(window)
        (ctx.delete_event_timer if ctx.is_event_time else ctx.delete_processing_timer)(m, window)
        for firing in (self.early, self.late):
            if firing is not None:
                firing.clear(ctx, window)
        ctx.set_state(FIRED_ON_TIME, window, None)

    def on_merge(self, ctx, window, merged):
        self._register_end(ctx, window)

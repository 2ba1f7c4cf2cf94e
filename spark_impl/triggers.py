"""Flink's triggers as decisions on one window, for the per-key simulation (`spark_impl.operator`).

Each function mirrors the method of the same name of Flink's `Trigger` subclass
(`org.apache.flink.streaming.api.windowing.triggers`); `ctx` is the operator's trigger context for the
current key: the watermark, the processing time, timers and partitioned trigger state. A result is
`(fire, purge)`, Flink's `TriggerResult`.
"""

from __future__ import annotations

from typing import Protocol

from spark_impl.delta import get_delta
from spark_impl.javalong import add, rem, sub
from spark_impl.windows import max_timestamp
from window_contract.case import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    CountTrigger,
    DeltaTrigger,
    EventTimeTrigger,
    ProcessingTimeoutTrigger,
    ProcessingTimeTrigger,
    PurgingTrigger,
    TriggerSpec,
)
from window_contract.facts import CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE

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


def _purging(result: tuple[bool, bool]) -> tuple[bool, bool]:
    """`PurgingTrigger`: FIRE becomes FIRE_AND_PURGE."""
    return (True, True) if result[0] else result


def on_element(t: TriggerSpec, ctx: TriggerContext, ts: int, window) -> tuple[bool, bool]:
    m = max_timestamp(window)
    match t:
        case ProcessingTimeoutTrigger(inner, timeout, reset_timer_on_new_record, _):
            result = on_element(inner, ctx, ts, window)
            if result[0]:  # the nested trigger fired: the timeout goes with it
                clear(t, ctx, window)
                return result
            pending = ctx.get_state(TIMEOUT, window)
            if pending is not None and reset_timer_on_new_record:
                ctx.delete_processing_timer(pending, window)
                pending = None
            if pending is None:
                due = add(ctx.processing_time, timeout)
                ctx.set_state(TIMEOUT, window, due)
                ctx.register_processing_timer(due, window)
            return result
        case PurgingTrigger(inner):
            return _purging(on_element(inner, ctx, ts, window))
        case EventTimeTrigger():
            if m <= ctx.watermark:
                return FIRE
            ctx.register_event_timer(m, window)
            return CONTINUE
        case ProcessingTimeTrigger():
            ctx.register_processing_timer(m, window)
            return CONTINUE
        case CountTrigger(count):
            n = add(ctx.get_state(COUNT, window) or 0, 1)
            if n >= count:
                ctx.set_state(COUNT, window, None)
                return FIRE
            ctx.set_state(COUNT, window, n)
            return CONTINUE
        case DeltaTrigger(threshold, delta_function):
            # The first element is only remembered; an element fires when its delta to the remembered
            # one exceeds the threshold (strictly), and is remembered instead.
            last = ctx.get_state(LAST_ELEMENT, window)
            if last is not None and not get_delta(delta_function, last, ctx.element) > threshold:
                return CONTINUE
            ctx.set_state(LAST_ELEMENT, window, ctx.element)
            return CONTINUE if last is None else FIRE
        case ContinuousEventTimeTrigger(interval):
            if m <= ctx.watermark:
                return FIRE
            ctx.register_event_timer(m, window)
            if ctx.get_state(FIRE_TIME, window) is None:
                _register_next(t, ctx, sub(ts, _rem(ts, interval)), window)
            return CONTINUE
        case ContinuousProcessingTimeTrigger(interval):
            now = ctx.processing_time
            if ctx.get_state(FIRE_TIME, window) is None:
                _register_next(t, ctx, sub(now, _rem(now, interval)), window)
            return CONTINUE
    return CONTINUE  # NeverTrigger


def _timed_out(t: ProcessingTimeoutTrigger, ctx: TriggerContext, result: tuple[bool, bool],
               window) -> tuple[bool, bool]:
    """`ProcessingTimeoutTrigger` on any timer of the window: FIRE, keeping the nested trigger's purge."""
    if t.should_clear_on_timeout:
        clear(t, ctx, window)
    return (True, result[1])


def on_event_time(t: TriggerSpec, ctx: TriggerContext, time: int, window) -> tuple[bool, bool]:
    match t:
        case ProcessingTimeoutTrigger(inner):
            return _timed_out(t, ctx, on_event_time(inner, ctx, time, window), window)
        case PurgingTrigger(inner):
            return _purging(on_event_time(inner, ctx, time, window))
        case EventTimeTrigger():
            return FIRE if time == max_timestamp(window) else CONTINUE
        case ContinuousEventTimeTrigger():
            if time == max_timestamp(window):
                return FIRE
            if ctx.get_state(FIRE_TIME, window) == time:
                ctx.set_state(FIRE_TIME, window, None)
                _register_next(t, ctx, time, window)
                return FIRE
    return CONTINUE


def on_processing_time(t: TriggerSpec, ctx: TriggerContext, time: int, window) -> tuple[bool, bool]:
    match t:
        case ProcessingTimeoutTrigger(inner):
            return _timed_out(t, ctx, on_processing_time(inner, ctx, time, window), window)
        case PurgingTrigger(inner):
            return _purging(on_processing_time(inner, ctx, time, window))
        case ProcessingTimeTrigger():
            return FIRE
        case ContinuousProcessingTimeTrigger():
            if time == max_timestamp(window):
                return FIRE
            fire_time = ctx.get_state(FIRE_TIME, window)
            if fire_time is None:  # Flink calls fireTimestampState.get().equals(time)
                raise TriggerFailure(CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE)
            if fire_time == time:
                ctx.set_state(FIRE_TIME, window, None)
                _register_next(t, ctx, time, window)
                return FIRE
    return CONTINUE


def clear(t: TriggerSpec, ctx: TriggerContext, window) -> None:
    match t:
        case ProcessingTimeoutTrigger(inner):
            pending = ctx.get_state(TIMEOUT, window)
            if pending is not None:
                ctx.delete_processing_timer(pending, window)
                ctx.set_state(TIMEOUT, window, None)
            clear(inner, ctx, window)
        case PurgingTrigger(inner):
            clear(inner, ctx, window)
        case EventTimeTrigger():
            ctx.delete_event_timer(max_timestamp(window), window)
        case ProcessingTimeTrigger():
            ctx.delete_processing_timer(max_timestamp(window), window)
        case CountTrigger():
            ctx.set_state(COUNT, window, None)
        case DeltaTrigger():
            ctx.set_state(LAST_ELEMENT, window, None)
        case ContinuousEventTimeTrigger() | ContinuousProcessingTimeTrigger():
            # Deletes only the pending fire timer, not the one at maxTimestamp (Flink 2.x).
            fire_time = ctx.get_state(FIRE_TIME, window)
            if fire_time is not None:
                _delete_timer(t, ctx, fire_time, window)
                ctx.set_state(FIRE_TIME, window, None)


def on_merge(t: TriggerSpec, ctx: TriggerContext, window, merged: list) -> None:
    m = max_timestamp(window)
    match t:
        case PurgingTrigger(inner):
            on_merge(inner, ctx, window, merged)
        case EventTimeTrigger():
            if m > ctx.watermark:
                ctx.register_event_timer(m, window)
        case ProcessingTimeTrigger():
            if m > ctx.processing_time:
                ctx.register_processing_timer(m, window)
        case CountTrigger():
            ctx.merge_state(COUNT, window, merged, add)
        case ContinuousEventTimeTrigger() | ContinuousProcessingTimeTrigger():
            ctx.merge_state(FIRE_TIME, window, merged, min)
            fire_time = ctx.get_state(FIRE_TIME, window)
            if fire_time is not None:
                _register_timer(t, ctx, fire_time, window)


def _rem(a: int, b: int) -> int:
    try:
        return rem(a, b)
    except ArithmeticError as e:  # interval 0: Flink's `timestamp % interval` throws
        raise TriggerFailure(str(e)) from None


def _register_next(t, ctx: TriggerContext, time: int, window) -> None:
    """`registerNextFireTimestamp`: the next fire time, capped at the window's maxTimestamp."""
    nxt = min(add(time, t.interval), max_timestamp(window))
    current = ctx.get_state(FIRE_TIME, window)
    ctx.set_state(FIRE_TIME, window, nxt if current is None else min(current, nxt))
    _register_timer(t, ctx, nxt, window)


def _register_timer(t, ctx: TriggerContext, time: int, window) -> None:
    if isinstance(t, ContinuousEventTimeTrigger):
        ctx.register_event_timer(time, window)
    else:
        ctx.register_processing_timer(time, window)


def _delete_timer(t, ctx: TriggerContext, time: int, window) -> None:
    if isinstance(t, ContinuousEventTimeTrigger):
        ctx.delete_event_timer(time, window)
    else:
        ctx.delete_processing_timer(time, window)


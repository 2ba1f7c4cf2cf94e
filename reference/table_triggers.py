"""The table runtime's triggers: when a legacy SQL group window fires under an emit strategy.

Models `org.apache.flink.table.runtime.operators.window.groupwindow.triggers` (Flink 2.x), the triggers
`WindowEmitStrategy` (`reference.emit_strategy`) builds for `GROUP BY TUMBLE/HOP(rowtime, ...)` from the
`table.exec.emit.*` options. They answer `true` (fire) or `false`, never purge; the operator fires a window through
them as through the DataStream API's triggers, so each answers with a `TriggerResult` here. A window's trigger time
is its `maxTimestamp` (`WindowTrigger.triggerTime`, in UTC: the runner's session time zone shifts nothing).
"""

from __future__ import annotations

from reference.triggers import Trigger, TriggerResult
from reference.windows import Window

FIRE, CONTINUE = TriggerResult.FIRE, TriggerResult.CONTINUE


def fire_if(fires: bool) -> TriggerResult:
    return FIRE if fires else CONTINUE


class EveryElement(Trigger):
    """`ElementTriggers.EveryElement` (`ElementTriggers.every()`): fires on every element, on no timer."""

    can_merge = True

    def __repr__(self) -> str:
        return "Element.every()"

    def on_element(self, timestamp, window, ctx):
        return FIRE


class AfterFirstElementPeriodic(Trigger):
    """`ProcessingTimeTriggers.AfterFirstElementPeriodic` (`ProcessingTimeTriggers.every(interval)`): an element
    that finds no pending firing sets one at `currentProcessingTime + interval` (not aligned); that timer fires the
    window and sets the next, `interval` later, for as long as the window lives, new elements or not. The pending
    firing is state named by the interval ("processingTime-every-" + interval): an early and a late firing of one
    delay share it (the late phase's first element finds the early timer pending and sets none, and that timer
    fires the late phase), of two delays each keeps its own."""

    can_merge = True

    def __init__(self, interval: int) -> None:
        self.interval = interval
        self.state = f"processingTime-every-{interval}"

    def __repr__(self) -> str:
        return f"ProcessingTime.every({self.interval})"

    def on_element(self, timestamp, window, ctx):
        if ctx.get_state(self.state) is None:
            next_timer = ctx.current_processing_time() + self.interval
            ctx.register_processing_time_timer(next_timer)
            ctx.set_state(self.state, next_timer)
        return CONTINUE

    def on_processing_time(self, time, window, ctx):
        if ctx.get_state(self.state) != time:
            return CONTINUE
        ctx.register_processing_time_timer(time + self.interval)
        ctx.set_state(self.state, time + self.interval)
        return FIRE

    def clear(self, window, ctx):
        timer = ctx.get_state(self.state)
        if timer is not None:
            ctx.delete_processing_time_timer(timer)
            ctx.set_state(self.state, None)


class AfterEndOfWindow(Trigger):
    """`EventTimeTriggers.AfterEndOfWindow`: fires once the watermark passes the window's trigger time; an element
    for a window the watermark has passed fires it at once (so `withLateFirings(Element.every())`, which returns
    this trigger, fires on every late element), any other sets a timer there. It is `EventTimeTrigger`."""

    can_merge = True

    def __repr__(self) -> str:
        return "EventTime.afterEndOfWindow()"

    def on_element(self, timestamp, window, ctx):
        if window.max_timestamp() <= ctx.current_watermark():
            return FIRE  # the watermark is already past the window: fire immediately
        ctx.register_event_time_timer(window.max_timestamp())
        return CONTINUE

    def on_event_time(self, time, window, ctx):
        return fire_if(time == window.max_timestamp())

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())


class AfterEndOfWindowNoLate(Trigger):
    """`EventTimeTriggers.AfterEndOfWindowNoLate` (`afterEndOfWindow().withEarlyFirings(early)`): an element for a
    window the watermark has passed fires it (the on-time firing); any other sets the timer at the trigger time and
    lets `early` decide; the timer at the trigger time fires, and `early`'s timers as `early` says."""

    def __init__(self, early: Trigger) -> None:
        self.early = early
        self.can_merge = early.can_merge

    def __repr__(self) -> str:
        return f"EventTime.afterEndOfWindow().withEarlyFirings({self.early!r})"

    def on_element(self, timestamp, window, ctx):
        if window.max_timestamp() <= ctx.current_watermark():
            return FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        return self.early.on_element(timestamp, window, ctx)

    def on_event_time(self, time, window, ctx):
        return fire_if(time == window.max_timestamp() or self.early.on_event_time(time, window, ctx).is_fire)

    def on_processing_time(self, time, window, ctx):
        return self.early.on_processing_time(time, window, ctx)

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())
        self.early.clear(window, ctx)


class AfterEndOfWindowEarlyAndLate(Trigger):
    """`EventTimeTriggers.AfterEndOfWindowEarlyAndLate(early, late)`: `early` (or nothing) decides until the timer
    at the trigger time has fired the window on time, which it records ("eventTime-afterEOW"); `late` decides from
    then on. Before that record, an element for a window the watermark has passed fires it ("if there is no late
    trigger then we fire on every late element"): a window first made after its end fires on every element."""

    STATE = "eventTime-afterEOW"

    def __init__(self, early: Trigger | None, late: Trigger) -> None:
        self.early, self.late = early, late
        self.can_merge = (early is None or early.can_merge) and late.can_merge

    def __repr__(self) -> str:
        early = f".withEarlyFirings({self.early!r})" if self.early is not None else ""
        return f"EventTime.afterEndOfWindow(){early}.withLateFirings({self.late!r})"

    def on_element(self, timestamp, window, ctx):
        if ctx.get_state(self.STATE):
            return self.late.on_element(timestamp, window, ctx)
        if window.max_timestamp() <= ctx.current_watermark():
            return FIRE  # the late phase, not yet fired on time
        ctx.register_event_time_timer(window.max_timestamp())
        return self.early.on_element(timestamp, window, ctx) if self.early is not None else CONTINUE

    def on_processing_time(self, time, window, ctx):
        phase = self.late if ctx.get_state(self.STATE) else self.early
        return phase.on_processing_time(time, window, ctx) if phase is not None else CONTINUE

    def on_event_time(self, time, window, ctx):
        if ctx.get_state(self.STATE):
            return self.late.on_event_time(time, window, ctx)
        if time == window.max_timestamp():
            ctx.set_state(self.STATE, 1)  # fire on time and update state
            return FIRE
        return self.early.on_event_time(time, window, ctx) if self.early is not None else CONTINUE

    def clear(self, window, ctx):
        for phase in (self.early, self.late):
            if phase is not None:
                phase.clear(window, ctx)
        ctx.delete_event_time_timer(window.max_timestamp())
        ctx.set_state(self.STATE, None)


class ProcessingTimeAfterEndOfWindow(Trigger):
    """`ProcessingTimeTriggers.AfterEndOfWindow` (a processing-time group window's), `.withEarlyFirings(early)`
    when `early` is given (`AfterEndOfWindowNoLate`): every element sets a processing-time timer at the window's
    trigger time, which fires it; `early` decides on elements and on its own timers besides."""

    can_merge = True

    def __init__(self, early: Trigger | None = None) -> None:
        self.early = early

    def __repr__(self) -> str:
        early = f".withEarlyFirings({self.early!r})" if self.early is not None else ""
        return f"ProcessingTime.afterEndOfWindow(){early}"

    def on_element(self, timestamp, window: Window, ctx):
        ctx.register_processing_time_timer(window.max_timestamp())
        return self.early.on_element(timestamp, window, ctx) if self.early is not None else CONTINUE

    def on_processing_time(self, time, window, ctx):
        return fire_if(time == window.max_timestamp()
                       or self.early is not None and self.early.on_processing_time(time, window, ctx).is_fire)

    def on_event_time(self, time, window, ctx):
        return self.early.on_event_time(time, window, ctx) if self.early is not None else CONTINUE

    def clear(self, window, ctx):
        ctx.delete_processing_time_timer(window.max_timestamp())
        if self.early is not None:
            self.early.clear(window, ctx)

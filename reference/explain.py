"""A readable, step-by-step account of what the reference does with a case, for people learning the
semantics: elements assigned to windows, timers registered and fired, watermarks, firings, late and
dropped records, state cleared."""

from __future__ import annotations

from collections.abc import Iterator

from reference.implementation import simulate
from reference.javalong import LONG_MAX, LONG_MIN
from reference.trace import Step, StepRecorder, TraceStep
from window_contract.case import Case, EndOfChannel, ProcessingTime, Record, Watermark, WatermarkStatus
from window_contract.observation_json import dumps_observation


def _time(t: object) -> str:
    if t == LONG_MAX:
        return "Long.MAX_VALUE"
    if t == LONG_MIN:
        return "Long.MIN_VALUE"
    return str(t)


def _on(channel: int) -> str:
    return f" on channel {channel}" if channel else ""


def _event(event: object) -> str:
    if isinstance(event, Record):
        return f"record key={event.key} value={event.value} ts={_time(event.ts)}{_on(event.channel)}"
    if isinstance(event, Watermark):
        return f"Watermark({_time(event.timestamp)}){_on(event.channel)}"
    if isinstance(event, ProcessingTime):
        return f"processing time -> {event.time}"
    if isinstance(event, WatermarkStatus):
        return f"channel {event.channel} marked {'idle' if event.idle else 'active'} by its source"
    if isinstance(event, EndOfChannel):
        return f"channel {event.channel} ends: its watermark becomes Long.MAX_VALUE"
    return repr(event)


def _windows(windows) -> str:
    return ", ".join(map(repr, windows))


def _line(step: Step) -> str:
    """The step as a line of the account: an input event flush left, what it caused indented."""
    match step.kind:
        case TraceStep.EVENT:
            return f"[{step.at}] {_event(step.event)}"
        case TraceStep.END_OF_INPUT:
            return f"[{step.at}] end of input: Watermark(Long.MAX_VALUE)"
        case TraceStep.WATERMARK_IGNORED:
            return f"  ignored: does not exceed the current watermark {_time(step.current)}"
        case TraceStep.ASSIGNED:
            return f"  assigned to {_windows(step.windows) or 'no window'}"
        case TraceStep.WINDOW_LATE:
            return f"  {step.window!r} is late (cleanup time <= watermark): skipped"
        case TraceStep.SIDE_OUTPUT:
            return f"  late: every window was late -> side output ({step.value}, ts={_time(step.ts)})"
        case TraceStep.DROPPED:
            return f"  late: every window was late -> dropped ({step.value}, ts={_time(step.ts)})"
        case TraceStep.MERGED:
            return f"  merged {_windows(step.windows)} into {step.window!r}"
        case TraceStep.TIMER_REGISTERED:
            return f"  {step.domain}-time timer at {_time(step.time)} for {step.window!r}"
        case TraceStep.TIMER_FIRED:
            return f"  {step.domain}-time timer {_time(step.time)} fires for key {step.key} {step.window!r}"
        case TraceStep.EMPTY_FIRINGS:
            after = (step.count or 1) - 1
            if not after:
                return "  the window is empty: the timer fires with nothing to emit"
            timers = "timer" if after == 1 else "timers"
            return (f"  the window is empty: it and the {after:,} periodic {timers} after it fire with "
                    "nothing to emit, stepped over in one move to the timer registered above")
        case TraceStep.FIRED:
            return f"  FIRE key={step.key} {step.window!r} values={sorted(step.values)}"
        case TraceStep.PURGED:
            return f"  PURGE {step.window!r}: contents dropped"
        case TraceStep.CLEARED:
            return f"  cleanup: all state of {step.window!r} cleared"
        case TraceStep.EVICTED:
            return f"  evictor left {sorted(step.values)} in {step.window!r}"
        case TraceStep.WATERMARK_GENERATED:
            return f"  channel {step.channel}'s generator emits Watermark({_time(step.time)})"
        case TraceStep.CHANNEL_STATUS:
            state = "idle: it no longer holds the watermark back" if step.idle else "active again"
            return f"  channel {step.channel} is {state}"
        case TraceStep.WATERMARK_HELD:
            return (f"  the operator's watermark stays {_time(step.current)}: channel {step.channel} "
                    f"is behind at {_time(step.time)}")
        case TraceStep.INPUT_WATERMARK:
            why = "every channel idle: the highest" if step.channel is None else f"held by channel {step.channel}"
            return f"  the window operator's watermark -> {_time(step.time)} (the minimum over active channels, {why})"
        case TraceStep.INPUT_STATUS:
            return "  every channel is idle: the operator's input is idle" if step.idle else (
                "  a channel is active again: the operator's input is active")


def explain_case(case: Case) -> Iterator[str]:
    """The trace lines, then the resulting observation."""
    lines: list[str] = []
    observation = simulate(case, StepRecorder(lambda step: lines.append(_line(step))))
    yield from lines
    if observation.error is not None:
        yield f"error ({observation.error.kind}): {observation.error.message}"
    yield "observation:"
    yield dumps_observation(observation)

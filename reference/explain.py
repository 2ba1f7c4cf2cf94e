"""A readable, step-by-step account of what the reference does with a case, for people learning the
semantics: elements assigned to windows, timers registered and fired, watermarks, firings, late and
dropped records, state cleared."""

from __future__ import annotations

from collections.abc import Iterator

from conformance.case import Case, ProcessingTime, Record, Watermark
from conformance.observation_json import dumps_observation
from reference.implementation import simulate
from reference.javalong import LONG_MAX, LONG_MIN


def _time(t: object) -> str:
    if t == LONG_MAX:
        return "Long.MAX_VALUE"
    if t == LONG_MIN:
        return "Long.MIN_VALUE"
    return str(t)


def _event(event: object) -> str:
    if isinstance(event, Record):
        return f"record key={event.key} value={event.value} ts={_time(event.ts)}"
    if isinstance(event, Watermark):
        return f"Watermark({_time(event.timestamp)})"
    if isinstance(event, ProcessingTime):
        return f"processing time -> {event.time}"
    return repr(event)


_STEPS = {
    "assigned": lambda d: f"  assigned to {', '.join(map(repr, d['windows'])) or 'no window'}",
    "window late": lambda d: f"  {d['window']!r} is late (cleanup time <= watermark): skipped",
    "timer registered": lambda d: f"  {d['domain']}-time timer at {_time(d['time'])} for {d['window']!r}",
    "timer fired": lambda d: f"  {d['domain']}-time timer {_time(d['time'])} fires for key {d['key']} {d['window']!r}",
    "fired": lambda d: f"  FIRE key={d['key']} {d['window']!r} values={sorted(d['values'])}",
    "purged": lambda d: f"  PURGE {d['window']!r}: contents dropped",
    "evicted": lambda d: f"  evictor left {sorted(d['kept'])} in {d['window']!r}",
    "cleared": lambda d: f"  cleanup: all state of {d['window']!r} cleared",
    "merged": lambda d: f"  merged {', '.join(map(repr, d['windows']))} into {d['into']!r}",
    "side output": lambda d: f"  late: every window was late -> side output ({d['value']}, ts={_time(d['ts'])})",
    "dropped": lambda d: f"  late: every window was late -> dropped ({d['value']}, ts={_time(d['ts'])})",
    "watermark ignored": lambda d: f"  ignored: does not exceed the current watermark {_time(d['current'])}",
    "end of input": lambda d: f"[{d['at']}] end of input: Watermark(Long.MAX_VALUE)",
}


def explain_case(case: Case) -> Iterator[str]:
    """The trace lines, then the resulting observation."""
    lines: list[str] = []

    def tracer(step: str, **details: object) -> None:
        if step == "event":
            lines.append(f"[{details['at']}] {_event(details['event'])}")
        else:
            lines.append(_STEPS[step](details))

    observation = simulate(case, tracer)
    yield from lines
    if observation.error is not None:
        yield f"error ({observation.error.kind}): {observation.error.message}"
    yield "observation:"
    yield dumps_observation(observation)

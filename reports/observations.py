"""Observations and cases as short lines a person reads, shared by the HTML and Markdown reports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from window_contract.difference import time_text


def window_text(window: dict[str, Any]) -> str:
    return "GlobalWindow" if window.get("global") else f"[{window['start']}, {window['end']})"


def event_text(event: dict[str, Any]) -> str:
    """One event of a case as JSON; the channel is named when it is not the first."""
    if "record" in event:
        r = event["record"]
        return f"record {r['key']}={r['value']} @ {time_text(r['ts'])}" + _channel(r)
    if "watermark" in event:
        return f"watermark {time_text(event['watermark'])}" + _channel(event)
    if "watermark_status" in event:
        status = event["watermark_status"]
        return f"channel {status['channel']} {'idle' if status['idle'] else 'active'}"
    if "end_of_channel" in event:
        return f"end of channel {event['end_of_channel']}"
    return f"processing time {event['processing_time']}"


def _channel(fields: dict[str, Any]) -> str:
    return f" (channel {fields['channel']})" if fields.get("channel") else ""


def kind_text(kind: dict[str, Any]) -> str:
    """A kind of the case format (an assigner, trigger, evictor or generator: its tag first) as it reads:
    `count(count=3)`, `purging(inner=count(count=3))`."""
    tag, *fields = kind.items()
    return f"{tag[1]}(" + ", ".join(f"{k}={kind_text(v) if isinstance(v, dict) else v}" for k, v in fields) + ")"


def case_lines(case: dict[str, Any]) -> list[str]:
    """The case: its window specification, then its events by arrival position."""
    extras = [
        f"trigger {kind_text(case['trigger'])}" if case.get("trigger") else "",
        f"evictor {kind_text(case['evictor'])}" if case.get("evictor") else "",
        f"allowed lateness {case['allowed_lateness']}" if case.get("allowed_lateness") else "",
        "late side output" if case.get("late_side_output") else "",
        f"{case['channels']} channels" if case.get("channels", 1) != 1 else "",
        f"watermark generator {kind_text(case['watermark_generator'])}" if case.get("watermark_generator") else "",
    ]
    spec = kind_text(case["window"])
    lines = [", ".join([spec, *filter(None, extras)])]
    lines += [f"{i}: {event_text(e)}" for i, e in enumerate(case["events"])]
    if case.get("end_of_input", True):
        lines.append(f"{len(case['events'])}: end of input (watermark +inf)")
    return lines


def output_lines(observation: dict[str, Any]) -> list[tuple[int | None, str]]:
    """Each output with its position, in the order the implementation emitted it: by position, and within
    one position the watermark the operator received, then the firings and the late records as they came
    (the order of firings within one position is a rule of its own: timers fire in timestamp order)."""
    lines = [(w["at"], f"the operator's watermark becomes {time_text(w['watermark'])}")
             for w in observation.get("watermarks", ())]
    for f in observation["firings"]:
        watermark = "not observed" if f["watermark"] is None else time_text(f["watermark"])
        lines.append((f["at"], f"fire {f['key']} {window_text(f['window'])} values {f['values']} "
                               f"ts {time_text(f['timestamp'])} (watermark {watermark})"))
    for part in ("late", "dropped"):
        lines += [(r["at"], f"{part} {r['key']}={r['value']} @ {time_text(r['ts'])}") for r in observation[part]]
    return sorted(lines, key=lambda line: -1 if line[0] is None else line[0])


def side_by_side(left: dict[str, Any] | None, right: dict[str, Any] | None, events: int,
                 lines: Callable[[dict[str, Any]], list[tuple[int | None, str]]] | None = None,
                 ) -> list[tuple[str, list[str], list[str]]]:
    """Two observations of one case row by row, one row per position where either emitted something, so that
    what each emitted at the same position stands side by side: `(where, left's outputs, right's outputs)`;
    an error, or an observation missing, comes first. `lines` reads an observation's outputs (`output_lines`, or
    `reports.joins.join_output_lines` for a join's)."""
    lines = lines or output_lines

    def by_position(observation: dict[str, Any] | None) -> dict[int | None, list[str]]:
        rows: dict[int | None, list[str]] = {}
        for at, text in [] if observation is None else lines(observation):
            rows.setdefault(at, []).append(text)
        return rows

    def head(observation: dict[str, Any] | None) -> list[str]:
        if observation is None:
            return ["(not observed)"]
        error = observation.get("error")
        return [f"error ({error['kind']}): {error['message']}"] if error else []

    rows = [("", head(left), head(right))] if head(left) or head(right) else []
    lefts, rights = by_position(left), by_position(right)
    for at in sorted(set(lefts) | set(rights), key=lambda at: -1 if at is None else at):
        rows.append((_where_row(at, events), lefts.get(at, []), rights.get(at, [])))
    return rows or [("", ["(no output)"], ["(no output)"])]


def _where_row(at: int | None, events: int) -> str:
    if at is None:
        return "position-free"
    return f"{at}: end of input" if at == events else f"at {at}"


def _where(at: int | None) -> str:
    """An output's position; a position-free implementation's outputs have none."""
    return "somewhere (position-free)" if at is None else f"at {at}"


def replay_command(failure: dict[str, Any], implementation: dict[str, Any], out: str) -> str:
    """The command that reproduces a counterexample, from where the run was started."""
    path = f"{out.rstrip('/')}/{failure['case_file']}"
    return f"python -m conformance replay {path} --impl {implementation['spec']} --check"

"""The timeline picture of a counterexample, as inline SVG.

Records by arrival position (x) and event time (y); the operator's watermark as a step line; the
fired windows as horizontal bands `[start, end)` in event time; each firing marked where it happened
(x: the event during which it fired, y: its timestamp `end - 1`), the reference's as a ring just left
of the event's column and the implementation's as a cross just right of it, so that both stay visible
where they agree and a firing that comes too late or in the wrong window is visible at a glance;
records that went late (side output or dropped) are framed by a red square around their dot.
"""

from __future__ import annotations

from html import escape
from typing import Any

from reports.joins import is_join_failure
from reports.observations import window_text
from window_contract.facts import LONG_MAX, LONG_MIN

WIDTH, HEIGHT = 640, 320
LEFT, RIGHT, TOP, BOTTOM = 92, 18, 18, 58
#: The markers' sizes: a record's dot, a firing's ring and cross, the square around a late record.
DOT, MARK, LATE_BOX = 5, 8, 11
PLOT_W, PLOT_H = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
BAND_COLOURS = ("#dbeafe", "#fde68a", "#d1fae5", "#fbcfe8", "#e0e7ff", "#fed7aa")
REFERENCE, IMPLEMENTATION, RECORD, WATERMARK, LATE = "#15803d", "#c2410c", "#1e3a8a", "#7c3aed", "#dc2626"


def _finite(t: int) -> bool:
    return t not in (LONG_MAX, LONG_MIN)


class Scale:
    """Event time to a y coordinate, over the records, watermarks and fired windows of the case."""

    def __init__(self, times: list[int]) -> None:
        low, high = (min(times), max(times)) if times else (0, 1)
        pad = max((high - low) / 12, 1)
        self.low, self.high = low - pad, high + pad

    def y(self, t: int) -> float:
        if t >= self.high:
            return TOP
        if t <= self.low:
            return TOP + PLOT_H
        return TOP + PLOT_H * (self.high - t) / (self.high - self.low)


def _windows(observations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple, dict[str, Any]] = {}
    for o in observations:
        for f in o["firings"]:
            w = f["window"]
            if not w.get("global"):
                seen.setdefault((w["start"], w["end"]), w)
    return [seen[k] for k in sorted(seen)]


def _text(
    x: float, y: float, text: str, size: int = 11, anchor: str = "start", colour: str = "#334155"
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}">'
        f"{escape(text)}</text>"
    )


def timeline_svg(
    case: dict[str, Any], reference: dict[str, Any] | None, actual: dict[str, Any] | None, title: str = ""
) -> str:
    """The picture of `case` with the firings of the reference and of the implementation."""
    observations = [o for o in (reference, actual) if o is not None]
    events = case["events"]
    end = len(events) + (1 if case.get("end_of_input", True) else 0)
    step = PLOT_W / max(end, 1)

    def x(at: int) -> float:
        return LEFT + step * (at + 0.5)

    windows = _windows(observations)
    times = [e["record"]["ts"] for e in events if "record" in e and _finite(e["record"]["ts"])]
    watermarks = _operator_watermarks(case, reference)
    times += [w for _, w in watermarks if _finite(w)]
    times += [t for w in windows for t in (w["start"], w["end"]) if _finite(t)]
    scale = Scale(times)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-label="{escape(title or "timeline of the case")}" '
        'font-family="system-ui, sans-serif">',
        f"<title>{escape(title or 'timeline of the case')}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" fill="#f8fafc" stroke="#cbd5e1"/>',
    ]
    for i, w in enumerate(windows):
        top, bottom = scale.y(w["end"]), scale.y(w["start"])
        parts.append(
            f'<rect x="{LEFT}" y="{top:.1f}" width="{PLOT_W}" height="{max(bottom - top, 2):.1f}" '
            f'fill="{BAND_COLOURS[i % len(BAND_COLOURS)]}" fill-opacity="0.75"/>'
        )
        parts.append(_text(LEFT - 6, (top + bottom) / 2 + 4, window_text(w), 10, "end"))
    parts += _axes(events, end, x, step, scale)
    parts.append(_watermark_line(watermarks, len(events), case.get("end_of_input", True), x, step, scale))
    parts += _records(events, observations, x, scale, actual)
    # The two firings of one event sit side by side, not on top of each other (even where the events'
    # columns are narrower than the two markers).
    apart = MARK + 2
    for o, mark, dx in ((reference, _ring, -apart), (actual, _cross, apart)):
        for f in (o or {"firings": []})["firings"]:
            y = scale.y(f["timestamp"]) if _finite(f["timestamp"]) else TOP + MARK
            # A position-free implementation's firing has no position: drawn at the end of input.
            parts.append(mark(x(len(events) if f["at"] is None else f["at"]) + dx, y))
    parts += _legend()
    parts.append("</svg>")
    return "\n".join(parts)


def _axes(events: list[dict[str, Any]], end: int, x, step: float, scale: Scale) -> list[str]:
    parts = [
        _text(LEFT + PLOT_W / 2, HEIGHT - 32, "arrival (event position)", 11, "middle"),
        _text(14, TOP + PLOT_H / 2, "event time", 11, "middle").replace(
            "<text ", f'<text transform="rotate(-90 14 {TOP + PLOT_H / 2:.1f})" '
        ),
    ]
    every = max(1, round(end / 20))
    for at in range(0, end, every):
        label = str(at) if at < len(events) else "end"
        parts.append(_text(x(at), TOP + PLOT_H + 14, label, 10, "middle"))
    if step > 4:
        parts += [
            f'<line x1="{LEFT + step * at:.1f}" y1="{TOP}" x2="{LEFT + step * at:.1f}" '
            f'y2="{TOP + PLOT_H}" stroke="#e2e8f0"/>'
            for at in range(1, end)
        ]
    return parts


def _operator_watermarks(case: dict[str, Any], reference: dict[str, Any] | None) -> list[tuple[int, int]]:
    """`(at, watermark)` for each watermark the window operator received: those the reference observed
    where the case observes them (generated or merged from channels), else the case's own."""
    if reference is not None and "watermarks" in reference:
        return [(w["at"], w["watermark"]) for w in reference["watermarks"]]
    return [(at, e["watermark"]) for at, e in enumerate(case["events"]) if "watermark" in e]


def _watermark_line(watermarks: list[tuple[int, int]], events: int, end_of_input: bool, x, step: float,
                    scale: Scale) -> str:
    """The current watermark after each event: it only rises, and +inf at the end of a bounded input."""
    points: list[tuple[float, float]] = []
    current = None
    for at, watermark in watermarks:
        if current is None or watermark > current:
            current = watermark
            y = scale.y(current)
            left = x(at) - step / 2
            if points:
                points.append((left, points[-1][1]))
            points.append((left, y))
    if end_of_input:
        left = x(events) - step / 2
        if points:
            points.append((left, points[-1][1]))
        points.append((left, TOP))
    if not points:
        return ""
    points.append((LEFT + PLOT_W, points[-1][1]))
    path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    return (
        f'<polyline points="{path}" fill="none" stroke="{WATERMARK}" stroke-width="2" '
        'stroke-dasharray="5 3"/>'
    )


def _records(
    events: list[dict[str, Any]],
    observations: list[dict[str, Any]],
    x,
    scale: Scale,
    actual: dict[str, Any] | None,
) -> list[str]:
    late_somewhere = {
        (r["at"], r["key"], r["value"]) for o in observations for part in ("late", "dropped") for r in o[part]
    }
    parts = []
    for at, e in enumerate(events):
        if "record" not in e:
            continue
        r = e["record"]
        cx, cy = x(at), scale.y(r["ts"])
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{DOT}" fill="{RECORD}"/>')
        parts.append(_text(cx + LATE_BOX + 3, cy - 6, f"{r['key']}={r['value']} @{r['ts']}", 11))
        if {(at, r["key"], r["value"]), (None, r["key"], r["value"])} & late_somewhere:
            parts.append(_late_box(cx, cy))
    return parts


def _ring(cx: float, cy: float) -> str:
    return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{MARK}" fill="none" stroke="{REFERENCE}" stroke-width="3"/>'


def _cross(cx: float, cy: float) -> str:
    d = MARK - 1
    return (
        f'<path d="M{cx - d:.1f},{cy - d:.1f} L{cx + d:.1f},{cy + d:.1f} M{cx - d:.1f},{cy + d:.1f} '
        f'L{cx + d:.1f},{cy - d:.1f}" stroke="{IMPLEMENTATION}" stroke-width="3"/>'
    )


def _late_box(cx: float, cy: float) -> str:
    return (
        f'<rect x="{cx - LATE_BOX:.1f}" y="{cy - LATE_BOX:.1f}" width="{2 * LATE_BOX}" height="{2 * LATE_BOX}" '
        f'fill="none" stroke="{LATE}" stroke-width="2"/>'
    )


def _legend() -> list[str]:
    y = HEIGHT - 12
    return [
        f'<circle cx="{LEFT + 4}" cy="{y - 4}" r="{DOT}" fill="{RECORD}"/>',
        _text(LEFT + 14, y, "record"),
        f'<line x1="{LEFT + 62}" y1="{y - 4}" x2="{LEFT + 86}" y2="{y - 4}" stroke="{WATERMARK}" '
        'stroke-width="2" stroke-dasharray="5 3"/>',
        _text(LEFT + 90, y, "watermark"),
        _ring(LEFT + 164, y - 4),
        _text(LEFT + 176, y, "reference fires"),
        _cross(LEFT + 278, y - 4),
        _text(LEFT + 290, y, "implementation fires"),
        f'<circle cx="{LEFT + 424}" cy="{y - 4}" r="{DOT}" fill="{RECORD}"/>',
        _late_box(LEFT + 424, y - 4),
        _text(LEFT + 440, y, "late record (either)"),
    ]


def timeline_files(document: dict[str, Any]) -> dict[str, str]:
    """`timelines/<counterexample>.svg` for each saved counterexample, for the Markdown report."""
    files = {}
    for impl in document["implementations"]:
        for prop in impl["properties"]:
            for failure in prop["failures"]:
                if failure.get("case_file") and not is_join_failure(failure):
                    files[timeline_path(failure)] = timeline_svg(
                        failure["case"],
                        failure.get("reference"),
                        failure["actual"],
                        f"{prop['property']} on {impl['name']}",
                    )
    return files


def timeline_path(failure: dict[str, Any]) -> str:
    return "timelines/" + failure["case_file"].rsplit("/", 1)[-1].removesuffix(".json") + ".svg"

"""A hand-written event-time windowing, of the kind people write before they read Flink's source.

It is a plug-in for the conformance suite: an object with a `name`, the `features` it supports and
`run(cases) -> observations`. Run the suite against it with

    python -m conformance run --impl examples.naive_windows:NaiveWindows

It looks right and passes a quick test with a few records, but the suite finds that it

- fires a window when the watermark reaches its end (`watermark >= end`) instead of its last
  timestamp (`end - 1`, Flink's `maxTimestamp()`), so a window fires one watermark too late;
- drops a record as late when its timestamp is at or below the watermark, where Flink drops it only
  when every window it belongs to is already past its cleanup time (`maxTimestamp <= watermark`);
- rejects bad window sizes with its own words instead of Flink's messages.

It declares only what it means to support: tumbling and sliding event-time windows, with offsets and
negative timestamps. Cases with lateness, side outputs, triggers or evictors are never sent to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from window_contract.case import Case, Record, Sliding, Watermark
from window_contract.observation import Firing, LateRecord, Observation, TimeWindow

END_OF_INPUT = 2**63 - 1
#: Like Flink, refuse specifications that put an element into millions of windows.
MAX_WINDOWS = 10_000_000


class NaiveWindows:
    name = "naive-windows"
    features = frozenset({"assigner.tumbling", "assigner.sliding", "offset", "negative_timestamps"})

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return [run_case(case) for case in cases]


def window_starts(ts: int, size: int, slide: int, offset: int) -> range:
    """The starts of the windows that hold `ts`, latest first (Python's `%` floors, as it should)."""
    last = ts - (ts - offset) % slide
    return range(last, ts - size, -slide)


def run_case(case: Case) -> Observation:
    spec = case.window
    size, offset = spec.size, spec.offset
    slide = spec.slide if isinstance(spec, Sliding) else size
    if size <= 0 or slide <= 0 or size // slide > MAX_WINDOWS:
        return Observation.invalid_spec("window size and slide must be positive, and not too many windows")
    panes: dict[tuple[str, int], list[int]] = {}
    firings: list[Firing] = []
    dropped: list[LateRecord] = []
    watermark = -(2**63)

    def fire_ready(at: int) -> None:
        for (key, start), values in sorted(panes.items()):
            if watermark >= start + size:
                firings.append(
                    Firing(at, key, TimeWindow(start, start + size), start + size - 1, tuple(values), watermark)
                )
                del panes[(key, start)]

    for at, event in enumerate(case.events):
        if isinstance(event, Record):
            if event.ts <= watermark:
                dropped.append(LateRecord(at, event.key, event.value, event.ts))
                continue
            for start in window_starts(event.ts, size, slide, offset):
                panes.setdefault((event.key, start), []).append(event.value)
        elif isinstance(event, Watermark) and event.timestamp > watermark:
            watermark = event.timestamp
            fire_ready(at)
    if case.end_of_input:
        watermark = END_OF_INPUT
        fire_ready(len(case.events))
    return Observation(tuple(firings), dropped=tuple(dropped))

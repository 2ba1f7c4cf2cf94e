"""What the window operator emits, as the contract's observation (`window-observation/1`).

The `Collector` is the operator's `WindowOutput` in a simulation: it stamps each output with the position
of the event being processed, and turns them into an `Observation` once, at the end.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from reference import windows as model_windows
from reference.errors import JobFailure
from window_contract.facts import OUTPUT_LIMIT, TOO_MANY_OUTPUTS
from window_contract.observation import Error, Firing, GlobalWindow, InputWatermark, LateRecord, Observation, TimeWindow


@dataclass
class Collector:
    """Collects the operator's output, stamped with the position of the event being processed.

    Outputs are kept as plain tuples and turned into the contract's types once, at the end. A key's
    output past `OUTPUT_LIMIT` stops the case (`TOO_MANY_OUTPUTS`).
    """

    at: int = 0
    firings: list[tuple] = field(default_factory=list)
    late: list[tuple] = field(default_factory=list)
    dropped: list[tuple] = field(default_factory=list)
    #: `(at, watermark)` of every watermark the operator received, or None when the case does not observe them.
    watermarks: list[tuple] | None = None
    #: How many outputs each key has emitted.
    outputs: Counter = field(default_factory=Counter)

    def emit(self, key, window, values, watermark):
        self.count(key)
        self.firings.append((self.at, key, window, values, watermark))

    def side_output(self, key, value, timestamp):
        self.count(key)
        self.late.append((self.at, key, value, timestamp))

    def drop(self, key, value, timestamp):
        self.count(key)
        self.dropped.append((self.at, key, value, timestamp))

    def count(self, key) -> None:
        """One more output of `key`: past `OUTPUT_LIMIT` the job stops, this output not emitted."""
        if self.outputs[key] >= OUTPUT_LIMIT:
            raise JobFailure(TOO_MANY_OUTPUTS, "contract.too_many_outputs")
        self.outputs[key] += 1

    def remaining(self, key) -> int:
        return OUTPUT_LIMIT - self.outputs[key]

    def input_watermark(self, watermark):
        if self.watermarks is not None:
            self.watermarks.append((self.at, watermark))

    def observation(self, error: Error | None = None) -> Observation:
        windows: dict[model_windows.Window, tuple[TimeWindow | GlobalWindow, int]] = {}
        firings: list[Firing] = []
        previous = None
        for output in self.firings:
            if output == previous:  # a window that fires again, unchanged, in one event: converted once
                firings.append(firings[-1])
                continue
            at, key, window, values, wm = previous = output
            fired = windows.get(window)
            if fired is None:  # one window fires for many keys: converted once
                fired = windows[window] = (_fired_window(window), window.max_timestamp())
            firings.append(Firing(at, key, fired[0], fired[1], tuple(values), wm))
        watermarks = None if self.watermarks is None else tuple(InputWatermark(*w) for w in self.watermarks)
        return Observation(tuple(firings), tuple(LateRecord(*r) for r in self.late),
                           tuple(LateRecord(*r) for r in self.dropped), error, watermarks)


def _fired_window(window: model_windows.Window) -> TimeWindow | GlobalWindow:
    if isinstance(window, model_windows.TimeWindow):
        return TimeWindow(window.start, window.end)
    return GlobalWindow()

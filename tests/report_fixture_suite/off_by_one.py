"""The starter plug-in (`examples/starter_windows.py`) with one off-by-one bug: a window's last timestamp is taken to
be its end, not `end - 1`, so each window fires one watermark late and with the wrong timestamp. The suite's run
of it (profile `dev`) must end within a few minutes with one minimal case (issue 45)."""

from __future__ import annotations

from examples.starter_windows import Operator, StarterWindows, run_case
from window_contract.observation import TimeWindow


class LateByOne(Operator):
    def max_timestamp(self, window: TimeWindow) -> int:
        return window.end


class OffByOneWindows(StarterWindows):
    name = "off-by-one-windows"

    def run(self, cases):
        return [run_case(case, LateByOne(case.allowed_lateness, case.late_side_output)) for case in cases]

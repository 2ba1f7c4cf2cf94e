"""`IndexedCombinedWatermarkStatus`: how a two-input operator combines its inputs' watermarks and statuses
(`org.apache.flink.api.common.eventtime`, as `AbstractStreamOperator.processWatermark1/2` and
`processWatermarkStatus1/2` use it in Flink 2.3).

Each input (behind its own `StatusWatermarkValve`) is a `PartialWatermark`: its highest watermark (starting at
`Long.MIN_VALUE`) and whether it is idle. `CombinedWatermarkStatus.updateCombinedWatermark` computes the minimum
over the inputs that are not idle, or, when every input is idle, the maximum over all of them, and takes it only
when it is higher than the combined watermark so far: the operator's watermark never goes back. A watermark on an
input marks it active again (`PartialWatermark.setWatermark`). Unlike the valve, nothing waits for a re-activated
input to catch up: the combined value just never goes back.
"""

from __future__ import annotations

from dataclasses import dataclass

from reference.javalong import LONG_MAX, LONG_MIN


@dataclass
class PartialWatermark:
    """`CombinedWatermarkStatus.PartialWatermark`: one input's highest watermark and its idleness."""

    watermark: int = LONG_MIN
    idle: bool = False

    def set_watermark(self, watermark: int) -> None:
        self.idle = False
        self.watermark = max(self.watermark, watermark)


class IndexedCombinedWatermarkStatus:
    """`IndexedCombinedWatermarkStatus.forInputsCount(n)`: `update_watermark` and `update_status` tell whether the
    combined watermark rose (the operator then processes `combined_watermark`)."""

    def __init__(self, inputs: int) -> None:
        self.partial_watermarks = [PartialWatermark() for _ in range(inputs)]
        self.combined_watermark = LONG_MIN
        self.idle = False

    def update_watermark(self, index: int, timestamp: int) -> bool:
        self.partial_watermarks[index].set_watermark(timestamp)
        return self.update_combined_watermark()

    def update_status(self, index: int, idle: bool) -> bool:
        self.partial_watermarks[index].idle = idle
        return self.update_combined_watermark()

    def update_combined_watermark(self) -> bool:
        """`CombinedWatermarkStatus.updateCombinedWatermark`."""
        lowest, highest, all_idle = LONG_MAX, LONG_MIN, True
        for partial in self.partial_watermarks:
            highest = max(highest, partial.watermark)
            if not partial.idle:
                lowest, all_idle = min(lowest, partial.watermark), False
        self.idle = all_idle
        combined = highest if all_idle else lowest
        if combined > self.combined_watermark:
            self.combined_watermark = combined
            return True
        return False

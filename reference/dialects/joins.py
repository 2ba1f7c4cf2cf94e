"""The joins of two streams: how a two-input operator combines its inputs, and what its join does.

A join's model (`reference.joins`) takes the dialect: a window join or coGroup runs the window operator over the
union of its inputs, in the dialect's window rules (every other area's switches); the two-input operators (the
interval join's `IntervalJoinOperator`, Flink SQL's `WindowJoinOperator` and `TimeIntervalJoin`) take the switches
here, each the hook of one rule:

- `combined_watermark_status`: the class that combines the two inputs' watermarks and statuses
  (`IndexedCombinedWatermarkStatus`, `reference.watermarks.combined`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reference.watermarks.combined import IndexedCombinedWatermarkStatus


@dataclass(frozen=True)
class JoinSwitches:
    """The switches of the two-input operators of the joins; every default is Flink's."""

    #: When every input of a two-input operator is idle, `CombinedWatermarkStatus.updateCombinedWatermark` takes the
    #: highest of the inputs' watermarks ("highest", Flink 2.x), so the operator's watermark rises to it; "kept":
    #: it takes nothing while every input is idle, and the watermark stays where the active inputs left it (the
    #: condition `!allIdle && minimum > combinedWatermark`, as Flink 1.x writes it).
    watermark_when_all_inputs_idle: Literal["highest", "kept"] = "highest"

    def combined_watermark_status(self, inputs: int) -> IndexedCombinedWatermarkStatus:
        """The combination of `inputs` inputs' watermarks that a two-input operator of this dialect keeps."""
        if self.watermark_when_all_inputs_idle == "kept":
            return KeptWhenAllIdle(inputs)
        return IndexedCombinedWatermarkStatus(inputs)


class KeptWhenAllIdle(IndexedCombinedWatermarkStatus):
    """`watermark_when_all_inputs_idle="kept"`: the minimum over the active inputs, and nothing when none is."""

    def update_combined_watermark(self) -> bool:
        active = [partial.watermark for partial in self.partial_watermarks if not partial.idle]
        self.idle = not active
        if active and min(active) > self.combined_watermark:
            self.combined_watermark = min(active)
            return True
        return False

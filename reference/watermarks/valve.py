"""`StatusWatermarkValve`: how the watermarks and statuses of a task's input channels become the one
watermark its operator sees (`flink-runtime`, `streaming/runtime/watermarkstatus/`), as in Flink 2.3.

Per channel the valve keeps the highest watermark it took, whether the channel is active, and whether
it is *aligned* (counted in the minimum). Derivation of what it emits:

- A watermark counts only when the valve as a whole and its channel are active and it is higher than
  the channel's last one. An aligned channel's new watermark may raise the minimum; an unaligned
  channel becomes aligned once its watermark reaches the last output.
- The output is the minimum over the aligned channels, emitted only when it is higher than the last
  output: the operator's watermark never goes back.
- A channel going idle leaves the aligned set. If it held the minimum (its watermark equals the last
  output), the remaining aligned channels may now let a higher minimum through. If every channel is now
  idle, the valve goes idle, and first, when the channel that went idle last held the output, flushes
  the maximum over all channels (Flink 2.3 flushes only then; later versions always do).
- A channel becoming active again is aligned at once when its watermark is not behind the last output;
  otherwise it waits until it catches up. A valve that was idle becomes active with it.

A channel is an index (`SubpartitionStatus` per input channel: one subpartition each here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from reference.javalong import LONG_MIN


class ValveOutput(Protocol):
    """The part of `PushingAsyncDataInput.DataOutput` the valve calls."""

    def emit_watermark(self, watermark: int) -> None: ...
    def emit_watermark_status(self, idle: bool) -> None: ...


@dataclass
class SubpartitionStatus:
    """`StatusWatermarkValve.SubpartitionStatus`: one channel's watermark, status and alignment."""

    watermark: int = LONG_MIN
    active: bool = True
    aligned: bool = True


class StatusWatermarkValve:
    """`StatusWatermarkValve(numInputChannels)`; calls `output` only when its watermark or status changes."""

    def __init__(self, channels: int, output: ValveOutput) -> None:
        self.statuses = [SubpartitionStatus() for _ in range(channels)]
        self.output = output
        self.last_output_watermark = LONG_MIN
        self.last_output_active = True

    def input_watermark(self, watermark: int, channel: int) -> None:
        """`inputWatermark`: ignored unless the valve and the channel are active and it increases."""
        status = self.statuses[channel]
        if not (self.last_output_active and status.active) or watermark <= status.watermark:
            return
        status.watermark = watermark
        if not status.aligned and watermark >= self.last_output_watermark:
            status.aligned = True  # a previously unaligned channel has caught up
        self.find_and_output_new_min_watermark_across_aligned_channels()

    def input_watermark_status(self, idle: bool, channel: int) -> None:
        """`inputWatermarkStatus`: only a change of the channel's status does anything."""
        status = self.statuses[channel]
        if idle and status.active:
            status.active = status.aligned = False
            if not any(s.active for s in self.statuses):
                # every channel idle: none will advance, flush (2.3: only when this one held the output)
                if status.watermark == self.last_output_watermark:
                    self.find_and_output_max_watermark_across_all_channels()
                self.last_output_active = False
                self.output.emit_watermark_status(True)
            elif status.watermark == self.last_output_watermark:
                # it may have held the minimum: the remaining aligned channels may let a higher one out
                self.find_and_output_new_min_watermark_across_aligned_channels()
        elif not idle and not status.active:
            status.active = True
            if status.watermark >= self.last_output_watermark:
                status.aligned = True
            if not self.last_output_active:
                self.last_output_active = True
                self.output.emit_watermark_status(False)

    def holding_channel(self) -> int | None:
        """The aligned channel whose watermark is the minimum (the lowest index among equals), the one
        that holds the output back; `None` when no channel is aligned."""
        aligned = [(s.watermark, i) for i, s in enumerate(self.statuses) if s.aligned]
        return min(aligned)[1] if aligned else None

    def find_and_output_new_min_watermark_across_aligned_channels(self) -> None:
        aligned = [s.watermark for s in self.statuses if s.aligned]
        if aligned and min(aligned) > self.last_output_watermark:
            self.last_output_watermark = min(aligned)
            self.output.emit_watermark(self.last_output_watermark)

    def find_and_output_max_watermark_across_all_channels(self) -> None:
        highest = max(s.watermark for s in self.statuses)
        if highest > self.last_output_watermark:
            self.last_output_watermark = highest
            self.output.emit_watermark(highest)

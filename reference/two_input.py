"""What every two-input operator of the joins does with its inputs' watermarks: `AbstractStreamOperator`'s
`processWatermark1/2` and `processWatermarkStatus1/2` combine them (`IndexedCombinedWatermarkStatus`), and a rise of
the combined watermark advances the operator's event time, firing its timers in time order."""

from __future__ import annotations

from collections.abc import Callable

from reference.dialects import FLINK, Dialect
from reference.timers import InternalTimer, InternalTimerService


class TwoInputStreamOperator:
    """The watermark half of a two-input operator: `received(watermark)` hears each combined watermark before its
    timers fire; a subclass's `on_event_time` fires them. The `dialect` (`reference.dialects.joins`) chooses how the
    two inputs' watermarks combine, and where the operator's watermark starts."""

    def __init__(self, received: Callable[[int], None], dialect: Dialect = FLINK) -> None:
        self.received = received
        self.dialect = dialect
        self.timers = InternalTimerService()
        self.combined_watermark = dialect.combined_watermark_status(2)
        self.timers.current_watermark = self.combined_watermark.combined_watermark

    def process_watermark(self, index: int, watermark: int) -> None:
        """`processWatermark1/2`: the combined watermark, when it rises, advances time."""
        if self.combined_watermark.update_watermark(index, watermark):
            self.advance_watermark(self.combined_watermark.combined_watermark)

    def process_watermark_status(self, index: int, idle: bool) -> None:
        """`processWatermarkStatus1/2`: an input going idle may let the combined watermark rise."""
        if self.combined_watermark.update_status(index, idle):
            self.advance_watermark(self.combined_watermark.combined_watermark)

    def advance_watermark(self, watermark: int) -> None:
        self.received(watermark)
        self.timers.advance_watermark(watermark, self.on_event_time)

    def on_event_time(self, timer: InternalTimer) -> None:
        raise NotImplementedError

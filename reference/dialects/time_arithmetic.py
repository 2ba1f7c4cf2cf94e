"""Time arithmetic: Java's `long` and its truncating remainder, or Python's integers.

Flink computes times in Java `long`s (`reference.javalong`): `maxTimestamp + allowedLateness` saturates as the
cleanup time and wraps elsewhere, a window's end wraps past `Long.MAX_VALUE`, and `%` truncates towards 0. An
engine written in Python (PyFlink's Python window operator) computes in unbounded integers with a floor `%`: the
operator (`UnboundedArithmetic`), the assigners (`UnboundedTumblingWindows`, and
`reference.dialects.job_checks.DialectSlidingWindows`) and `ContinuousEventTimeTrigger`
(`FloorAlignedContinuousEventTimeTrigger`) in its arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reference.assigners import TumblingWindows, element_time
from reference.errors import JobFailure
from reference.triggers import ContinuousEventTimeTrigger
from reference.windows import TimeWindow
from window_contract import case
from window_contract.facts import LONG_MAX


@dataclass(frozen=True)
class ArithmeticSwitches:
    """The switches of time arithmetic; every default is Flink's."""

    #: Java `long`: `maxTimestamp + allowedLateness` saturates (the cleanup time) or wraps (an element's
    #: lateness, a merge's check), and a sliding assigner's `start -= slide` wraps past `Long.MIN_VALUE`;
    #: "unbounded": integers that never overflow, in the operator and the assigners (PyFlink's Python classes).
    long_arithmetic: Literal["java", "unbounded"] = "java"
    #: `ContinuousEventTimeTrigger` aligns its first fire time with Java's truncating `%`; "floor": with a
    #: floor modulo (negative timestamps align down, an interval of 0 fails in Python's words).
    remainder: Literal["truncating", "floor"] = "truncating"

    @property
    def models(self) -> dict[type, type]:
        """The trigger classes this dialect swaps in, by the kind of the format they model."""
        return {case.ContinuousEventTimeTrigger: FloorAlignedContinuousEventTimeTrigger} \
            if self.remainder == "floor" else {}


class UnboundedArithmetic:
    """`long_arithmetic="unbounded"`: `time + allowedLateness` never wraps and the cleanup time never
    saturates (a window cleaned up past `Long.MAX_VALUE` never is)."""

    def with_lateness(self, time):
        return time + self.allowed_lateness

    def cleanup_time(self, window):
        max_timestamp = window.max_timestamp()
        return self.with_lateness(max_timestamp) if self.is_event_time else max_timestamp

    def register_cleanup_timer(self, cleanup_time):
        if cleanup_time < LONG_MAX:
            super().register_cleanup_timer(cleanup_time)

    def delete_cleanup_timer(self, window):
        if self.cleanup_time(window) < LONG_MAX:
            super().delete_cleanup_timer(window)


class UnboundedTumblingWindows(TumblingWindows):
    """`TumblingEventTimeWindows` in Python integers (`long_arithmetic="unbounded"`): PyFlink's `assign_windows`,
    `TimeWindow(start, start + size)` with `start = timestamp - (timestamp - offset + size) % size` (Python's floor
    `%`), whose end never wraps past `Long.MAX_VALUE`."""

    def assign_windows(self, timestamp, current_processing_time, value=0):
        time = element_time(self, timestamp, current_processing_time)
        start = time - (time - self.offset) % self.size
        return [TimeWindow(start, start + self.size)]


class FloorAlignedContinuousEventTimeTrigger(ContinuousEventTimeTrigger):
    """`remainder="floor"`: the first fire time is `time - time % interval` with a floor modulo."""

    def first_fire_from(self, time: int) -> int:
        try:
            return time - time % self.interval
        except ZeroDivisionError as e:
            raise JobFailure(f"ZeroDivisionError: {e}", "arithmetic") from None

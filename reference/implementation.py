"""The reference as an `Implementation`: each case driven through a modelled `WindowOperator`.

The driver plays the part of Flink's input: a watermark that does not increase is ignored (as the
`StatusWatermarkValve` ignores it), a `processing_time` event moves the clock (firing every timer it has
passed), and a bounded input ends with
`Watermark(Long.MAX_VALUE)`. Between the case's channels and the operator stand the channels' watermark
generators and the `StatusWatermarkValve` (`reference/watermarks/`); every watermark the operator
receives is recorded when the case observes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from reference import windows as model_windows
from reference.errors import InvalidSpec, JobFailure
from reference.javalong import LONG_MAX
from reference.job import build_operator
from reference.operator import WindowOperator
from reference.trace import NO_TRACE, TraceListener
from reference.watermarks.inputs import OperatorInputs, check_watermark_strategy
from reference.windows import (
    WindowStart,
    get_window_start_with_offset,
    get_window_start_with_offset_flink_1_12,
)
from window_contract.case import Case, EndOfChannel, ProcessingTime, Record, Watermark, WatermarkStatus
from window_contract.features import ALL_FEATURES
from window_contract.observation import Error, Firing, GlobalWindow, InputWatermark, LateRecord, Observation, TimeWindow


@dataclass
class Collector:
    """Collects the operator's output, stamped with the position of the event being processed.

    Outputs are kept as plain tuples and turned into the contract's types once, at the end.
    """

    at: int = 0
    firings: list[tuple] = field(default_factory=list)
    late: list[tuple] = field(default_factory=list)
    dropped: list[tuple] = field(default_factory=list)
    #: `(at, watermark)` of every watermark the operator received, or None when the case does not observe them.
    watermarks: list[tuple] | None = None

    def emit(self, key, window, values, watermark):
        self.firings.append((self.at, key, window, values, watermark))

    def side_output(self, key, value, timestamp):
        self.late.append((self.at, key, value, timestamp))

    def drop(self, key, value, timestamp):
        self.dropped.append((self.at, key, value, timestamp))

    def input_watermark(self, watermark):
        if self.watermarks is not None:
            self.watermarks.append((self.at, watermark))

    def observation(self, error: Error | None = None) -> Observation:
        windows: dict[model_windows.Window, tuple[TimeWindow | GlobalWindow, int]] = {}
        firings = []
        for at, key, window, values, wm in self.firings:
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


def drive(case: Case, operator: WindowOperator, inputs: OperatorInputs, collector: Collector,
          listener: TraceListener = NO_TRACE) -> None:
    """Feed the case's events through its channels' inputs to the operator, in arrival order."""
    for at, event in enumerate(case.events):
        collector.at = at
        listener.event(at, event)
        event_type = type(event)
        if event_type is Record:
            timestamp = inputs.timestamp(event)
            operator.process_element(event.key, event.value, timestamp)
            inputs.after_element(event, timestamp)
        elif event_type is Watermark:
            inputs.process_watermark(event)
        elif event_type is ProcessingTime:
            # The clock never goes back, and the timers it has passed fire. The channels' periodic timers
            # are other tasks' in Flink; the case fixes one order: the operator's own timers first, then
            # the watermarks the channels emit.
            now = max(event.time, operator.timers.current_processing_time)
            operator.advance_processing_time(now)
            inputs.advance_processing_time(now)
        elif event_type is WatermarkStatus:
            inputs.process_watermark_status(event)
        elif event_type is EndOfChannel:
            inputs.end_channel(event.channel)
        # A timer registered for a time already past has delay 0: its mail runs before the next input.
        operator.advance_processing_time(operator.timers.current_processing_time)
    collector.at = len(case.events)
    if case.end_of_input and inputs.open_channels and inputs.valve.last_output_watermark < LONG_MAX:
        listener.end_of_input(collector.at)
        inputs.end_of_input()


def simulate(case: Case, listener: TraceListener = NO_TRACE,
             window_start: WindowStart = get_window_start_with_offset) -> Observation:
    """The observation Flink gives for `case`; `listener` is told of each step."""
    collector = Collector(watermarks=[] if case.observes_watermarks else None)
    try:
        if case.watermark_generator is not None:
            check_watermark_strategy(case.watermark_generator)
        operator = build_operator(case, collector, listener, window_start)
        inputs = OperatorInputs(case, _receiving(operator, collector), listener)
    except InvalidSpec as e:
        return collector.observation(Error("invalid_spec", str(e)))
    try:
        drive(case, operator, inputs, collector, listener)
    except (JobFailure, ArithmeticError) as e:
        return collector.observation(Error("runtime", str(e)))
    return collector.observation()


def _receiving(operator: WindowOperator, collector: Collector):
    """The operator's `processWatermark`, recording each watermark it receives."""
    def process_watermark(watermark: int) -> None:
        collector.input_watermark(watermark)
        operator.process_watermark(watermark)
    return process_watermark


class ReferenceImplementation:
    """The executable reference model of Flink 2.x window semantics."""

    name = "reference"
    features = ALL_FEATURES

    def __init__(self, window_start: WindowStart = get_window_start_with_offset, name: str = "reference"):
        self.window_start, self.name = window_start, name

    def run(self, cases: Sequence[Case]) -> list[Observation]:
        return [simulate(case, window_start=self.window_start) for case in cases]


def flink_1_12_variant() -> ReferenceImplementation:
    """The reference with the window-start formula of Flink up to 1.12 (seed document `003`),
    wrong for timestamps more than one window below the offset."""
    return ReferenceImplementation(get_window_start_with_offset_flink_1_12, "reference-flink-1.12")

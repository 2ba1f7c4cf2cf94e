"""A case driven through a modelled `WindowOperator`: the observation Flink gives for it.

The driver plays the part of Flink's input: a watermark that does not increase is ignored (as the
`StatusWatermarkValve` ignores it), a `processing_time` event moves the clock (firing every timer it has
passed), and a bounded input ends with
`Watermark(Long.MAX_VALUE)`. Between the case's channels and the operator stand the channels' watermark
generators and the `StatusWatermarkValve` (`reference/watermarks/`); every watermark the operator
receives is recorded when the case observes them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reference.dialects import FLINK, Dialect
from reference.errors import InvalidSpec, JobFailure
from reference.javalong import LONG_MAX
from reference.job import build_operator
from reference.operator import WindowOperator
from reference.output import Collector
from reference.trace import NO_TRACE, TraceListener
from reference.watermarks.generators import RecordTimestampAssigner, create
from reference.watermarks.inputs import OperatorInputs, check_watermark_strategy
from reference.windows import (
    WindowStart,
    get_window_start_with_offset,
)
from window_contract.case import Case, EndOfChannel, Global, ProcessingTime, Record, Watermark, WatermarkStatus
from window_contract.observation import Error, Observation


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
             window_start: WindowStart = get_window_start_with_offset, dialect: Dialect = FLINK) -> Observation:
    """The observation Flink gives for `case`; `listener` is told of each step. With another `dialect`
    (`reference.dialects`), what an engine that changes some of Flink's rules gives."""
    collector = dialect.collector(watermarks=[] if case.observes_watermarks else None)

    def parts() -> tuple[WindowOperator, OperatorInputs]:
        """The window operator and the inputs in front of it (`Dialect.parts` may ask for more than one)."""
        operator = build_operator(case, collector, listener, window_start, dialect)
        receive = _receiving(dialect.deciding(operator.process_watermark), collector)
        return operator, dialect.inputs(case, dialect.received(receive, case), listener)

    try:
        if case.watermark_generator is not None:
            dialect.check_generator(case.watermark_generator)
        operator, inputs = dialect.parts(case, parts)
    except InvalidSpec as e:
        rules = dict.fromkeys(e.rules + broken_rules(case, window_start, dialect))
        return collector.observation(Error("invalid_spec", str(e), tuple(rules)))
    try:
        drive(case, operator, inputs, collector, listener)
    except JobFailure as e:
        return collector.observation(Error("runtime", str(e), e.rules))
    except ArithmeticError as e:
        return collector.observation(Error("runtime", str(e), ("arithmetic",)))
    return collector.observation()


def broken_rules(case: Case, window_start: WindowStart = get_window_start_with_offset,
                 dialect: Dialect = FLINK) -> tuple[str, ...]:
    """Every precondition of Flink's that the job breaks (`window_contract.rules`), each checked by the model's own
    constructors: Flink stops at the first it meets, and its message is that one's, but an engine that checks in
    another order rejects the same job for another of them. The watermark strategy, the assigner with the trigger
    (a lateness of 0 beside them), the allowed lateness alone (on the global window), the generator's bound."""
    generator = case.watermark_generator
    checks: list[Callable[[], object]] = [
        lambda: build_operator(replace(case, allowed_lateness=0), dialect.collector(watermarks=None), NO_TRACE,
                               window_start, dialect),
        lambda: build_operator(replace(case, window=Global(), trigger=None, evictor=None),
                               dialect.collector(watermarks=None), NO_TRACE, window_start, dialect)]
    if generator is not None:
        checks += [lambda: check_watermark_strategy(generator),
                   lambda: create(generator, RecordTimestampAssigner(), lambda: 0)]
    rules: list[str] = []
    for check in checks:
        try:
            check()
        except InvalidSpec as e:
            rules += e.rules
    return tuple(rules)


def _receiving(process_watermark, collector: Collector):
    """The operator's `processWatermark`, recording each watermark it receives."""
    def receiving(watermark: int) -> None:
        collector.input_watermark(watermark)
        process_watermark(watermark)
    return receiving

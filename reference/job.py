"""Building the window operator for a case, as `WindowedStream` and `WindowOperatorBuilder` do.

The explicit trigger replaces the assigner's default one; `countWindow(size[, slide])` is
`GlobalWindows` with `PurgingTrigger(CountTrigger(size))`, or `CountTrigger(slide)` and
`CountEvictor(size)`, and a case's `.trigger(...)` / `.evictor(...)` after it replaces only its own
part, as `WindowOperatorBuilder.trigger` / `.evictor` do. Flink's job-time rejections raise
`InvalidSpec` with Flink's message.
"""

from __future__ import annotations

from reference import evictors, triggers
from reference.assigners import WindowAssigner
from reference.dialects import FLINK, Dialect
from reference.emit_strategy import WindowEmitStrategy
from reference.errors import InvalidSpec
from reference.kinds import build
from reference.operator import EvictingWindowOperator, UpdatingWindowOperator, WindowOperator, WindowOutput
from reference.trace import NO_TRACE, TraceListener
from reference.windows import WindowStart, get_window_start_with_offset
from window_contract import case as spec
from window_contract.facts import MERGING_TRIGGER_MESSAGE, NEGATIVE_LATENESS_MESSAGE


def build_assigner(window: spec.WindowSpec, window_start: WindowStart, models: dict | None = None) -> WindowAssigner:
    """The assigner of `window`; `countWindow` is `GlobalWindows` (its trigger and evictor are set by
    `build_operator`). `models`: a dialect's assigner classes (`Dialect.assigners`)."""
    try:
        return build(window, models, window_start=window_start)
    except ArithmeticError as e:  # e.g. `size / slide` with slide 0, reachable with offset Long.MIN_VALUE
        raise InvalidSpec(str(e), "arithmetic") from None


def build_operator(case: spec.Case, output: WindowOutput, listener: TraceListener = NO_TRACE,
                   window_start: WindowStart = get_window_start_with_offset,
                   dialect: Dialect = FLINK) -> WindowOperator:
    """The operator Flink would run for `case` (with the rules `dialect` switches, `reference.dialects`);
    raises `InvalidSpec` where Flink rejects the job."""
    emit = None
    if isinstance(case.trigger, spec.AfterEndOfWindowTrigger):
        # Flink SQL's planner: the parser's intervals, then WindowEmitStrategy, before the window's assigner
        dialect.check_intervals(case.window)
        emit = WindowEmitStrategy.of(case)
    assigner = build_assigner(case.window, window_start, dialect.assigners(case))
    trigger, evictor = assigner.default_trigger(), None
    match case.window:  # KeyedStream.countWindow sets these before the case's .trigger / .evictor
        case spec.Count(size, None):
            trigger = triggers.PurgingTrigger(triggers.CountTrigger(size))
        case spec.Count(size, slide):
            trigger, evictor = triggers.CountTrigger(slide), evictors.CountEvictor(size, False)
    lateness, operator = case.allowed_lateness, WindowOperator
    if emit is not None:  # Flink SQL's emit strategy, its lateness its own
        trigger, lateness = emit.trigger(), emit.allow_lateness
        operator = UpdatingWindowOperator if emit.produce_updates else WindowOperator
    elif case.trigger is not None:  # WindowedStream.trigger replaces the trigger, keeps the evictor
        trigger = build(case.trigger, dialect.models)
    if case.evictor is not None:  # WindowedStream.evictor replaces the evictor, keeps the trigger
        evictor = build(case.evictor, dialect.models)
    if assigner.is_merging and not trigger.can_merge:
        raise InvalidSpec(MERGING_TRIGGER_MESSAGE, "trigger.merging")
    if lateness < 0:  # WindowOperatorBuilder.allowedLateness, after the assigner and trigger
        raise InvalidSpec(NEGATIVE_LATENESS_MESSAGE, "lateness.negative")
    if evictor is not None:
        return dialect.operator_class(EvictingWindowOperator)(assigner, trigger, evictor, lateness,
                                                              case.late_side_output, output, listener)
    return dialect.operator_class(operator)(assigner, trigger, lateness, case.late_side_output, output, listener)

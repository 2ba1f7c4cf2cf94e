"""What makes an engine reject or fail a join of two streams: each cause checked on the join case, by the model.

A join divergence's explainer (`conformance.divergences`: `rejects`, `fails`) names a cause as a window divergence's
does (`conformance.causes`), and explains a case only where it holds. A list names one of `JOIN_CAUSES`, or one of
the window causes (`conformance.causes.CAUSES`): a window join or coGroup is the window operator over the union of
its inputs (`window_contract.join_union.union_case`), and a window cause holds on such a join where it holds on its
union's case; it never holds on an interval join or a SQL join, which run no window operator.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.causes import Cause
from reference.dialects import Dialect
from window_contract.join_case import IntervalJoin, JoinCase, WindowJoin
from window_contract.join_union import union_case

#: A cause on a join case: its words where it holds on the case (with the engine's dialect), else None.
JoinCause = Callable[[JoinCase, Dialect], str | None]


def on_union(cause: Cause) -> JoinCause:
    """The window cause `cause`, on the union's case of a window join or coGroup."""
    def holds(case: JoinCase, dialect: Dialect) -> str | None:
        return cause(union_case(case), dialect) if isinstance(case.join, WindowJoin) else None
    return holds


def exclusive_bound() -> JoinCause:
    """An interval join with an exclusive bound (`lowerBoundExclusive()`, `upperBoundExclusive()`)."""
    def holds(case: JoinCase, dialect: Dialect) -> str | None:
        join = case.join
        if isinstance(join, IntervalJoin) and (join.lower_exclusive or join.upper_exclusive):
            bounds = [name for name, exclusive in (("lower", join.lower_exclusive), ("upper", join.upper_exclusive))
                      if exclusive]
            return f"the interval join's {' and '.join(bounds)} bound is exclusive"
        return None
    return holds


def late_side_output() -> JoinCause:
    """An interval join that sends an input's late records to a side output (`sideOutputLeftLateData`,
    `sideOutputRightLateData`)."""
    def holds(case: JoinCase, dialect: Dialect) -> str | None:
        join = case.join
        if isinstance(join, IntervalJoin) and (join.left_late_output or join.right_late_output):
            sides = [side for side, kept in (("left", join.left_late_output), ("right", join.right_late_output))
                     if kept]
            return f"the interval join sends the {' and '.join(sides)} input's late records to a side output"
        return None
    return holds


def time_beyond(limit: int) -> JoinCause:
    """A time of larger magnitude than `limit` in the join case: a record's, a listed watermark's (`Long.MAX_VALUE`
    too: only the end of input is none), or an interval join's bound; an engine whose time ends at `limit`."""
    def holds(case: JoinCase, dialect: Dialect) -> str | None:
        times = [t for e in case.events
                 for t in (getattr(e.event, "ts", None), getattr(e.event, "timestamp", None)) if t is not None]
        times += [case.join.lower, case.join.upper] if hasattr(case.join, "lower") else []
        far = [t for t in times if abs(t) > limit]
        return f"the time {far[0]:,} lies beyond {limit:,}" if far else None
    return holds


JOIN_CAUSES: dict[str, Callable[..., JoinCause]] = {f.__name__: f for f in (exclusive_bound, late_side_output,
                                                                              time_beyond)}

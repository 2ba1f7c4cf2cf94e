"""Job checks: which window parameters a job may state, and the engine's words when it may not.

Flink checks an assigner's parameters in its constructor (`SlidingEventTimeWindows`: `abs(offset) < slide`,
`size > 0`, at most `MAX_WINDOW_NUM` windows an element). Flink SQL and Flink 1.20 check otherwise: SQL's parser
first (an interval's precision), then its planner, in its order. `EngineChecks` runs the engine's checks, then
builds the model's assigner with Flink's checks as the dialect changes them (`DialectSlidingWindows`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from reference.assigners import (
    CumulativeWindows,
    RecentWindows,
    SessionWindows,
    SlidingWindows,
    TumblingWindows,
    element_time,
    sliding_rules,
)
from reference.dialects.time_arithmetic import UnboundedTumblingWindows
from reference.errors import InvalidSpec, JobFailure
from reference.javalong import l2i, labs, ldiv
from reference.windows import TimeWindow
from window_contract import case
from window_contract.facts import MAX_WINDOW_NUM, SESSION_EMIT_MESSAGE, TOO_MANY_WINDOWS, WINDOWS_PER_ELEMENT_LIMIT


@dataclass(frozen=True)
class JobCheckSwitches:
    """The switches of a job's checks (Flink SQL's and Flink 1.20's); every default is Flink's."""

    #: The widest window parameter (size, slide, gap, offset) a job can state; None: any `long`. Flink SQL writes
    #: them as `INTERVAL DAY(6) TO SECOND(3)` literals (at most 86,399,999,999,999 ms), and its parser rejects a
    #: longer one before any other check, in the order the query states them (`HOP`: slide, size, offset).
    interval_limit: int | None = None
    #: `SlidingEventTimeWindows` takes any size; True: a size that is no multiple of the slide is rejected
    #: (Flink SQL's `HOP`, which slices windows into slides).
    sliding_size_multiple_of_slide: bool = False
    #: `SlidingEventTimeWindows` takes a window of any number of panes; True: a sliding window whose size / gcd(size,
    #: slide) (its panes, or slices, of gcd(size, slide) each) exceeds an `int` is rejected, "Cannot downcast long
    #: value N to integer." (the table runtime's `SlidingWindowAssigner`, `MathUtils.checkedDownCast`, which Flink SQL
    #: builds for a `HOP` group window and for the `HOP` table function's window TVF operator, before the aggregate's
    #: checks), once the size and the slide are above 0.
    sliding_panes_fit_an_int: bool = False
    #: `SlidingEventTimeWindows` requires `abs(offset) < slide`; False: any offset, aligned on the offset modulo
    #: the slide (Flink SQL's `HOP`).
    sliding_offset_checked: bool = True
    #: `SlidingEventTimeWindows` rejects more than `MAX_WINDOW_NUM` (10,000,000) windows an element
    #: (`size / slide`, Flink 2.x); False: any number (Flink 1.20; Flink SQL's `HOP`, whose slice assigner and
    #: legacy `SlidingWindowAssigner` have no such check).
    sliding_window_count_checked: bool = True
    #: A session window takes an allowed lateness; False: a session window with an allowed lateness above 0 is
    #: rejected (Flink SQL's legacy group windows: "Session window doesn't support EMIT strategy currently.", the
    #: late firing an allowed lateness needs there), unless its trigger is the emit strategy (`after_end_of_window`),
    #: which says itself whether it fires late (`reference.emit_strategy`).
    sessions_take_allowed_lateness: bool = True

    def check_intervals(self, window: case.WindowSpec) -> None:
        """SQL's parser: each of the window's intervals, in the order the query states them, within
        `interval_limit`."""
        if self.interval_limit is None:
            return
        stated = {case.Tumbling: ("size", "offset"), case.Sliding: ("slide", "size", "offset"),
                  case.Cumulative: ("step", "size", "offset"), case.Session: ("gap",)}.get(type(window), ())
        for value in (getattr(window, name) for name in stated):
            if abs(value) > self.interval_limit:
                raise InvalidSpec(f"Interval field value {abs(value) // DAY:,} exceeds precision of DAY(6) field",
                                  "sql.interval_precision")

    def assigners(self, spec: case.Case) -> dict[type, object]:
        """How this dialect builds the assigner of `spec`'s window, by the kind of the format: its engine's own
        job-time checks first (`EngineChecks`), then the model's assigner, or one with Flink's checks changed."""
        if (self.interval_limit, self.sliding_size_multiple_of_slide, self.sliding_panes_fit_an_int,
                self.sliding_offset_checked, self.sliding_window_count_checked, self.sessions_take_allowed_lateness,
                self.long_arithmetic) == (None, False, False, True, True, True, "java"):
            return {}
        return {kind: EngineChecks(self, spec, kind)
                for kind in (case.Tumbling, case.Sliding, case.Cumulative, case.Session)}


#: A day in milliseconds: SQL's intervals count days.
DAY = 86_400_000


class EngineChecks:
    """How a dialect builds an assigner of one kind: the engine's own job-time checks, in its order, before the
    model's assigner (`interval_limit`: the parser's; `sessions_take_allowed_lateness`, then the sliding window's
    `sliding_panes_fit_an_int` and `sliding_size_multiple_of_slide`: the planner's), then the model's assigner, a
    sliding one with Flink's checks and arithmetic as the dialect changes them (`DialectSlidingWindows`), a tumbling
    one in the dialect's arithmetic (`UnboundedTumblingWindows`).

    Which of a `HOP`'s two checks runs first is the cost-based optimizer's choice of plan. A window TVF operator
    estimates its rows as its input's times `(int) (size / slide)` (`CommonPhysicalWindowTableFunction.
    estimateRowCount`, a Java narrowing). Where that is above 0, the planner pulls the table function into the
    aggregate, whose slice assigner checks the multiple (`StreamExecWindowAggregateBase.createSliceAssigner`) and
    then the panes (`HoppingSliceAssigner`). Where it is 0 or below (a size under the slide, or `size / slide` that
    wraps an `int`), the plan keeps a window TVF operator below the aggregate, and its translation, which comes
    first, builds the table runtime's `SlidingWindowAssigner` and so counts the panes first."""

    def __init__(self, dialect: JobCheckSwitches, spec: case.Case, kind: type) -> None:
        self.dialect, self.spec, self.kind = dialect, spec, kind

    def from_kind(self, kind, window_start):
        d = self.dialect
        d.check_intervals(kind)
        if (not d.sessions_take_allowed_lateness and self.kind is case.Session and self.spec.allowed_lateness > 0
                and not isinstance(self.spec.trigger, case.AfterEndOfWindowTrigger)):  # it states its own late firing
            raise InvalidSpec(SESSION_EMIT_MESSAGE, "sql.session_emit")
        if self.kind is case.Sliding:
            if kind.size > 0 and kind.slide > 0:
                checks = [self.hop_panes, self.hop_multiple]
                if d.sliding_size_multiple_of_slide and l2i(ldiv(kind.size, kind.slide)) > 0:
                    checks.reverse()
                for check in checks:
                    check(kind)
            return DialectSlidingWindows(kind.size, kind.slide, kind.offset, kind.time == "event", window_start, d)
        if self.kind is case.Tumbling and d.long_arithmetic == "unbounded":
            return UnboundedTumblingWindows.from_kind(kind, window_start)
        return {case.Tumbling: TumblingWindows, case.Cumulative: CumulativeWindows,
                case.Session: SessionWindows}[self.kind].from_kind(kind, window_start)


    def hop_panes(self, kind) -> None:
        """The table runtime's `SlidingWindowAssigner`: a window's panes, of gcd(size, slide) each, in an `int`
        (`MathUtils.checkedDownCast`)."""
        if self.dialect.sliding_panes_fit_an_int:
            panes = ldiv(kind.size, gcd(kind.size, kind.slide))
            if l2i(panes) != panes:
                raise InvalidSpec(f"Cannot downcast long value {panes} to integer.", "sql.hop_panes")

    def hop_multiple(self, kind) -> None:
        """`StreamExecWindowAggregateBase.createSliceAssigner`: a `HOP`'s size is a multiple of its slide."""
        if self.dialect.sliding_size_multiple_of_slide and kind.size % kind.slide:
            raise InvalidSpec("HOP table function based aggregate requires size must be an integral multiple of "
                              f"slide, but got size {kind.size} ms and slide {kind.slide} ms", "sql.hop_multiple")


class DialectSlidingWindows(SlidingWindows):
    """`SlidingEventTimeWindows` with the checks a dialect changes: `sliding_offset_checked=False` takes any offset
    (a slide must still be above 0), `sliding_window_count_checked=False` any number of windows an element; and
    with `long_arithmetic="unbounded"`, PyFlink's `assign_windows` in Python integers, `[TimeWindow(start, start +
    size) for start in range(last_start, timestamp - size, -slide)]`: `start` never wraps past `Long.MIN_VALUE` into
    a loop that runs on from the top of the range, and no window's end wraps past `Long.MAX_VALUE`."""

    def __init__(self, size, slide, offset, event_time, window_start, dialect: JobCheckSwitches) -> None:
        self.is_event_time = event_time
        self.name = name = "SlidingEventTimeWindows" if event_time else "SlidingProcessingTimeWindows"
        if (labs(offset) >= slide if dialect.sliding_offset_checked else slide <= 0) or size <= 0:
            raise InvalidSpec(f"{name} parameters must satisfy abs(offset) < slide and size > 0",
                              *sliding_rules(size, slide, offset if dialect.sliding_offset_checked else 0))
        if event_time and dialect.sliding_window_count_checked and ldiv(size, slide) > MAX_WINDOW_NUM:
            raise InvalidSpec(f"{name} parameters must satisfy size / slide <= {MAX_WINDOW_NUM}", "sliding.windows")
        self.size, self.slide, self.offset, self.window_start = size, slide, offset, window_start
        self.windows = RecentWindows(size)
        self.unbounded = dialect.long_arithmetic == "unbounded"

    def assign_windows(self, timestamp, current_processing_time, value=0):
        if not self.unbounded:
            return super().assign_windows(timestamp, current_processing_time, value)
        time = element_time(self, timestamp, current_processing_time)
        starts = range(time - (time - self.offset) % self.slide, time - self.size, -self.slide)
        if len(starts) > WINDOWS_PER_ELEMENT_LIMIT:
            raise JobFailure(TOO_MANY_WINDOWS, "contract.too_many_windows")
        return [TimeWindow(start, start + self.size) for start in starts]

"""A dialect: a set of switches, and how it composes into the model.

`Dialect` gathers the switches of every rule area (`reference.dialects`), each documented in its area's module
beside what implements it. This module composes them: the operator's class, with the mixins of the switches that
are on in the order of `MIXINS` (`operator_class`), and the operator and the inputs that drive a case (`parts`);
each area gives its own hooks (`collector`, `received`, `deciding`, `models`, `assigners`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from reference.dialects.emission import (
    EmissionSwitches,
    EmitsEverySessionUpdate,
    EmitsEveryUpdate,
    FromRecordTimestamps,
    TriggerTime,
)
from reference.dialects.firing import (
    ExpiresOnLastExpiredGrid,
    FiringSwitches,
    SessionClosesGapAfterEnd,
    SessionFiresAtEnd,
    with_grace,
)
from reference.dialects.job_checks import JobCheckSwitches
from reference.dialects.joins import JoinSwitches
from reference.dialects.keys import KeyedParts, KeySwitches
from reference.dialects.lateness import (
    DropsWhatNoWindowTakes,
    DropWhenPastCleanupStrictly,
    IgnoresAllowedLateness,
    LateBehindWatermark,
    LateForAnyWindow,
    LateForEarliestWindow,
    LatenessSwitches,
    NeverLateInNoWindow,
    SessionLateStrictly,
)
from reference.dialects.merging import (
    LatenessBeforeMerge,
    MergesTriggerStateAsABag,
    MergingSwitches,
    MergingWindowsOutliveCleanup,
    TouchingSessionsStayApart,
)
from reference.dialects.pre_aggregation import PreAggregationHoldsRecords, PreAggregationSwitches
from reference.dialects.time_arithmetic import ArithmeticSwitches, UnboundedArithmetic
from reference.dialects.watermark_clause import WatermarkClauseSwitches
from reference.dialects.watermarks import (
    EndsWithHeartbeats,
    RecordsAdvance,
    StartsAtWatermark,
    WatermarkSwitches,
    ending,
    grace_of,
    last_watermark,
    seeing_first,
)
from reference.dialects.windows import SlidingWindowsFromZero, WindowsStartFromOffset, WindowSwitches
from window_contract import case
from window_contract.facts import LONG_MIN


@dataclass(frozen=True)
class Dialect(LatenessSwitches, MergingSwitches, FiringSwitches, EmissionSwitches, WatermarkSwitches, KeySwitches,
              ArithmeticSwitches, WindowSwitches, JobCheckSwitches, PreAggregationSwitches, WatermarkClauseSwitches,
              JoinSwitches):
    """The rules of the model an engine changes; every default is Flink's. Each switch is a field of the class of
    its rule area, documented there (`reference.dialects`)."""

    def switched(self) -> dict[str, object]:
        """The switches not at Flink's default."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) != f.default}

    def operator_class(self, base: type) -> type:
        """`base` (`WindowOperator` or `EvictingWindowOperator`) with the mixins of this dialect's switches."""
        mixins = [mixin for applies, mixin in MIXINS if applies(self)]
        return type(base.__name__, (*mixins, base), {"dialect": self}) if mixins else base

    def parts(self, driven: case.Case, build: Callable[[], tuple]) -> tuple:
        """The window operator and its inputs that drive `case` (`reference.implementation.drive`): `build()`'s
        one pair in Flink; an operator and inputs per key (`watermark_scope`, `key_state_discarded_when_empty`);
        inputs that take each record as a watermark too (`records_advance_watermark`), or a heartbeat for the end of
        time (`event_time_ends="never"`)."""
        advance = self.records_advance_watermark and driven.watermark_generator is None
        if self.window_expiry == "last_expired_grid":
            build = partial(with_grace, build, grace_of(driven))
        if self.event_time_ends == "max_minus_window":
            build = partial(ending, build, last_watermark(driven))
        if self.generator_sees_record_first and driven.watermark_generator is not None:
            build = partial(seeing_first, build)
        if self.watermark_scope == "key" or self.key_state_discarded_when_empty:
            keyed = KeyedParts(self, driven, build, advance)
            return keyed, keyed
        operator, inputs = build()
        if advance:
            inputs = RecordsAdvance(inputs, operator if not self.late_when_in_no_window else None)
        if self.event_time_ends == "never" and isinstance(driven.window, (case.Tumbling, case.Sliding, case.Session)):
            inputs = EndsWithHeartbeats(inputs, driven)
        return operator, inputs


FLINK = Dialect()


#: Which mixin each switch brings, when it is not at Flink's default, in the order the operator's class takes them:
#: a mixin listed earlier comes first in the class's MRO, so its methods run first and reach the later ones (and the
#: model's operator) through `super()`. Where two mixins of switches one engine combines override one method, the
#: order decides, and the comment says why; the others override different methods or are never combined.
MIXINS: list[tuple[Callable[[Dialect], bool], type]] = [
    (lambda d: not d.sessions_merge_when_touching, TouchingSessionsStayApart),
    # before `UnboundedArithmetic`: its `cleanup_time` adds a millisecond to that one's, which calls no `super()` (Beam)
    (lambda d: d.drop_when_past_cleanup_strictly, DropWhenPastCleanupStrictly),
    (lambda d: not d.merges_before_lateness, LatenessBeforeMerge),
    (lambda d: d.firing_timestamp == "trigger_time", TriggerTime),
    (lambda d: d.long_arithmetic == "unbounded", UnboundedArithmetic),
    (lambda d: d.initial_watermark != LONG_MIN, StartsAtWatermark),
    (lambda d: d.trigger_state_merges == "first_of_bag", MergesTriggerStateAsABag),
    (lambda d: d.merging_windows_outlive_cleanup, MergingWindowsOutliveCleanup),
    # an assigner's view hides its class: a later mixin that wraps the assigner by its class sees the view
    (lambda d: d.sliding_windows_from_zero, SlidingWindowsFromZero),
    # both before `FromRecordTimestamps`, which names a session from its records once these have given back the
    # session they kept longer (Quix Streams)
    (lambda d: d.session_fires_at == "end", SessionFiresAtEnd),
    (lambda d: d.session_fires_at == "gap_after_end", SessionClosesGapAfterEnd),
    # its `process_element` takes a tumbling or sliding window's record itself (no `super()`): the lateness of
    # such a record is its own (`LateForAnyWindow` is left out for it)
    (lambda d: d.window_expiry == "last_expired_grid", ExpiresOnLastExpiredGrid),
    (lambda d: d.firing_timestamp == "max_record_timestamp" or d.session_window_end == "last_record",
     FromRecordTimestamps),
    (lambda d: d.session_late_strictly, SessionLateStrictly),
    (lambda d: d.emits == "every_update", EmitsEveryUpdate),
    (lambda d: d.emits == "every_session_update", EmitsEverySessionUpdate),
    (lambda d: d.windows_start_from_offset, WindowsStartFromOffset),
    (lambda d: not d.late_when_in_no_window, NeverLateInNoWindow),
    (lambda d: d.late_records == "behind_watermark", LateBehindWatermark),
    (lambda d: d.late_records == "any_window" and d.window_expiry == "cleanup_timer", LateForAnyWindow),
    (lambda d: d.late_records == "earliest_window", LateForEarliestWindow),
    (lambda d: d.allowed_lateness == "ignored", IgnoresAllowedLateness),
    # records it holds go on through the mixins after it only: those before it took them as they arrived
    (lambda d: d.pre_aggregation_watermark_starts_at is not None, PreAggregationHoldsRecords),
    (lambda d: d.dropped_when_in_no_window, DropsWhatNoWindowTakes),
]

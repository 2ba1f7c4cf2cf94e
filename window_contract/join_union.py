"""A window join is a window over the union of both inputs: the job `CoGroupedStreams.WithWindow.apply` builds.

Flink 2.3 (`CoGroupedStreams.WithWindow.apply`, read in its bytecode) tags each input's elements
(`Input1Tagger`: `TaggedUnion.one(v)`, `Input2Tagger`: `TaggedUnion.two(v)`), unions the two tagged streams, keys
the union and runs the ordinary window operator over it::

    new KeyedStream<>(taggedInput1.union(taggedInput2), unionKeySelector).window(assigner)
        [.trigger(trigger)][.evictor(evictor)][.allowedLateness(lateness)]
        .apply(new CoGroupWindowFunction<>(function))

and `JoinedStreams.WithWindow.apply` is that coGroup with `JoinCoGroupFunction`. So every rule of the window
operator (assigners, triggers, merging, lateness, cleanup, the positions of firings) applies unchanged to the tagged
elements, and the union's watermark is the one `StatusWatermarkValve` of the window operator's task, over the
channels of both taggers. (Flink 2.3 offers no `sideOutputLateData` on a join's window: late elements are dropped.)

This module states that job as data, for every implementation that runs a window join on a window operator:
`union_case` is the one-input case the window operator sees, and `join_observation` what the join emits for its
firings, as `CoGroupWindowFunction` and `JoinCoGroupFunction` compute it. An element of the union is named by the
index of its event in the join case, which tells its input (`TaggedUnion.isOne`) and its value (`getOne`/`getTwo`).
"""

from __future__ import annotations

from window_contract.case import Case, EndOfChannel, Record, Watermark, WatermarkStatus
from window_contract.join_case import JoinCase, JoinEvent, WindowJoin
from window_contract.join_observation import CoGroup, JoinObservation, JoinOutput, Pair, Side, SideRecord
from window_contract.observation import Firing, LateRecord, Observation


def union_channel(case: JoinCase, side: Side, channel: int) -> int:
    """The channel of the union's task that an input's channel is: the left input's first, then the right's."""
    return channel if side == "left" else case.left_channels + channel


def union_case(case: JoinCase) -> Case:
    """The case the window operator of `case`'s join sees: each event on its union channel, each record's value
    its event's index (the union element it stands for)."""
    join = case.join
    assert isinstance(join, WindowJoin)
    events = tuple(_union_event(case, e, index) for index, e in enumerate(case.events))
    return Case(window=join.window, events=events, trigger=join.trigger, evictor=join.evictor,
                allowed_lateness=join.allowed_lateness, late_side_output=False, end_of_input=case.end_of_input,
                channels=case.left_channels + case.right_channels, name=case.name)


def _union_event(case: JoinCase, e: JoinEvent, index: int):
    channel = union_channel(case, e.input, e.event.channel)
    match e.event:
        case Record(key, _, ts):
            return Record(key, index, ts, channel)
        case Watermark(timestamp):
            return Watermark(timestamp, channel)
        case WatermarkStatus(_, idle):
            return WatermarkStatus(channel, idle)
        case EndOfChannel():
            return EndOfChannel(channel)
    raise TypeError(f"not an input's event: {e.event!r}")


def tagged(case: JoinCase, index: int) -> tuple[Side, int]:
    """The input and value of the union element of event `index` (a record)."""
    e = case.events[index]
    return e.input, e.event.value


def co_group_window_function(case: JoinCase, firing: Firing) -> tuple[list[int], list[int]]:
    """`CoGroupWindowFunction.apply`: the window's elements split into the left and the right values, each in the
    order the window holds them."""
    sides: dict[Side, list[int]] = {"left": [], "right": []}
    for index in firing.values:
        side, value = tagged(case, index)
        sides[side].append(value)
    return sides["left"], sides["right"]


def join_outputs(case: JoinCase, firing: Firing) -> list[JoinOutput]:
    """What one firing emits: the coGroup call (also with an empty side), or `JoinCoGroupFunction.coGroup`'s
    left-major nested loop, one pair per left and right value (none when a side is empty)."""
    lefts, rights = co_group_window_function(case, firing)
    at, key, ts, wm = firing.at, firing.key, firing.timestamp, firing.watermark
    if case.join.cogroup:
        return [CoGroup(at, key, ts, wm, tuple(lefts), tuple(rights))]
    return [Pair(at, key, ts, wm, left, right) for left in lefts for right in rights]


def join_observation(case: JoinCase, union: Observation) -> JoinObservation:
    """The join's observation from the observation of its window operator over the union."""
    def side_record(r: LateRecord) -> SideRecord:
        side, value = tagged(case, r.value)
        return SideRecord(r.at, side, r.key, value, r.ts)

    return JoinObservation(tuple(o for f in union.firings for o in join_outputs(case, f)),
                           tuple(map(side_record, union.late)), tuple(map(side_record, union.dropped)),
                           union.watermarks or (), union.error)

"""Which of Flink's rules an error comes from: a name for each precondition and each failure.

Flink words some of its rejections alike: `SlidingEventTimeWindows` says "parameters must satisfy abs(offset) <
slide and size > 0" for a negative slide, a size of 0 and an offset out of range. An engine that accepts large
offsets but not a negative slide departs from Flink on one of those and not the other, so the model names which
precondition failed, not only Flink's words: an `Error`'s `rules` (the model's, never read from an observation
file) are the names below. One check of Flink's that fails on several parameters at once names each.
"""

from __future__ import annotations

#: Each rule: what breaks it, and the Flink class whose check or failure it is.
RULES: dict[str, str] = {
    # invalid_spec: Flink rejects the job when it is built
    "tumbling.size": "a tumbling window's size is 0 or below (TumblingEventTimeWindows: abs(offset) < size)",
    "tumbling.offset": "a tumbling window's offset is as large as its size (TumblingEventTimeWindows)",
    "sliding.size": "a sliding window's size is 0 or below (SlidingEventTimeWindows)",
    "sliding.slide": "a sliding window's slide is 0 or below (SlidingEventTimeWindows: abs(offset) < slide)",
    "sliding.offset": "a sliding window's offset is as large as its slide (SlidingEventTimeWindows)",
    "sliding.windows": "more than 10,000,000 windows an element (SlidingEventTimeWindows.MAX_WINDOW_NUM)",
    "cumulative.size": "a cumulative window's size is 0 or below (Flink SQL's CUMULATE)",
    "cumulative.step": "a cumulative window's step is 0 or below (Flink SQL's CUMULATE)",
    "cumulative.multiple": "a cumulative window's size is no multiple of its step (Flink SQL's CUMULATE)",
    "session.gap": "a session gap of 0 or below (EventTimeSessionWindows)",
    "lateness.negative": "a negative allowed lateness (WindowOperatorBuilder.allowedLateness)",
    "trigger.merging": "a trigger that cannot merge on a merging assigner (WindowOperatorBuilder)",
    "watermark.interval": "a negative pipeline.auto-watermark-interval (ExecutionConfig)",
    "watermark.idleness": "an idleness of 0 or below (WatermarkStrategy.withIdleness)",
    "watermark.bound": "a negative bound (BoundedOutOfOrdernessWatermarks)",
    "watermark.legacy_bound": "a negative bound (BoundedOutOfOrdernessTimestampExtractor)",
    "arithmetic": "an ArithmeticException (a division by 0) while the job is built or runs",
    "sql.interval_precision": "an interval beyond SQL's DAY(6) precision (Flink SQL's parser)",
    "sql.session_emit": "an allowed lateness or an emit option on legacy session windows (WindowEmitStrategy)",
    "sql.emit_lateness": "late firing without an allowed lateness above 0 (Flink SQL's WindowEmitStrategy)",
    "sql.emit_delay": "a negative early- or late-fire delay (Flink SQL's WindowEmitStrategy)",
    "sql.emit_late_delay": "a late-fire delay above the allowed lateness (Flink SQL's WindowEmitStrategy)",
    "sql.hop_multiple": "a HOP whose size is no multiple of its slide (Flink SQL's window aggregate)",
    "sql.tumble_offset": "a TUMBLE whose offset is not below its size (Flink SQL's window join)",
    "join.bounds": "an interval join's lower bound above its upper bound (IntervalJoinOperator)",
    "sql.hop_panes": "a HOP of more panes (size / gcd(size, slide)) than an int holds (SlidingWindowAssigner)",
    # runtime: the job fails while it runs
    "record.no_timestamp": "a record without a timestamp (Long.MIN_VALUE) in event time (WindowOperator and "
                           "IntervalJoinOperator)",
    "sliding.capacity": "size / slide beyond an int: new ArrayList<>((int) (size / slide)) fails",
    "session.dynamic_gap": "a dynamic session gap of 0 or below for an element (DynamicEventTimeSessionWindows)",
    "merge.behind_watermark": "a merge that makes a window late (WindowOperator.processElement's merge function)",
    "continuous.state": "a continuous processing-time timer whose fire time the state no longer holds",
    "contract.too_many_windows": "the contract's stop: more than 10,000 windows for one element",
    "contract.never_ends": "the contract's stop: a case whose timers never end",
    "contract.too_many_outputs": "the contract's stop: more than 100,000 outputs of one key",
}

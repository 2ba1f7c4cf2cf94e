"""Flink's facts that the contract and every implementation must state alike: one place for each.

Numbers and messages here are Flink 2.3's own (the class that holds each is named), or the contract's
where Flink gives no answer worth comparing (a loop without end, a loop past what the contract
compares). An implementation imports them from here rather than writing them again, so two
implementations cannot disagree on a message by a typo.
"""

from __future__ import annotations

#: Java's `Long.MIN_VALUE` and `Long.MAX_VALUE`: Flink computes times in `long`.
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1

#: Values this large (in magnitude) can make Flink's `long` arithmetic overflow when added.
EXTREME = 2**62

#: `SlidingEventTimeWindows.MAX_WINDOW_NUM`: the most windows one element may belong to
#: (`size / slide`, checked in the constructor).
MAX_WINDOW_NUM = 10_000_000

#: `WindowOperatorBuilder` / `WindowedStream`: what Flink says when a merging assigner meets a trigger
#: whose `canMerge()` is false.
MERGING_TRIGGER_MESSAGE = "A merging window assigner cannot be used with a trigger that does not support merging."

#: `WindowOperatorBuilder.allowedLateness` (called by `WindowedStream.allowedLateness`): what Flink says
#: when the job is built with a negative allowed lateness.
NEGATIVE_LATENESS_MESSAGE = "The allowed lateness cannot be negative."

#: What the JVM (Java 17, helpful NullPointerExceptions) says when `ContinuousProcessingTimeTrigger.
#: onProcessingTime` compares a fire time its state no longer holds (`fireTimestampState.get().equals(time)`).
CONTINUOUS_PROCESSING_TIME_NULL_MESSAGE = (
    'Cannot invoke "java.lang.Long.equals(Object)" because the return value of '
    '"org.apache.flink.api.common.state.ReducingState.get()" is null')

#: The `runtime` error message for a case Flink never finishes: a watermark or a clock advance whose timers
#: never end, decided from the trigger's state and Java's `long` arithmetic, not by counting (a continuous
#: trigger whose next fire time `time + interval` wraps past `Long.MAX_VALUE` back below the watermark for
#: ever: docs/semantics.md, "Where the contract stops Flink"). A chain of timers that does end, however
#: long, is no such case. An implementation that stops such a case says exactly this, so that two
#: implementations that both see it agree.
NEVER_ENDS = "the case never ends: Flink would go on firing for ever (stopped)"

#: The most outputs (firings, late and dropped records) one key of a case may emit: a key's next output
#: stops the case with the `runtime` error `TOO_MANY_OUTPUTS`, after the outputs before it. A periodic
#: trigger over a window with contents emits them at every fire time: a burst of a billion timers is then
#: a billion firings, which no implementation keeps (and one that never ends is output without end).
#: Per key, as Flink's keyed state and timers are: another key's outputs never stop this one's.
OUTPUT_LIMIT = 100_000
TOO_MANY_OUTPUTS = f"one key emits more than {OUTPUT_LIMIT:,} outputs: beyond what the contract compares (stopped)"

#: A sliding assignment (`SlidingEventTimeWindows.assignWindows`) yields up to `ceil(size / slide)`
#: windows an element, and Flink accepts up to `MAX_WINDOW_NUM` (10,000,000) of them; near
#: `Long.MIN_VALUE`, `start -= slide` can also wrap around to the top of the `long` range, and the loop
#: goes on from there for a few windows, for millions, or until it fills the heap. Whether a job survives
#: millions of windows an element depends on its heap, so the contract draws one line for every sliding
#: assignment, wrapped or not: an element whose assignment yields more than `WINDOWS_PER_ELEMENT_LIMIT`
#: windows stops the case with the `runtime` error `TOO_MANY_WINDOWS` at that element, nothing after
#: it (and so does running out of memory in the loop).
WINDOWS_PER_ELEMENT_LIMIT = 10_000
TOO_MANY_WINDOWS = (f"a window assignment yields more than {WINDOWS_PER_ELEMENT_LIMIT:,} windows for one "
                    f"element: beyond what the contract compares (stopped)")

#: `BoundedOutOfOrdernessWatermarks`' constructor (`checkArgument`) for a negative bound. Flink builds
#: the generator when the job starts, so a job with it fails at once.
NEGATIVE_BOUND_MESSAGE = "maxOutOfOrderness cannot be negative"

#: `WatermarkStrategy.withIdleness` (and `WatermarksWithIdleness`) for a timeout of 0 or less.
NON_POSITIVE_IDLENESS_MESSAGE = "idleTimeout must be greater than zero"

#: `ExecutionConfig.setAutoWatermarkInterval` for a negative `pipeline.auto-watermark-interval`.
NEGATIVE_INTERVAL_MESSAGE = "Auto watermark interval must not be negative."


def negative_legacy_bound_message(bound: int) -> str:
    """The legacy `BoundedOutOfOrdernessTimestampExtractor`'s constructor for a negative bound: it
    formats the `Duration` (`Duration.ofMillis(bound).toString()`, e.g. `PT-1.5S`) into its message."""
    return f"Tried to set the maximum allowed lateness to {java_duration(bound)}. This parameter cannot be negative."


def java_duration(millis: int) -> str:
    """`Duration.ofMillis(millis).toString()`, Java's ISO-8601 form (`PT2S`, `PT-0.001S`, `PT1H30M`)."""
    seconds, nanos = millis // 1000, millis % 1000 * 1_000_000  # floorDiv, floorMod as Duration.ofMillis
    if seconds == 0 and nanos == 0:
        return "PT0S"
    total = seconds + 1 if seconds < 0 and nanos > 0 else seconds
    sign = -1 if total < 0 else 1
    hours, minutes, secs = sign * (abs(total) // 3600), sign * (abs(total) % 3600 // 60), sign * (abs(total) % 60)
    text = "PT" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if secs == 0 and nanos == 0 and len(text) > 2:
        return text
    text += "-0" if seconds < 0 and nanos > 0 and secs == 0 else str(secs)
    if nanos > 0:
        fraction = str(2_000_000_000 - nanos if seconds < 0 else nanos + 1_000_000_000).rstrip("0")
        text += "." + fraction[1:]
    return text + "S"

#: `DynamicEventTimeSessionWindows.assignWindows` (and the processing-time one) for a record whose
#: extracted gap is 0 or less: an `IllegalArgumentException` that fails the job at that record.
DYNAMIC_GAP_MESSAGE = "Dynamic session time gap must satisfy 0 < gap"


def cumulate_positive_message(size: int, step: int) -> str:
    """Flink SQL's rejection of a `CUMULATE` whose size or step is 0 or below, when the query is planned
    (`WindowUtil.convertToWindowingStrategy`, a `ValidationException`); checked before the multiple."""
    return (f"CUMULATE table function based aggregate requires maxSize and step to be positive, but got maxSize {size} "
            f"ms and step {step} ms.")


def cumulate_multiple_message(size: int, step: int) -> str:
    """Flink SQL's rejection of a `CUMULATE` whose size is no multiple of its step (`WindowUtil`)."""
    return (f"CUMULATE table function based aggregate requires maxSize must be an integral multiple of step, but got "
            f"maxSize {size} ms and step {step} ms.")


# The planner's `WindowEmitStrategy.checkValidation` (Flink SQL's emit strategy, `after_end_of_window`), in its order.
#: Early or late firing on a session window.
SESSION_EMIT_MESSAGE = "Session window doesn't support EMIT strategy currently."
#: Late firing on event time without an allowed lateness above 0.
AFTER_WATERMARK_MESSAGE = ("The 'AFTER WATERMARK' emit strategy requires set 'allow-lateness' or "
                           "'minIdleStateRetentionTime' in table config.")
#: A negative early or late delay: Flink's own words, without a space where its two literals meet.
EARLY_DELAY_MESSAGE = "Early-fire delay should not be null or negative value whenenable early-fire emit strategy."
LATE_DELAY_MESSAGE = "Late-fire delay should not be null or negative value whenenable late-fire emit strategy."


def late_delay_message(lateness: int, delay: int) -> str:
    """A late-fire delay above the allowed lateness."""
    return (f"Allow-lateness [{lateness}ms] should not be smaller than Late-fire delay [{delay}ms] when enable "
            "late-fire emit strategy.")

package windowconformance;

import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.runtime.operators.TimestampsAndWatermarksOperator;
import org.apache.flink.util.clock.RelativeClock;

/**
 * One channel's {@code TimestampsAndWatermarksOperator}: Flink's timestamp assigner and watermark
 * generator, created from the strategy as the operator's {@code open} creates them, emitting through
 * Flink's own {@link TimestampsAndWatermarksOperator.WatermarkEmitter} (only increasing watermarks
 * pass, an emit after idleness marks the channel active first).
 *
 * <p>The operator itself cannot run here: it needs a stream task (metric groups, a back-pressure
 * listener, the task's processing-time service, whose clock is the wall clock). What it does with
 * them is short, and is reproduced line by line:
 * <ul>
 *   <li>{@code open}: if {@code interval > 0}, a timer at {@code now + interval} (now = 0, the case's
 *       clock at the start);</li>
 *   <li>{@code processElement}: extract the timestamp, forward the record, then {@code onEvent};</li>
 *   <li>{@code onProcessingTime}, once the clock has passed the timer (a task's processing-time service
 *       waits {@code ProcessingTimeServiceUtil.getProcessingTimeDelay(t, now)} = {@code t - now + 1} ms,
 *       0 for a past t): {@code onPeriodicEmit}, then the next timer at {@code now + interval},
 *       where now is the clock when the timer fires: a jump over several intervals fires once;</li>
 *   <li>{@code processWatermark}: only {@code Long.MAX_VALUE} from upstream passes (the end of input);
 *       {@code processWatermarkStatus} ignores upstream statuses;</li>
 *   <li>{@code finish}: a last {@code onPeriodicEmit}. A finishing task advances to the end of event
 *       time before it finishes its operators ({@code StreamTask.endData}), so Long.MAX_VALUE has
 *       passed by then and the last emit can only mark the channel idle. It first quiesces the
 *       operator's processing-time service ({@code StreamOperatorWrapper.quiesceTimeServiceAndFinishOperator}:
 *       "to ensure that there is no longer output triggered by the timers"): the periodic timer never
 *       fires again, so an ended channel's idleness no longer changes.</li>
 * </ul>
 */
final class ChannelWatermarks {
    private final TimestampAssigner<Element> timestampAssigner;
    private final WatermarkGenerator<Element> generator;
    private final TimestampsAndWatermarksOperator.WatermarkEmitter emitter;
    private final long interval;
    /** The pending processing-time timer; Long.MAX_VALUE for none (Flink never registers one then). */
    private long nextTimer;

    ChannelWatermarks(WatermarkStrategy<Element> strategy, long interval, RelativeClock clock, Output<?> toValve) {
        this.timestampAssigner = strategy.createTimestampAssigner(UnregisteredMetricsGroup::new);
        this.generator = strategy.createWatermarkGenerator(GeneratorSpec.context(clock));
        this.emitter = new TimestampsAndWatermarksOperator.WatermarkEmitter(toValve);
        this.interval = interval;
        this.nextTimer = interval > 0 ? interval : Long.MAX_VALUE;
    }

    /** The timestamp the record leaves the operator with (extracted before it is forwarded). */
    long extractTimestamp(Element e, long timestamp) {
        return timestampAssigner.extractTimestamp(e, timestamp);
    }

    /** After the record was forwarded. */
    void onEvent(Element e, long timestamp) {
        generator.onEvent(e, timestamp, emitter);
    }

    /** The processing-time service fires the pending timer once the clock has passed it. */
    void advanceProcessingTime(long now) {
        if (nextTimer < now) {
            generator.onPeriodicEmit(emitter);
            nextTimer = now + interval;
        }
    }

    /** The channel's input ends: Long.MAX_VALUE from upstream, then the timers quiesced and the operator's finish. */
    void endOfInput() {
        emitter.emitWatermark(org.apache.flink.api.common.eventtime.Watermark.MAX_WATERMARK);
        nextTimer = Long.MAX_VALUE;
        generator.onPeriodicEmit(emitter);
    }
}

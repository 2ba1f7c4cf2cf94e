package windowconformance;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput.DataOutput;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.StatusWatermarkValve;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.OutputTag;
import org.apache.flink.util.clock.RelativeClock;

/**
 * Where a case's watermarks come from and how they merge, through Flink's own classes: the case's
 * channels are the window operator's input channels, merged by Flink's {@link StatusWatermarkValve}
 * (what the valve lets through goes to the window operator); with a watermark generator each
 * channel has its own {@link ChannelWatermarks} ({@code assignTimestampsAndWatermarks} after a
 * parallel source), whose watermarks and idleness enter the valve on that channel.
 *
 * <p>Without a generator the case's {@code watermark} and {@code watermark_status} events are what
 * the channel's upstream emits into the valve. With one, {@code TimestampsAndWatermarksOperator}
 * ignores what comes from upstream except the end of input, so {@code watermark_status} events
 * change nothing (the loader already rejects explicit watermarks beside a generator).
 *
 * <p>Time: the case's {@code processing_time} events move one clock, the processing-time service
 * of every channel's operator and the input activity clock {@code WatermarksWithIdleness} measures
 * idleness on. When the clock moves, the channels' pending timers fire in channel order (in Flink
 * each channel is a task of its own and the order is the scheduler's).
 */
final class CaseWatermarks {
    private final StatusWatermarkValve valve;
    private final DataOutput<?> toWindowOperator;
    /** One per channel with a generator, else null. */
    private final ChannelWatermarks[] generated;
    private final boolean[] ended;
    private final CaseClock clock = new CaseClock();

    /** {@code generates}: false where the case's generator runs downstream (a SQL table's WATERMARK clause). */
    CaseWatermarks(JsonNode caseSpec, DataOutput<?> toWindowOperator, boolean generates) {
        int channels = caseSpec.path("channels").asInt(1);
        this.valve = new StatusWatermarkValve(channels);
        this.toWindowOperator = toWindowOperator;
        this.ended = new boolean[channels];
        GeneratorSpec generator = generates ? GeneratorSpec.of(caseSpec) : null;
        if (generator == null) {
            generated = null;
            return;
        }
        generated = new ChannelWatermarks[channels];
        for (int c = 0; c < channels; c++) {
            // One strategy instance per channel, as each parallel instance deserializes its own:
            // a legacy extractor keeps its maximum in the strategy object itself.
            WatermarkStrategy<Element> strategy = generator.strategy();
            generated[c] = new ChannelWatermarks(strategy, generator.interval(), clock, new ValveInput(c));
        }
    }

    /** Whether the observation holds the window operator's input watermarks (Case.observes_watermarks). */
    static boolean observed(JsonNode caseSpec) {
        return GeneratorSpec.of(caseSpec) != null || caseSpec.path("channels").asInt(1) > 1;
    }

    /** The record's timestamp as it reaches the window operator (the channel's assigner's). */
    long extractTimestamp(int channel, Element e, long timestamp) {
        return generated == null ? timestamp : generated[channel].extractTimestamp(e, timestamp);
    }

    /** After the record reached the window operator: the channel's generator sees it. */
    void afterRecord(int channel, Element e, long timestamp) {
        if (generated != null) {
            generated[channel].onEvent(e, timestamp);
        }
    }

    void watermark(int channel, long timestamp) throws Exception {
        valve.inputWatermark(new Watermark(timestamp), channel, toWindowOperator);
    }

    void watermarkStatus(int channel, boolean idle) throws Exception {
        if (generated == null) {
            valve.inputWatermarkStatus(idle ? WatermarkStatus.IDLE : WatermarkStatus.ACTIVE, channel, toWindowOperator);
        }
    }

    void processingTime(long time) {
        clock.now = time;
        if (generated != null) {
            for (ChannelWatermarks channel : generated) {
                channel.advanceProcessingTime(time);
            }
        }
    }

    /** The channel ends: its upstream sends Long.MAX_VALUE (through its generator's operator, if any). */
    void endOfChannel(int channel) throws Exception {
        ended[channel] = true;
        if (generated == null) {
            watermark(channel, Long.MAX_VALUE);
        } else {
            generated[channel].endOfInput();
        }
    }

    /** The case's end of input: every channel still open ends, in channel order. */
    void endOfInput() throws Exception {
        for (int c = 0; c < ended.length; c++) {
            if (!ended[c]) {
                endOfChannel(c);
            }
        }
    }

    /** The case's processing time as a relative clock, for WatermarksWithIdleness. */
    private static final class CaseClock implements RelativeClock {
        long now;

        @Override
        public long relativeTimeMillis() {
            return now;
        }

        @Override
        public long relativeTimeNanos() {
            // Saturates where nanoseconds leave the long range (past about 292 years of processing time).
            return now > Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : now * 1_000_000;
        }
    }

    /** The output of one channel's TimestampsAndWatermarksOperator: that channel of the valve. */
    private final class ValveInput extends OutputShim<Object> {
        private final int channel;

        ValveInput(int channel) {
            this.channel = channel;
        }

        @Override
        public void emitWatermark(Watermark mark) {
            try {
                valve.inputWatermark(mark, channel, toWindowOperator);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {
            try {
                valve.inputWatermarkStatus(status, channel, toWindowOperator);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void collect(Object record) {
            throw new UnsupportedOperationException("records do not pass through the valve input");
        }

        @Override
        public <X> void collect(OutputTag<X> outputTag, StreamRecord<X> record) {
            throw new UnsupportedOperationException("no side output");
        }

        @Override
        public void emitLatencyMarker(LatencyMarker latencyMarker) {
            throw new UnsupportedOperationException("no latency markers");
        }

        @Override
        public void emitRecordAttributes(RecordAttributes recordAttributes) {
            throw new UnsupportedOperationException("no record attributes");
        }

        @Override
        public void close() {}
    }
}

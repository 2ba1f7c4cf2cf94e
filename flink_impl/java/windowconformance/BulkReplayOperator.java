package windowconformance;

import java.time.Duration;

import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The bulk mode's records into the chained window operator, with the replay's watermarks: each input line
 * {@code arrival \t key \t ts \t payload} (arrival increasing) is a record with its own timestamp, and after every
 * {@code every} records Flink's {@link BoundedOutOfOrdernessWatermarks} emits ({@code onPeriodicEmit}: the highest
 * timestamp seen - bound - 1). As Flink's {@code WatermarkToDataOutput} does, only a watermark above the last one
 * emitted goes on. At the end of input, {@code Watermark(Long.MAX_VALUE)}; the source's own watermarks are swallowed.
 *
 * <p>Before forwarding anything it sets {@link BulkOutputs}' position (the record's arrival, the watermark after it,
 * the end of input): the window operator runs synchronously inside the forward, so an output is attributed to it.
 */
public final class BulkReplayOperator extends AbstractStreamOperator<Element>
        implements OneInputStreamOperator<String, Element>, BoundedOneInput {

    private final long bound;
    private final long every;
    private transient BoundedOutOfOrdernessWatermarks<Element> generator;
    private transient WatermarkOutput toWindowOperator;
    private transient long records;
    private transient long lastArrival;
    private transient long lastWatermark;

    BulkReplayOperator(long bound, long every) {
        this.bound = bound;
        this.every = every;
    }

    @Override
    public void open() throws Exception {
        super.open();
        generator = new BoundedOutOfOrdernessWatermarks<>(Duration.ofMillis(bound));
        lastArrival = Long.MIN_VALUE;
        lastWatermark = Long.MIN_VALUE;
        toWindowOperator = new WatermarkOutput() {
            @Override
            public void emitWatermark(org.apache.flink.api.common.eventtime.Watermark mark) {
                forward(mark.getTimestamp());
            }

            @Override
            public void markIdle() {
                throw new UnsupportedOperationException("one channel, never idle");
            }

            @Override
            public void markActive() {}
        };
    }

    @Override
    public void processElement(StreamRecord<String> line) {
        String text = line.getValue();
        int a = text.indexOf('\t');
        int k = text.indexOf('\t', a + 1);
        int t = text.indexOf('\t', k + 1);
        if (a < 0 || k < 0 || t < 0) {
            throw new IllegalArgumentException("bulk input: a line must be arrival<TAB>key<TAB>ts<TAB>payload: " + text);
        }
        long arrival = Long.parseLong(text, 0, a, 10);
        if (arrival <= lastArrival) {
            throw new IllegalArgumentException("bulk input: arrival must increase from record to record, "
                    + arrival + " came after " + lastArrival);
        }
        lastArrival = arrival;
        long ts = Long.parseLong(text, k + 1, t, 10);
        Element element = new Element(text.substring(a + 1, k), Long.parseLong(text, t + 1, text.length(), 10), ts);
        BulkOutputs.at(arrival, BulkOutputs.RECORD);
        output.collect(new StreamRecord<>(element, ts));
        generator.onEvent(element, ts, toWindowOperator);
        if (++records % every == 0) {
            BulkOutputs.at(arrival, BulkOutputs.WATERMARK);
            generator.onPeriodicEmit(toWindowOperator);
        }
    }

    @Override
    public void endInput() {
        BulkOutputs.atEnd();
        forward(Long.MAX_VALUE);
    }

    private void forward(long watermark) {
        if (watermark > lastWatermark) {
            lastWatermark = watermark;
            output.emitWatermark(new Watermark(watermark));
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        // The source's own, at its end: the replay's watermarks alone decide time.
    }
}

package joinconformance;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.SimpleUdfStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.co.IntervalJoinOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.OutputTag;

/**
 * Flink's own {@link IntervalJoinOperator}, fed in the case's order through one chained input.
 *
 * <p>A two-input operator cannot be chained behind one upstream, and a task reads its two input gates in the order
 * their buffers become available, so the case's interleaving of the two inputs would not survive a real exchange.
 * This subclass adds only an entry point: each {@link Tagged} event of the chained replay is handed to the
 * operator's own {@code processElement1/2}, {@code processWatermark1/2} or {@code processWatermarkStatus1/2}, in
 * order, in one thread. Everything else (the buffers in keyed MapState, the timers, lateness, cleanup, the
 * combination of the two inputs' watermarks in {@code AbstractStreamOperator}) is Flink's; {@link
 * #processWatermark(Watermark)} only records the combined watermark before Flink's own.
 */
final class ReplayedIntervalJoinOperator extends IntervalJoinOperator<String, Side, Side, Void>
        implements OneInputStreamOperator<Tagged, Void> {

    private final int caseId;
    private transient JoinRun run;

    ReplayedIntervalJoinOperator(int caseId, long lower, long upper, boolean lowerInclusive, boolean upperInclusive,
            OutputTag<Side> leftLate, OutputTag<Side> rightLate, TypeSerializer<Side> serializer,
            ProcessJoinFunction<Side, Side, Void> function) {
        super(lower, upper, lowerInclusive, upperInclusive, leftLate, rightLate, serializer, serializer, function);
        this.caseId = caseId;
    }

    @Override
    public void open() throws Exception {
        super.open();
        run = JoinRun.get(caseId);
    }

    @Override
    public void processElement(StreamRecord<Tagged> record) throws Exception {
        Tagged t = record.getValue();
        switch (t.kind) {
            case Tagged.RECORD:
                StreamRecord<Side> element = new StreamRecord<>(new Side(t.key, t.value), record.getTimestamp());
                if (t.input == 0) {
                    processElement1(element);
                } else {
                    processElement2(element);
                }
                break;
            case Tagged.WATERMARK:
                if (t.input == 0) {
                    processWatermark1(new Watermark(t.value));
                } else {
                    processWatermark2(new Watermark(t.value));
                }
                break;
            case Tagged.WATERMARK_STATUS:
                WatermarkStatus status = t.value != 0 ? WatermarkStatus.IDLE : WatermarkStatus.ACTIVE;
                if (t.input == 0) {
                    processWatermarkStatus1(status);
                } else {
                    processWatermarkStatus2(status);
                }
                break;
            default:
                throw new IllegalStateException("unknown event kind " + t.kind);
        }
    }

    /** The combined watermark of both inputs, as {@code processWatermark(mark, index)} hands it on. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        run.watermark = mark.getTimestamp();
        run.watermarks.add("[" + run.at + "," + mark.getTimestamp() + "]");
        super.processWatermark(mark);
    }

    /**
     * The operator's factory, chained behind the replay ({@code ALWAYS}): Flink 1.20's factory takes the strategy of
     * {@code IntervalJoinOperator}, which heads a task of its own, and a network edge would reorder the case.
     */
    static final class Factory extends SimpleUdfStreamOperatorFactory<Void>
            implements OneInputStreamOperatorFactory<Tagged, Void> {
        Factory(ReplayedIntervalJoinOperator operator) {
            super(operator);
            setChainingStrategy(ChainingStrategy.ALWAYS);
        }
    }
}

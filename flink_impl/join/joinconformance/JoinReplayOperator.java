package joinconformance;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ExceptionInChainedOperatorException;
import org.apache.flink.streaming.runtime.watermarkstatus.StatusWatermarkValve;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import windowconformance.DataOutputShim;

/**
 * Replays one case's events into the chained join, in the case's order: records with their own timestamps, and for
 * each input what Flink's {@link StatusWatermarkValve} of that input (one per input of a two-input task,
 * {@code StreamTwoInputProcessorFactory}) makes of its channels' watermarks, statuses and ends.
 *
 * <p>Before handing on an event it sets the case's position, so what the join emits (synchronously, in the chain) is
 * attributed to that event. At the end of input every open channel ends, the left input's first. A failure of the
 * join (a record at Long.MIN_VALUE) is the case's runtime error: the case's replay stops there, the job goes on.
 * The source's own watermarks and statuses are swallowed: only the case says what time it is.
 */
final class JoinReplayOperator extends AbstractStreamOperator<Tagged> implements OneInputStreamOperator<JoinEvent, Tagged> {
    private final int caseId;
    private final boolean endOfInput;
    private final int[] channels;
    private transient JoinRun run;
    private transient StatusWatermarkValve[] valves;
    private transient boolean[][] ended;

    JoinReplayOperator(int caseId, boolean endOfInput, int leftChannels, int rightChannels) {
        this.caseId = caseId;
        this.endOfInput = endOfInput;
        this.channels = new int[] {leftChannels, rightChannels};
    }

    @Override
    public void open() throws Exception {
        super.open();
        run = JoinRun.get(caseId);
        valves = new StatusWatermarkValve[] {new StatusWatermarkValve(channels[0]), new StatusWatermarkValve(channels[1])};
        ended = new boolean[][] {new boolean[channels[0]], new boolean[channels[1]]};
    }

    @Override
    public void processElement(StreamRecord<JoinEvent> record) throws Exception {
        JoinEvent e = record.getValue();
        if (e.caseId != caseId || run.failed()) {
            return;
        }
        run.at = e.index;
        try {
            switch (e.kind) {
                case JoinEvent.RECORD:
                    output.collect(new StreamRecord<>(new Tagged(Tagged.RECORD, e.input, e.key, e.value), e.time));
                    break;
                case JoinEvent.WATERMARK:
                    valves[e.input].inputWatermark(new Watermark(e.time), e.channel, new ToJoin(e.input));
                    break;
                case JoinEvent.WATERMARK_STATUS:
                    valves[e.input].inputWatermarkStatus(
                            e.time != 0 ? WatermarkStatus.IDLE : WatermarkStatus.ACTIVE, e.channel, new ToJoin(e.input));
                    break;
                case JoinEvent.END_OF_CHANNEL:
                    endChannel(e.input, e.channel);
                    break;
                case JoinEvent.END:
                    if (endOfInput) {
                        for (int input = 0; input < 2; input++) {
                            for (int c = 0; c < channels[input]; c++) {
                                endChannel(input, c);
                            }
                        }
                    }
                    break;
                default:
                    throw new IllegalStateException("unknown event kind " + e.kind);
            }
        } catch (Exception failure) {
            Throwable cause = failure;
            while (cause instanceof ExceptionInChainedOperatorException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            run.errorMessage = String.valueOf(cause.getMessage());
        }
    }

    private void endChannel(int input, int channel) throws Exception {
        if (!ended[input][channel]) {
            ended[input][channel] = true;
            valves[input].inputWatermark(Watermark.MAX_WATERMARK, channel, new ToJoin(input));
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        // The source's watermarks, at its end: the replayed events alone decide time.
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) {
        // The source's statuses: only the case's channels are idle or active.
    }

    /** What one input's valve lets out, handed to the join as that input's (the release's `DataOutput`, shims/). */
    private final class ToJoin extends DataOutputShim<Tagged> {
        private final int input;

        ToJoin(int input) {
            this.input = input;
        }

        @Override
        public void emitWatermark(Watermark mark) {
            output.collect(new StreamRecord<>(new Tagged(Tagged.WATERMARK, input, "", mark.getTimestamp())));
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {
            output.collect(new StreamRecord<>(new Tagged(Tagged.WATERMARK_STATUS, input, "", status.isIdle() ? 1 : 0)));
        }

        @Override
        public void emitRecord(StreamRecord<Tagged> record) {
            throw new UnsupportedOperationException("records bypass the valve");
        }

        @Override
        public void emitLatencyMarker(LatencyMarker latencyMarker) {
            throw new UnsupportedOperationException("no latency markers");
        }

        @Override
        public void emitRecordAttributes(RecordAttributes recordAttributes) {
            throw new UnsupportedOperationException("no record attributes");
        }
    }
}

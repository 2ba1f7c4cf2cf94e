package windowconformance;

import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.wmassigners.WatermarkAssignerOperatorFactory;
import org.apache.flink.util.OutputTag;

/**
 * The planner's {@code WatermarkAssignerOperatorFactory}, handing the operator the case's processing-time service
 * ({@link CaseProcessingTime}) instead of its task's wall clock, and recording the watermarks it emits.
 *
 * <p>The clock: Flink 2.3's factory builds the operator with its own {@code processingTimeService} field
 * ({@code AbstractStreamOperatorFactory.setProcessingTimeService}, which the task calls before creating it), and the
 * operator's base class may take the parameters' service: both are the case's, on Flink 1.20 as on 2.3. The operator reads {@code now} and registers its first
 * timer in {@code open}, and measures idleness on a {@code PausableRelativeClock} of that service's clock; the
 * replay moves the clock on a {@code processing_time} event and fires the due timers in its own thread
 * (the assigner is chained to it), so a periodic emission happens during that event.
 *
 * <p>The watermarks: the window aggregate receives what the assigner emits, over one channel, in order, so the
 * case's observed watermarks are recorded here, during the event that made them ({@link CaseRun#receivedWatermark}).
 * A watermark emitted while the assigner's last status was idle is dropped by the chain's output, as
 * {@code RecordWriterOutput} drops it, and is not recorded. Once the case has ended or failed, the job's own end (the
 * assigner's {@code finish} emits {@code Long.MAX_VALUE}) is none of the case's: it is swallowed, as the replay
 * swallows its source's.
 */
final class CaseClockWatermarkAssigner extends AbstractStreamOperatorFactory<RowData>
        implements OneInputStreamOperatorFactory<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private final WatermarkAssignerOperatorFactory planned;
    private final int caseId;

    CaseClockWatermarkAssigner(WatermarkAssignerOperatorFactory planned, int caseId) {
        this.planned = planned;
        this.caseId = caseId;
        setChainingStrategy(planned.getChainingStrategy());
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<RowData>> T createStreamOperator(StreamOperatorParameters<RowData> task) {
        CaseRun run = CaseRun.get(caseId);
        CaseProcessingTime caseService = new CaseProcessingTime();
        run.processingTime = caseService;
        planned.setProcessingTimeService(caseService);
        return (T) planned.createStreamOperator(new StreamOperatorParameters<>(task.getContainingTask(),
                task.getStreamConfig(), new Recording(task.getOutput(), run), () -> caseService,
                task.getOperatorEventDispatcher(), task.getMailboxExecutor()));
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return planned.getStreamOperatorClass(classLoader);
    }

    /** The assigner's output, recording each watermark that passes on. */
    private static final class Recording extends OutputShim<StreamRecord<RowData>> {
        private final Output<StreamRecord<RowData>> chain;
        private final CaseRun run;
        private boolean idle;

        Recording(Output<StreamRecord<RowData>> chain, CaseRun run) {
            this.chain = chain;
            this.run = run;
        }

        @Override
        public void emitWatermark(Watermark mark) {
            if (run.finished() || run.failed()) {
                return;
            }
            if (!idle) {
                run.receivedWatermark(mark.getTimestamp());
            }
            chain.emitWatermark(mark);
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {
            idle = status.isIdle();
            chain.emitWatermarkStatus(status);
        }

        @Override
        public void collect(StreamRecord<RowData> record) {
            chain.collect(record);
        }

        @Override
        public <X> void collect(OutputTag<X> outputTag, StreamRecord<X> record) {
            chain.collect(outputTag, record);
        }

        @Override
        public void emitLatencyMarker(LatencyMarker latencyMarker) {
            chain.emitLatencyMarker(latencyMarker);
        }

        @Override
        public void emitRecordAttributes(RecordAttributes recordAttributes) {
            chain.emitRecordAttributes(recordAttributes);
        }

        @Override
        public void close() {
            chain.close();
        }
    }
}

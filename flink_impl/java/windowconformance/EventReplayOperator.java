package windowconformance;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * Replays a case's events into the chained window operator: records with their own timestamps,
 * and the watermarks {@link CaseWatermarks} makes of the case's channels (explicit or generated
 * watermarks, statuses, channel ends, processing time), ending every channel at the end of input
 * when the case has one.
 *
 * <p>Before forwarding an event it sets the case's current event index, so an output of the window
 * operator (which runs synchronously inside the forward) is attributed to that event.
 *
 * <p>A chained operator gets watermarks without the StatusWatermarkValve that guards a real
 * operator's input, so {@link CaseWatermarks} runs Flink's valve over the case's channels and this
 * operator forwards what the valve emits, recording each watermark as the window operator receives
 * it. The source's own watermarks and statuses (its end of input) are swallowed: only the case says
 * what time it is.
 *
 * <p>Where the case's watermark generator runs downstream, as a SQL table's {@code WATERMARK} clause
 * ({@code generatorDownstream}), the replay makes no watermark of its own: the records go on with their own
 * timestamps, the channels' statuses and ends through the valve, and the operator downstream records what it emits.
 *
 * <p>A failure of the case (a record in too many windows, a record without a timestamp) is its runtime error, recorded
 * here, in the failing branch's own thread. Where the branch runs in this thread it then fails the job, which stops
 * at once with nothing of the case on its way ({@code failureFailsJob}); where the window aggregate runs behind an
 * exchange, the outputs of the events before the failure may still be on their way, and a failed job would lose
 * them: the case's replay ends there instead (no further event, no end of input), and the job runs on to its end,
 * which reaches the recorder behind them.
 */
public final class EventReplayOperator extends AbstractStreamOperator<Element>
        implements OneInputStreamOperator<ReplayEvent, Element> {

    private final int caseId;
    private final boolean endOfInput;
    private final boolean failureFailsJob;
    private final boolean generatorDownstream;
    private transient CaseRun run;
    private transient CaseWatermarks watermarks;

    EventReplayOperator(int caseId, boolean endOfInput, boolean failureFailsJob, boolean generatorDownstream) {
        this.caseId = caseId;
        this.endOfInput = endOfInput;
        this.failureFailsJob = failureFailsJob;
        this.generatorDownstream = generatorDownstream;
    }

    @Override
    public void open() throws Exception {
        super.open();
        run = CaseRun.get(caseId);
        run.replayThread = Thread.currentThread();
        watermarks = new CaseWatermarks(run.spec, new WindowOperatorInput(), !generatorDownstream);
    }

    @Override
    public void processElement(StreamRecord<ReplayEvent> record) throws Exception {
        ReplayEvent e = record.getValue();
        if (e.caseId != caseId || run.failed()) {
            return; // another case's event (the job's one source feeds every case's replay), or the case has ended
        }
        if (run.jobFailed()) {
            return; // the job has failed: this case runs again in another (CaseRun#jobFailed)
        }
        run.at = e.index;
        run.start();
        try {
            switch (e.kind) {
                case ReplayEvent.RECORD:
                    Element element = new Element(e.key, e.value, e.time);
                    long timestamp = watermarks.extractTimestamp(e.channel, element, e.time);
                    output.collect(new StreamRecord<>(element, timestamp));
                    watermarks.afterRecord(e.channel, element, timestamp);
                    break;
                case ReplayEvent.WATERMARK:
                    watermarks.watermark(e.channel, e.time);
                    break;
                case ReplayEvent.PROCESSING_TIME:
                    // The window operator's timers first, then the channels' periodic emission, as the reference does.
                    run.processingTime.advanceTo(e.time);
                    watermarks.processingTime(e.time);
                    break;
                case ReplayEvent.WATERMARK_STATUS:
                    watermarks.watermarkStatus(e.channel, e.value != 0);
                    break;
                case ReplayEvent.END_OF_CHANNEL:
                    watermarks.endOfChannel(e.channel);
                    break;
                case ReplayEvent.END:
                    if (endOfInput) {
                        watermarks.endOfInput();
                    }
                    run.finish();
                    return; // a finishing task quiesces its processing-time service: no timer fires after this
                default:
                    throw new IllegalStateException("unknown replay event kind " + e.kind);
            }
            // A timer registered already past is due at once: its mail runs before the task's next input.
            run.processingTime.fireDue();
        } catch (Exception | Error failure) {
            // Recorded here, in the failing branch's own thread: the job's failure names no case.
            run.runtimeError(failure);
            if (failureFailsJob) {
                run.failJob();
                throw failure;
            }
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        // The source's watermarks, at its end of input: the replayed events alone decide time.
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) {
        // The source's statuses: only the case's channels are idle or active.
    }

    /** The valve's output: the window operator's input, where the case observes its watermarks. */
    private final class WindowOperatorInput extends DataOutputShim<Element> {
        @Override
        public void emitWatermark(Watermark mark) {
            if (!generatorDownstream) {
                run.receivedWatermark(mark.getTimestamp());
            }
            output.emitWatermark(mark);
        }

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {
            output.emitWatermarkStatus(status);
        }

        @Override
        public void emitRecord(StreamRecord<Element> record) {
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

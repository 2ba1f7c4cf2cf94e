package windowconformance;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Replays a case's events into the chained window operator: records with their own timestamps,
 * watermark events as real watermarks, and Watermark(Long.MAX_VALUE) at the end of input when the
 * case has one.
 *
 * <p>Before forwarding an event it sets the case's current event index, so an output of the window
 * operator (which runs synchronously inside the forward) is attributed to that event.
 *
 * <p>A chained operator gets watermarks without the StatusWatermarkValve that guards a real
 * operator's input; like the valve, this operator forwards a watermark only if it is greater than
 * the last one (the first must exceed Long.MIN_VALUE). The source's own watermarks (its end of
 * input) are swallowed: only the case says what time it is.
 */
public final class EventReplayOperator extends AbstractStreamOperator<Element>
        implements OneInputStreamOperator<ReplayEvent, Element> {

    private final int caseId;
    private final boolean endOfInput;
    private transient CaseRun run;
    private transient long lastWatermark;

    EventReplayOperator(int caseId, boolean endOfInput) {
        this.caseId = caseId;
        this.endOfInput = endOfInput;
    }

    @Override
    public void open() throws Exception {
        super.open();
        run = CaseRun.get(caseId);
        run.replayThread = Thread.currentThread();
        lastWatermark = Long.MIN_VALUE;
    }

    @Override
    public void processElement(StreamRecord<ReplayEvent> record) throws Exception {
        ReplayEvent e = record.getValue();
        if (e.caseId != caseId) {
            return; // another case's event: the job's one source feeds every case's replay operator
        }
        run.at = e.index;
        run.start();
        try {
            switch (e.kind) {
                case ReplayEvent.RECORD:
                    output.collect(new StreamRecord<>(new Element(e.key, e.value, e.time), e.time));
                    break;
                case ReplayEvent.WATERMARK:
                    advanceWatermark(e.time);
                    break;
                case ReplayEvent.END:
                    if (endOfInput) {
                        advanceWatermark(Long.MAX_VALUE);
                    }
                    run.finish();
                    break;
                default: // processing time: no event-time operator reacts to it
                    break;
            }
        } catch (Exception | Error failure) {
            // Recorded here, in the failing branch's own thread: the job's failure names no case.
            run.runtimeError(failure);
            throw failure;
        }
    }

    private void advanceWatermark(long time) {
        if (time > lastWatermark) {
            lastWatermark = time;
            output.emitWatermark(new Watermark(time));
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        // The source's watermarks, at its end of input: the replayed events alone decide time.
    }
}

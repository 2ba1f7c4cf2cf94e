package windowconformance;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * Records what a case's query emits: each row that says a result ({@code +I}, or {@code +U} for a window fired
 * again) is a firing, of the window {@code [window_start, window_end)} of key {@code k}, with {@code window_time} as
 * its timestamp and the values of the records {@code idxs} names; a retraction ({@code -U}, {@code -D}) of what was
 * said before is not one.
 *
 * <p>When: the window aggregate runs in a task of its own, so a row does not say during which of the case's events
 * it was emitted; the watermarks and the rows' contents say it. One input channel keeps rows and watermarks in
 * order, and the window operators ({@code WindowAggOperator}, the legacy {@code WindowOperator}) forward a
 * watermark only after the timers it fired ({@code AbstractStreamOperator.processWatermark}). A window fires at a
 * watermark that reaches its {@code window_time} (its {@code maxTimestamp}), or, fired already, again at a late
 * record (the legacy windows' late firing, as {@code EventTimeTrigger} does). So a row whose {@code window_time} the
 * last watermark had passed was emitted at a late record, the newest of those it holds (the one with the highest
 * index), under that watermark; any other row at the next watermark, during the event at which the replay emitted
 * that watermark ({@link CaseRun#eventOfWatermark}), and the firing's watermark is that one. With an early firing of
 * delay 0 (Flink SQL's emit strategy, {@link SqlApi#firesOnEveryElement}) every row is a firing at a record, the
 * newest it holds, since the on-time firing after it emits nothing (its result unchanged). A row emitted while the
 * legacy aggregate fires its processing-time timers (a firing of delay above 0) is the case's at the
 * {@code processing_time} event that made them due ({@link CaseRun#aggregateAt}).
 *
 * <p>What was dropped: SQL has no late-data side output and tells nothing of what it drops. The legacy group windows'
 * operator counts its drops, and records them itself ({@link CaseClockWindowAggregate}). Of the window table
 * functions: once the watermark {@code Long.MAX_VALUE} has reached the window (the end of a bounded input) every
 * window has fired, so a record that no firing holds was dropped as late, during its own event. Without it (no end of input, or an end that never
 * reaches the window, every channel having ended idle) a dropped record cannot be told from one whose window has not
 * fired: the SQL implementations do not declare {@code unbounded_input}, which such a case needs
 * ({@code window_contract.features.end_reaches_the_operator}).
 *
 * <p>When the case is complete: the end of its input reaches this operator behind every row the window aggregate
 * emitted ({@code finish}, which a cancelled job never calls), and only then are the case's outputs all recorded
 * ({@link CaseRun#endOfOutputs}). The replay's end says nothing of them: a firing that merges millions of panes may
 * still be on its way, and a job that times out before then leaves the case to run again
 * ({@code JobRunner.abandon}).
 */
final class SqlFirings extends AbstractStreamOperator<Void> implements OneInputStreamOperator<Row, Void> {
    private final int caseId;
    /** An early firing of delay 0: every row is a firing at the element that came into the window last. */
    private final boolean firesOnEveryElement;
    /** Whether the records no firing holds at the end were dropped, or the window aggregate records its drops. */
    private final boolean infersDrops;
    private transient CaseRun run;
    private transient List<Row> pending;
    private transient BitSet fired;
    private transient long watermark;

    SqlFirings(int caseId, boolean firesOnEveryElement, boolean infersDrops) {
        this.caseId = caseId;
        this.firesOnEveryElement = firesOnEveryElement;
        this.infersDrops = infersDrops;
    }

    @Override
    public void open() throws Exception {
        super.open();
        run = CaseRun.get(caseId);
        pending = new ArrayList<>();
        fired = new BitSet();
        watermark = Long.MIN_VALUE;
    }

    @Override
    public void processElement(StreamRecord<Row> record) {
        Row row = record.getValue();
        RowKind kind = row.getKind();
        if (kind == RowKind.UPDATE_BEFORE || kind == RowKind.DELETE) {
            return;
        }
        if (run.aggregateAt >= 0) {
            fire(row, run.aggregateAt, watermark); // a processing-time timer's firing (CaseClockWindowAggregate)
        } else if (firesOnEveryElement || millis(row.getField("window_time")) <= watermark) {
            int newest = 0;
            for (Object index : (Object[]) row.getFieldAs("idxs")) {
                newest = Math.max(newest, ((Number) index).intValue());
            }
            fire(row, newest, watermark);
        } else {
            pending.add(row);
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        watermark = mark.getTimestamp();
        if (pending.isEmpty()) {
            return;
        }
        Integer at = run.eventOfWatermark(watermark);
        if (at == null) {
            throw new IllegalStateException("case " + caseId + ": rows before a watermark the case never emitted: "
                    + watermark);
        }
        for (Row row : pending) {
            fire(row, at, watermark);
        }
        pending.clear();
    }

    private void fire(Row row, int at, long watermark) {
        JsonNode events = run.spec.get("events");
        FiringRecord f = new FiringRecord();
        f.at = at;
        f.key = row.<String>getFieldAs("k");
        f.start = millis(row.getField("window_start"));
        f.end = millis(row.getField("window_end"));
        Object[] indexes = row.getFieldAs("idxs");
        f.values = new long[indexes.length];
        for (int i = 0; i < indexes.length; i++) {
            int index = ((Number) indexes[i]).intValue();
            fired.set(index);
            f.values[i] = events.get(index).get("record").get("value").asLong();
        }
        java.util.Arrays.sort(f.values);
        f.watermark = watermark;
        run.fired(f, millis(row.getField("window_time")));
    }

    /** A window bound or time of the result: TIMESTAMP(3) (in the session's zone, UTC) or TIMESTAMP_LTZ(3). */
    static long millis(Object time) {
        if (time instanceof Instant) {
            return ((Instant) time).toEpochMilli();
        }
        return ((LocalDateTime) time).toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    @Override
    public void finish() throws Exception {
        if (!pending.isEmpty()) {
            throw new IllegalStateException("case " + caseId + ": rows after the last watermark");
        }
        if (infersDrops && run.finished() && watermark == Long.MAX_VALUE) { // the end reached: every window fired
            JsonNode events = run.spec.get("events");
            for (int i = 0; i < events.size(); i++) {
                JsonNode record = events.get(i).get("record");
                if (record != null && !fired.get(i)) {
                    run.lateRecordAt(i, new Element(record.get("key").asText(), record.get("value").asLong(),
                            record.get("ts").asLong()), false);
                }
            }
        }
        run.endOfOutputs();
        super.finish();
    }
}

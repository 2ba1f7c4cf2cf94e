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

/**
 * Records what a case's query emits: each row is a firing, of the window {@code [window_start, window_end)} of key
 * {@code k}, with {@code window_time} as its timestamp and the values of the records {@code idxs} names.
 *
 * <p>When: the window aggregate runs in a task of its own, so a row does not say during which of the case's events
 * it was emitted; the watermarks say it. {@code WindowAggOperator} (and the legacy {@code WindowOperator}) fire a
 * window from a timer while it processes a watermark, and forward the watermark downstream after its timers have
 * fired ({@code AbstractStreamOperator.processWatermark}); one input channel keeps records and watermarks in order.
 * So the rows that come before a watermark were emitted while the aggregate processed it, during the event at which
 * the replay emitted that watermark ({@link CaseRun#eventOfWatermark}), and the firing's watermark is that one.
 *
 * <p>What was dropped: SQL has no late-data side output and tells nothing of what it drops. At the end of a bounded
 * input every window has fired (the last watermark is {@code Long.MAX_VALUE}), so a record that no firing holds was
 * dropped as late, during its own event. A case without end of input cannot tell a dropped record from one whose
 * window has not fired: the SQL implementations do not declare {@code unbounded_input}.
 */
final class SqlFirings extends AbstractStreamOperator<Void> implements OneInputStreamOperator<Row, Void> {
    private final int caseId;
    private transient CaseRun run;
    private transient List<Row> pending;
    private transient BitSet fired;

    SqlFirings(int caseId) {
        this.caseId = caseId;
    }

    @Override
    public void open() throws Exception {
        super.open();
        run = CaseRun.get(caseId);
        pending = new ArrayList<>();
        fired = new BitSet();
    }

    @Override
    public void processElement(StreamRecord<Row> row) {
        pending.add(row.getValue());
    }

    @Override
    public void processWatermark(Watermark mark) {
        if (pending.isEmpty()) {
            return;
        }
        Integer at = run.eventOfWatermark(mark.getTimestamp());
        if (at == null) {
            throw new IllegalStateException("case " + caseId + ": rows before a watermark the case never emitted: "
                    + mark.getTimestamp());
        }
        for (Row row : pending) {
            fire(row, at, mark.getTimestamp());
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
        if (run.finished() && run.spec.get("end_of_input").asBoolean()) {
            JsonNode events = run.spec.get("events");
            for (int i = 0; i < events.size(); i++) {
                JsonNode record = events.get(i).get("record");
                if (record != null && !fired.get(i)) {
                    run.lateRecordAt(i, new Element(record.get("key").asText(), record.get("value").asLong(),
                            record.get("ts").asLong()), false);
                }
            }
        }
        super.finish();
    }
}

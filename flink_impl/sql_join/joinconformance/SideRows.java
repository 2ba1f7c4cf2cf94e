package joinconformance;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.types.Row;

/**
 * One input of a SQL join case as the stream its table is declared on: the replay's records of that input as rows
 * {@code (k, v, idx)} with their timestamps, and what that input's valve lets out as the stream's own watermarks and
 * statuses (the table's {@code SOURCE_WATERMARK()}). Chained behind the replay, in its thread.
 */
final class SideRows extends AbstractStreamOperator<Row> implements OneInputStreamOperator<Tagged, Row> {
    private final int input;

    SideRows(int input) {
        this.input = input;
    }

    @Override
    public void processElement(StreamRecord<Tagged> record) {
        Tagged t = record.getValue();
        if (t.input != input) {
            return;
        }
        switch (t.kind) {
            case Tagged.RECORD:
                output.collect(new StreamRecord<>(Row.of(t.key, t.value),
                        record.getTimestamp()));
                break;
            case Tagged.WATERMARK:
                output.emitWatermark(new Watermark(t.value));
                break;
            case Tagged.WATERMARK_STATUS:
                output.emitWatermarkStatus(t.value != 0 ? WatermarkStatus.IDLE : WatermarkStatus.ACTIVE);
                break;
            default:
                throw new IllegalStateException("unknown event kind " + t.kind);
        }
    }

    @Override
    public void processWatermark(Watermark mark) {
        // The replay's own end: only the case's valves say what time it is.
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) {
        // Likewise.
    }
}

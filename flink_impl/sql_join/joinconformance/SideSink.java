package joinconformance;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;

/**
 * The end of one input's planned operators (the table's conversion, its {@code Calc}s and window table function):
 * what arrives here is what the planner's exchange would carry to the join's input, and it goes to that input of the
 * case's {@link HostedJoin} at once, in the same thread ({@code processElement1/2}, {@code processWatermark1/2},
 * {@code processWatermarkStatus1/2}). Each row is made binary by the input's serializer, as the exchange's
 * serialization makes it (the join reads {@code window_end} with {@code getLong}, which only a binary row answers for a
 * timestamp column).
 */
final class SideSink extends AbstractStreamOperator<Void> implements OneInputStreamOperator<RowData, Void> {
    private final int caseId;
    private final int input;
    private final RowDataSerializer serializer;

    SideSink(int caseId, int input, RowDataSerializer serializer) {
        this.caseId = caseId;
        this.input = input;
        this.serializer = serializer;
    }

    @Override
    public void processElement(StreamRecord<RowData> record) throws Exception {
        RowData binary = serializer.toBinaryRow(record.getValue()).copy();
        HostedJoin.of(caseId).element(input, record.hasTimestamp() ? new StreamRecord<>(binary, record.getTimestamp())
                : new StreamRecord<>(binary));
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        HostedJoin.of(caseId).watermark(input, mark);
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) throws Exception {
        HostedJoin.of(caseId).status(input, status);
    }
}

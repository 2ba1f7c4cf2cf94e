package joinconformance;

import java.lang.reflect.Field;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.flink.api.common.eventtime.IndexedCombinedWatermarkStatus;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.StreamTaskStateInitializer;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeServiceAware;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.OutputTag;
import windowconformance.OutputShim;

/**
 * The join operator the planner made of a case's query ({@code WindowJoinOperator}, or the interval join's
 * {@code KeyedCoProcessOperatorWithWatermarkDelay} over {@code RowTimeIntervalJoin}), run in the replay's task.
 *
 * <p>The planner puts a hash exchange before each input of its two-input join, and a task reads its two input gates
 * in the order their buffers become available: the case's interleaving of the inputs would not survive. So the
 * operator is created from the planner's own factory ({@code createStreamOperator}: its setup, keyed state backend,
 * timers and metrics are Flink's, on this task), and each input's {@link SideSink} hands it what the exchange would
 * carry, in the case's order: {@code processElement1/2} (the key set from the planner's key selector of that input,
 * as a two-input task sets it), {@code processWatermark1/2}, {@code processWatermarkStatus1/2}. This operator's own
 * input carries nothing; it is keyed by the planner's key type so that the join's keyed state is.
 *
 * <p>Recorded: each row the join emits, at the event being replayed ({@link JoinRun#at}), with the join's current
 * watermark; the watermark of the two inputs combined as the operator combines it ({@code
 * IndexedCombinedWatermarkStatus}, as {@code AbstractStreamOperator.processWatermark1/2}); and a record the join
 * drops as late, by its own counters ({@code leftNumLateRecordsDropped}, {@code rightNumLateRecordsDropped}).
 */
final class HostedJoin implements OneInputStreamOperator<Tagged, Void> {
    private static final Map<Integer, HostedJoin> HOSTED = new ConcurrentHashMap<>();
    private static final String[] DROPPED = {"leftNumLateRecordsDropped", "rightNumLateRecordsDropped"};

    private final int caseId;
    private final TwoInputStreamOperator<RowData, RowData, RowData> join;
    private final KeySelector<RowData, ?>[] keys;
    private final JoinRows rows;
    private final IndexedCombinedWatermarkStatus combined = IndexedCombinedWatermarkStatus.forInputsCount(2);
    private long[] droppedSoFar = {0, 0};

    private HostedJoin(int caseId, TwoInputStreamOperator<RowData, RowData, RowData> join,
            KeySelector<RowData, ?>[] keys, JoinRows rows) {
        this.caseId = caseId;
        this.join = join;
        this.keys = keys;
        this.rows = rows;
    }

    static HostedJoin of(int caseId) {
        return HOSTED.get(caseId);
    }

    void element(int input, StreamRecord<RowData> record) throws Exception {
        join.setCurrentKey(keys[input].getKey(record.getValue()));
        if (input == 0) {
            join.processElement1(record);
        } else {
            join.processElement2(record);
        }
        long dropped = droppedCount(input);
        if (dropped != droppedSoFar[input]) {
            droppedSoFar[input] = dropped;
            JoinRun run = JoinRun.get(caseId);
            run.dropped.add(rows.dropped(run.at, input, record));
        }
    }

    void watermark(int input, Watermark mark) throws Exception {
        if (combined.updateWatermark(input, mark.getTimestamp())) {
            observe(combined.getCombinedWatermark());
        }
        if (input == 0) {
            join.processWatermark1(mark);
        } else {
            join.processWatermark2(mark);
        }
    }

    void status(int input, WatermarkStatus status) throws Exception {
        if (combined.updateStatus(input, status.isIdle())) {
            observe(combined.getCombinedWatermark());
        }
        if (input == 0) {
            join.processWatermarkStatus1(status);
        } else {
            join.processWatermarkStatus2(status);
        }
    }

    private void observe(long watermark) {
        JoinRun run = JoinRun.get(caseId);
        run.watermark = watermark;
        run.watermarks.add("[" + run.at + "," + watermark + "]");
    }

    /** The join's counter of late records of one input (0 for a join that counts none: the interval join). */
    private long droppedCount(int input) throws ReflectiveOperationException {
        Field metrics = AbstractMetricGroup.class.getDeclaredField("metrics");
        metrics.setAccessible(true);
        Metric counter = ((Map<String, Metric>) metrics.get(join.getMetricGroup())).get(DROPPED[input]);
        return counter == null ? 0 : ((Counter) counter).getCount();
    }

    // --- the hosted operator's life: the task's calls, handed on -------------------------------------------

    @Override
    public void open() throws Exception {
        HOSTED.put(caseId, this);
        join.open();
    }

    @Override
    public void finish() throws Exception {
        join.finish();
    }

    @Override
    public void close() throws Exception {
        join.close();
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        join.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public OperatorSnapshotFutures snapshotState(long checkpointId, long timestamp, CheckpointOptions options,
            CheckpointStreamFactory factory) throws Exception {
        return join.snapshotState(checkpointId, timestamp, options, factory);
    }

    @Override
    public void initializeState(StreamTaskStateInitializer initializer) throws Exception {
        join.initializeState(initializer);
    }

    @Override
    public void setKeyContextElement1(StreamRecord<?> record) {
        // Nothing arrives on this operator's own input.
    }

    @Override
    public void setKeyContextElement2(StreamRecord<?> record) {
        // Likewise.
    }

    @Override
    public void setKeyContextElement(StreamRecord<Tagged> record) {
        // Likewise.
    }

    @Override
    public OperatorMetricGroup getMetricGroup() {
        return join.getMetricGroup();
    }

    @Override
    public OperatorID getOperatorID() {
        return join.getOperatorID();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        join.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void setCurrentKey(Object key) {
        join.setCurrentKey(key);
    }

    @Override
    public Object getCurrentKey() {
        return join.getCurrentKey();
    }

    @Override
    public void processElement(StreamRecord<Tagged> record) {
        throw new IllegalStateException("the hosted join's own input carries nothing");
    }

    @Override
    public void processWatermark(Watermark mark) {
        // The replay's end, on this operator's own input: the sides' sinks bring the case's watermarks.
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) {
        // Likewise.
    }

    @Override
    public void processLatencyMarker(LatencyMarker marker) {
        // None are sent.
    }

    /** Makes the hosted join from the planner's factory, on this operator's task, config and keyed state. */
    static final class Factory extends AbstractStreamOperatorFactory<Void>
            implements OneInputStreamOperatorFactory<Tagged, Void> {
        private final int caseId;
        private final StreamOperatorFactory<RowData> planned;
        private final KeySelector<RowData, ?>[] keys;
        private final JoinRows rows;

        Factory(int caseId, StreamOperatorFactory<RowData> planned, KeySelector<RowData, ?>[] keys, JoinRows rows) {
            this.caseId = caseId;
            this.planned = planned;
            this.keys = keys;
            this.rows = rows;
            setChainingStrategy(ChainingStrategy.ALWAYS);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T extends StreamOperator<Void>> T createStreamOperator(StreamOperatorParameters<Void> parameters) {
            StreamOperatorParameters<RowData> hosted = new StreamOperatorParameters<>(parameters.getContainingTask(),
                    parameters.getStreamConfig(), new Recorder(caseId, rows), parameters::getProcessingTimeService,
                    parameters.getOperatorEventDispatcher(), parameters.getMailboxExecutor());
            if (planned instanceof ProcessingTimeServiceAware) {
                // Flink 2.x's SimpleOperatorFactory takes the service from the parameters, Flink 1.20's from its own
                // field, which the task sets only on the factory it sees: this one.
                ((ProcessingTimeServiceAware) planned).setProcessingTimeService(parameters.getProcessingTimeService());
            }
            TwoInputStreamOperator<RowData, RowData, RowData> join = planned.createStreamOperator(hosted);
            return (T) new HostedJoin(caseId, join, keys, rows);
        }

        @Override
        public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
            return HostedJoin.class;
        }
    }

    /**
     * What the join emits: its rows, recorded; its watermarks (the combined ones are recorded on arrival). Its
     * generalized watermarks (2.x's {@code WatermarkEvent}) are the release's shim's ({@link OutputShim}).
     */
    static final class Recorder extends OutputShim<StreamRecord<RowData>> {
        private final int caseId;
        private final JoinRows rows;

        Recorder(int caseId, JoinRows rows) {
            this.caseId = caseId;
            this.rows = rows;
        }

        @Override
        public void collect(StreamRecord<RowData> record) {
            JoinRun run = JoinRun.get(caseId);
            run.outputs.add(rows.json(run.at, run.watermark, record));
        }

        @Override
        public void emitWatermark(Watermark mark) {}

        @Override
        public void emitWatermarkStatus(WatermarkStatus status) {}

        @Override
        public <X> void collect(OutputTag<X> tag, StreamRecord<X> record) {
            throw new UnsupportedOperationException("a SQL join has no side output");
        }

        @Override
        public void emitLatencyMarker(LatencyMarker marker) {}

        @Override
        public void emitRecordAttributes(RecordAttributes attributes) {}

        @Override
        public void close() {}
    }
}

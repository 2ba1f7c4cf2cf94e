package windowconformance;

import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;

import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OperatorAttributes;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.operators.StreamTaskStateInitializer;
import org.apache.flink.streaming.api.operators.YieldingOperator;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.window.groupwindow.operator.WindowOperator;

/**
 * The legacy group window's aggregate (the table runtime's {@code WindowOperator}, which the planner's
 * {@code StreamExecGroupWindowAggregate} puts in a {@code SimpleOperatorFactory}) on the case's processing-time
 * clock instead of its task's wall clock: its trigger's processing-time timers ({@code ProcessingTimeTriggers.every},
 * an early or late firing of delay above 0) fire where the case's {@code processing_time} events say.
 *
 * <p>The clock: the operator is built by its own factory with the case's service ({@link CaseProcessingTime}), handed
 * over as {@link CaseClockWatermarkAssigner} hands it to the WATERMARK clause's assigner; its timer service, state and
 * trigger contexts are Flink's own.
 *
 * <p>When the clock moves: the aggregate runs in the task behind the {@code GROUP BY}'s hash exchange, so it cannot
 * follow the replay's thread; it follows its own input instead. One channel (parallelism 1) brings the case's
 * records and watermarks in the order the replay emitted them, so the n-th record is the case's n-th record event,
 * and a watermark is the event during which the window operator's input received it ({@link
 * CaseRun#eventOfWatermark}). Before the operator takes an element of event i, the clock moves through every
 * {@code processing_time} event before i it has not passed, in order, firing the timers each makes due, as the
 * replay moves the DataStream window operator's clock during that event; after the element, a timer already past is
 * due at once ({@link CaseProcessingTime#fireDue}). Nothing the operator emits depends on when its clock moves
 * between two of its inputs, so this is the order Flink's task gives them when the clock moves at the case's event.
 * A firing a timer makes is the case's at that {@code processing_time} event ({@link CaseRun#aggregateAt}, which
 * {@link SqlFirings}, chained behind the aggregate, reads).
 *
 * <p>What was dropped: a record the operator drops (every window it falls in late, or no window at all) is counted
 * by its {@code numLateRecordsDropped} ({@code WindowOperator.getNumLateRecordsDropped}, "visible for testing"), so
 * the record that moved the counter is recorded as dropped during its own event. No firing need ever hold a record
 * the operator kept: under a late firing of delay above 0, a late record that came after the window's last
 * periodic firing is cleared with the window at its cleanup time, unemitted, and not dropped.
 *
 * <p>The operator is wrapped, every call handed on, because only its input says where the case is.
 */
final class CaseClockWindowAggregate extends AbstractStreamOperatorFactory<RowData>
        implements OneInputStreamOperatorFactory<RowData, RowData> {
    private static final long serialVersionUID = 1L;
    private final SimpleOperatorFactory<RowData> planned;
    private final int caseId;

    private CaseClockWindowAggregate(SimpleOperatorFactory<RowData> planned, int caseId) {
        this.planned = planned;
        this.caseId = caseId;
        setChainingStrategy(planned.getChainingStrategy());
    }

    /** The stream graph nodes of the cases' window aggregates (their transformations' ids), with their cases' ids. */
    static final class Planned {
        private final Map<Integer, Integer> aggregates = new HashMap<>();

        /** Remembers the window aggregate the planner put before {@code emitted}. */
        void add(DataStream<?> emitted, CaseRun run) {
            for (Transformation<?> t : emitted.getTransformation().getTransitivePredecessors()) {
                if (t instanceof OneInputTransformation && ((OneInputTransformation<?, ?>) t).getOperatorFactory()
                        instanceof SimpleOperatorFactory && ((SimpleOperatorFactory<?>) ((OneInputTransformation<?, ?>) t)
                        .getOperatorFactory()).getOperator() instanceof WindowOperator) {
                    aggregates.put(t.getId(), run.id);
                    return;
                }
            }
            throw new IllegalStateException("case " + run.id + ": the planner made no group window WindowOperator");
        }

        /** Puts every remembered window aggregate of the job on its case's clock. */
        @SuppressWarnings("unchecked")
        void onCaseClock(StreamGraph graph) {
            aggregates.forEach((node, caseId) -> {
                StreamNode aggregate = graph.getStreamNode(node);
                StreamNodeShim.setOperatorFactory(aggregate, new CaseClockWindowAggregate(
                        (SimpleOperatorFactory<RowData>) aggregate.getOperatorFactory(), caseId));
            });
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T extends StreamOperator<RowData>> T createStreamOperator(StreamOperatorParameters<RowData> task) {
        CaseProcessingTime caseService = new CaseProcessingTime();
        planned.setProcessingTimeService(caseService);
        OneInputStreamOperator<RowData, RowData> operator = planned.createStreamOperator(
                new StreamOperatorParameters<>(task.getContainingTask(), task.getStreamConfig(), task.getOutput(),
                        () -> caseService, task.getOperatorEventDispatcher(), task.getMailboxExecutor()));
        return (T) new OnCaseClock(operator, CaseRun.get(caseId), caseService);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
        return planned.getStreamOperatorClass(classLoader);
    }

    /** The window operator, its clock moved before each input as the case says (class comment). */
    private static final class OnCaseClock implements OneInputStreamOperator<RowData, RowData>,
            YieldingOperator<RowData> {
        private static final long serialVersionUID = 1L;
        private final OneInputStreamOperator<RowData, RowData> operator;
        private final transient CaseRun run;
        private final transient CaseProcessingTime clock;
        private transient Counter dropped;
        /** The indexes of the case's record events, and of its {@code processing_time} events with their times. */
        private final int[] recordEvents;
        private final int[] clockEvents;
        private final long[] clockTimes;
        private int records;
        private int clockMoves;

        OnCaseClock(OneInputStreamOperator<RowData, RowData> operator, CaseRun run, CaseProcessingTime clock) {
            this.operator = operator;
            this.run = run;
            this.clock = clock;
            JsonNode events = run.spec.get("events");
            int recordCount = 0;
            int clockCount = 0;
            for (JsonNode e : events) {
                recordCount += e.has("record") ? 1 : 0;
                clockCount += e.has("processing_time") ? 1 : 0;
            }
            recordEvents = new int[recordCount];
            clockEvents = new int[clockCount];
            clockTimes = new long[clockCount];
            recordCount = 0;
            clockCount = 0;
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i).has("record")) {
                    recordEvents[recordCount++] = i;
                } else if (events.get(i).has("processing_time")) {
                    clockEvents[clockCount] = i;
                    clockTimes[clockCount++] = events.get(i).get("processing_time").asLong();
                }
            }
        }

        /** The clock moves through the case's {@code processing_time} events before event {@code at}. */
        private void before(int at) throws Exception {
            while (clockMoves < clockEvents.length && clockEvents[clockMoves] < at) {
                run.aggregateAt = clockEvents[clockMoves];
                try {
                    clock.advanceTo(clockTimes[clockMoves++]);
                } finally {
                    run.aggregateAt = -1;
                }
            }
        }

        /** A timer the element at event {@code at} registered already past fires at once. */
        private void after(int at) throws Exception {
            run.aggregateAt = at;
            try {
                clock.fireDue();
            } finally {
                run.aggregateAt = -1;
            }
        }

        @Override
        public void processElement(StreamRecord<RowData> record) throws Exception {
            if (records == recordEvents.length) {
                throw new IllegalStateException("case " + run.id + ": more records than the case has");
            }
            int at = recordEvents[records++];
            before(at);
            operator.setKeyContextElement(record); // a timer that fired set its own key
            long droppedBefore = dropped.getCount();
            operator.processElement(record);
            if (dropped.getCount() > droppedBefore) {
                JsonNode r = run.spec.get("events").get(at).get("record");
                run.lateRecordAt(at, new Element(r.get("key").asText(), r.get("value").asLong(), r.get("ts").asLong()),
                        false);
            }
            after(at);
        }

        @Override
        public void processWatermark(Watermark mark) throws Exception {
            Integer at = run.eventOfWatermark(mark.getTimestamp());
            if (at == null) {
                throw new IllegalStateException("case " + run.id + ": a watermark the case never emitted: "
                        + mark.getTimestamp());
            }
            before(at);
            operator.processWatermark(mark);
            after(at);
        }

        @Override
        public void setKeyContextElement(StreamRecord<RowData> record) throws Exception {
            operator.setKeyContextElement(record);
        }

        @Override
        public void processWatermarkStatus(WatermarkStatus status) throws Exception {
            operator.processWatermarkStatus(status);
        }

        @Override
        public void processLatencyMarker(LatencyMarker latencyMarker) throws Exception {
            operator.processLatencyMarker(latencyMarker);
        }

        @Override
        public void processRecordAttributes(RecordAttributes recordAttributes) throws Exception {
            operator.processRecordAttributes(recordAttributes);
        }

        @Override
        public void setMailboxExecutor(MailboxExecutor mailboxExecutor) {
            if (operator instanceof YieldingOperator) {
                ((YieldingOperator<?>) operator).setMailboxExecutor(mailboxExecutor);
            }
        }

        @Override
        public void open() throws Exception {
            operator.open();
            Method counter = WindowOperator.class.getDeclaredMethod("getNumLateRecordsDropped");
            counter.setAccessible(true);
            dropped = (Counter) counter.invoke(operator);
        }

        @Override
        public void finish() throws Exception {
            operator.finish();
        }

        @Override
        public void close() throws Exception {
            operator.close();
        }

        @Override
        public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
            operator.prepareSnapshotPreBarrier(checkpointId);
        }

        @Override
        public OperatorSnapshotFutures snapshotState(long checkpointId, long timestamp, CheckpointOptions options,
                                                     CheckpointStreamFactory storageLocation) throws Exception {
            return operator.snapshotState(checkpointId, timestamp, options, storageLocation);
        }

        @Override
        public void initializeState(StreamTaskStateInitializer streamTaskStateManager) throws Exception {
            operator.initializeState(streamTaskStateManager);
        }

        @Override
        public void setKeyContextElement1(StreamRecord<?> record) throws Exception {
            operator.setKeyContextElement1(record);
        }

        @Override
        public void setKeyContextElement2(StreamRecord<?> record) throws Exception {
            operator.setKeyContextElement2(record);
        }

        @Override
        public OperatorMetricGroup getMetricGroup() {
            return operator.getMetricGroup();
        }

        @Override
        public OperatorID getOperatorID() {
            return operator.getOperatorID();
        }

        @Override
        public OperatorAttributes getOperatorAttributes() {
            return operator.getOperatorAttributes();
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            operator.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            operator.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void setCurrentKey(Object key) {
            operator.setCurrentKey(key);
        }

        @Override
        public Object getCurrentKey() {
            return operator.getCurrentKey();
        }
    }
}

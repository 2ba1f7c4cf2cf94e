package windowconformance;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * Adds one case to a job as a Flink SQL user's job: the case's events become a table, the query of its window runs
 * on it, and what the query emits is recorded.
 *
 * <p>source -> {@link EventReplayOperator} -> {@link SqlRecord}s -> {@code fromDataStream} -> the query ->
 * {@code toDataStream} -> {@link SqlFirings}.
 *
 * <ul>
 *   <li>The records and watermarks are the DataStream harness's own replay (its channels merged by Flink's
 *       {@code StatusWatermarkValve}), so the table's source emits exactly the watermarks the case lists: the
 *       table's rowtime is the record's timestamp ({@code columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")}) and its
 *       watermark the source's ({@code watermark("rowtime", "SOURCE_WATERMARK()")}), as a table declared on a
 *       source that emits its own watermarks.</li>
 *   <li>The key is the column {@code k}: {@code GROUP BY k} (the planner puts a hash exchange before the aggregate,
 *       as {@code keyBy} does).</li>
 *   <li>The case's {@code allowed_lateness} is {@code table.exec.emit.allow-lateness}, set while the query is
 *       planned ({@code toDataStream} plans it at once), as a user moving {@code allowedLateness} to SQL sets it.</li>
 * </ul>
 *
 * <p>What Flink rejects while planning (the query's validation) throws here: the case's {@code invalid_spec}.
 */
final class SqlBranch {
    private SqlBranch() {}

    private static final TypeInformation<Element> ELEMENT_TYPE = TypeInformation.of(Element.class);
    private static final TypeInformation<SqlRecord> RECORD_TYPE = TypeInformation.of(SqlRecord.class);
    static final String ALLOW_LATENESS = "table.exec.emit.allow-lateness";

    static void add(StreamTableEnvironment tables, DataStream<ReplayEvent> source, CaseRun run) {
        String name = "case_" + run.id;
        // The replay moves the window operator's processing-time clock on a processing_time event; the SQL
        // implementations declare no processing time, and the window aggregate keeps its task's own service.
        run.processingTime = new CaseProcessingTime();
        DataStream<Element> replayed = source.transform(name + "-replay", ELEMENT_TYPE,
                new EventReplayOperator(run.id, run.spec.get("end_of_input").asBoolean()));
        DataStream<SqlRecord> records = replayed.map(new AtEvent(run.id), RECORD_TYPE).name(name + "-records");
        Table table = tables.fromDataStream(records, Schema.newBuilder()
                .columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")
                .watermark("rowtime", "SOURCE_WATERMARK()")
                .build());
        tables.createTemporaryView(name, table);
        tables.getConfig().set(ALLOW_LATENESS, run.spec.get("allowed_lateness").asLong() + " ms");
        DataStream<Row> emitted = tables.toDataStream(tables.sqlQuery(
                SqlQueries.windowTableFunction(run.spec.get("window"), name)));
        emitted.transform(name + "-firings", Types.VOID, new SqlFirings(run.id));
    }

    /** The record with the index of the event being replayed (chained to the replay: the same thread). */
    static final class AtEvent implements MapFunction<Element, SqlRecord> {
        private final int caseId;

        AtEvent(int caseId) {
            this.caseId = caseId;
        }

        @Override
        public SqlRecord map(Element e) {
            return new SqlRecord(e.key, e.value, CaseRun.get(caseId).at);
        }
    }
}

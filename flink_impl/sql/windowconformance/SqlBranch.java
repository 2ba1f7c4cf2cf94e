package windowconformance;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * Adds one case to a job as a Flink SQL user's job: the case's events become a table, the query of its window runs
 * on it, and what the query emits is recorded.
 *
 * <p>source -> {@link EventReplayOperator} -> {@link SqlRecord}s -> {@code fromDataStream} -> the query ->
 * {@code toChangelogStream} -> {@link SqlFirings}.
 *
 * <ul>
 *   <li>The records and watermarks are the DataStream harness's own replay (its channels merged by Flink's
 *       {@code StatusWatermarkValve}), so the table's source emits exactly the watermarks the case lists: the
 *       table's rowtime is the record's timestamp ({@code columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")}) and its
 *       watermark the source's ({@code watermark("rowtime", "SOURCE_WATERMARK()")}), as a table declared on a
 *       source that emits its own watermarks; a case with a watermark generator declares it as the table's
 *       {@code WATERMARK} clause instead ({@link SqlWatermarkClause}), and the replay makes no watermark.</li>
 *   <li>The key is the column {@code k}: {@code GROUP BY k} (the planner puts a hash exchange before the aggregate,
 *       as {@code keyBy} does).</li>
 *   <li>The case's {@code allowed_lateness} is the dialect's emit settings ({@link SqlApi}), set while the query
 *       is planned ({@code toChangelogStream} plans it at once).</li>
 * </ul>
 *
 * <p>What Flink rejects while planning (the query's validation) throws here: the case's {@code invalid_spec}.
 */
final class SqlBranch {
    private SqlBranch() {}

    private static final TypeInformation<Element> ELEMENT_TYPE = TypeInformation.of(Element.class);
    private static final TypeInformation<SqlRecord> RECORD_TYPE = TypeInformation.of(SqlRecord.class);
    /** The name of the case's table in its query. */
    static final String TABLE = "events";

    /** Adds {@code run}'s branch; returns what its query emits. */
    static DataStream<Row> add(StreamTableEnvironment tables, DataStream<ReplayEvent> source, CaseRun run, SqlApi api,
                               SqlWatermarkClause clause) {
        String name = "case-" + run.id;
        // The replay moves the window operator's processing-time clock on a processing_time event; the SQL
        // implementations declare no processing time, and the window aggregate keeps its task's own service.
        run.processingTime = new CaseProcessingTime();
        DataStream<Element> replayed = source.transform(name + "-replay", ELEMENT_TYPE,
                new EventReplayOperator(run.id, run.spec.get("end_of_input").asBoolean(), false,
                        GeneratorSpec.of(run.spec) != null));
        DataStream<SqlRecord> records = replayed.map(new AtEvent(run.id, run.spec.get("window")), RECORD_TYPE).name(name + "-records");
        Table table = tables.fromDataStream(records, Schema.newBuilder()
                .columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")
                .watermark("rowtime", SqlWatermarkClause.expression(run.spec))
                .build());
        // One name for every case's table, so that Flink's messages about a query name no case id; the query is
        // planned at once, so the view is not needed after it.
        tables.createTemporaryView(TABLE, table);
        DataStream<Row> emitted;
        SqlWatermarkClause.configure(tables, run.spec);
        try {
            emitted = tables.toChangelogStream(tables.sqlQuery(api.query(tables, run, TABLE)));
        } catch (RuntimeException rejected) {
            throw new IllegalArgumentException(rejection(rejected), rejected);
        } finally {
            tables.dropTemporaryView(TABLE);
        }
        clause.planned(emitted, run);
        emitted.transform(name + "-firings", Types.VOID, new SqlFirings(run.id, SqlApi.firesOnEveryElement(run),
                !api.aggregateOnCaseClock()));
        return emitted;
    }

    /**
     * Flink's message for a query it will not plan: its root cause's (a validation error wraps the validator's, the
     * optimizer's "Error while applying rule" wraps the rule's, naming plan nodes by counters), without the plan it
     * prints with a query it cannot plan (the plan names the job's anonymous tables by a counter too: both depend on
     * the cases planned before).
     */
    static String rejection(RuntimeException rejected) {
        String message = String.valueOf(CaseRun.rootCause(rejected).getMessage());
        StringBuilder kept = new StringBuilder();
        for (String paragraph : message.split("\n\n")) {
            if (!paragraph.startsWith("FlinkLogical")) {
                kept.append(kept.length() == 0 ? "" : "\n\n").append(paragraph);
            }
        }
        return kept.toString();
    }

    /**
     * The record with the index of the event being replayed (chained to the replay: the same thread), and the
     * contract's limit on the windows of one element ({@code WINDOWS_PER_ELEMENT_LIMIT}): a record that a sliding or
     * cumulative window puts in more windows stops the case there, as {@link WrappedAssignmentLimit} stops a
     * DataStream case. Sliding windows are counted as both SQL assigners make them, with the DataStream API's loop
     * ({@code for (start = lastStart; start > ts - size; start -= slide)}, which the legacy
     * {@code SlidingWindowAssigner} runs too, and which yields {@code size / slide} windows for the sizes {@code HOP}
     * accepts, as its slices do); cumulative ones as {@code CumulativeWindowAssigner} makes them, every {@code step}
     * from the end of the record's step to the end of its period: {@code (start + size - firstEnd) / step + 1}. SQL's
     * intervals (999,999 days at most) keep the loop and the sums from wrapping.
     */
    static final class AtEvent implements MapFunction<Element, SqlRecord> {
        private final int caseId;
        private final String assigner;
        private final long size;
        private final long slide;
        private final long step;
        private final long offset;

        AtEvent(int caseId, JsonNode window) {
            this.caseId = caseId;
            this.assigner = window.get("assigner").asText();
            this.size = window.path("size").asLong();
            this.slide = window.path("slide").asLong();
            this.step = window.path("step").asLong();
            this.offset = window.path("offset").asLong(0);
        }

        @Override
        public SqlRecord map(Element e) {
            CaseRun run = CaseRun.get(caseId);
            if (windows(e.ts, run.wrappedWindowsLimit) > run.wrappedWindowsLimit) {
                throw new IllegalStateException(run.tooManyWindows);
            }
            return new SqlRecord(e.key, e.value, run.at);
        }

        /** How many windows hold {@code ts}, sliding ones counted up to one past {@code limit}. */
        private long windows(long ts, int limit) {
            switch (assigner) {
                case "sliding":
                    int count = 0;
                    for (long start = TimeWindow.getWindowStartWithOffset(ts, offset, slide);
                         start > ts - size && count <= limit; start -= slide) {
                        count++;
                    }
                    return count;
                case "cumulative":
                    long start = TimeWindow.getWindowStartWithOffset(ts, offset, size);
                    long firstEnd = TimeWindow.getWindowStartWithOffset(ts, offset, step) + step;
                    return (start + size - firstEnd) / step + 1;
                default:
                    return 1;
            }
        }
    }
}

package windowconformance;

import java.time.ZoneOffset;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Flink SQL as the API of the cases' jobs: one {@link StreamTableEnvironment} per job, in streaming mode, on the
 * job's environment (parallelism 1), its session time zone UTC, so that a {@code TIMESTAMP_LTZ} rowtime's windows
 * align on the epoch as the DataStream API's do (the default is the JVM's zone, a clock the case does not set).
 *
 * <p>Two dialects, because Flink runs them with different operators and rules:
 * <ul>
 *   <li>{@code sql}: window table functions ({@link SqlQueries#windowTableFunction}), aggregated by the table
 *       runtime's {@code WindowAggOperator} (slicing); the case's allowed lateness is
 *       {@code table.exec.emit.allow-lateness}, their one lateness setting, which they ignore (with
 *       {@code table.exec.emit.late-fire.*} as well, the planner rejects the query);</li>
 *   <li>{@code sql-legacy}: the legacy group windows ({@link SqlQueries#groupWindow}), aggregated by the table
 *       runtime's own {@code WindowOperator}; an allowed lateness is {@code table.exec.emit.allow-lateness} with
 *       {@code table.exec.emit.late-fire.enabled} and a {@code late-fire.delay} of 0, the emit strategy
 *       ({@code WindowEmitStrategy}) whose late trigger fires on every late element, as {@code EventTimeTrigger}
 *       fires a window again for every record within the allowed lateness.</li>
 * </ul>
 *
 * <p>The window aggregate runs in a task of its own, behind the hash exchange a {@code GROUP BY} puts before it, so
 * the replay operator does not see its failures, nor when its last output has arrived
 * ({@link #branchesRunInTheReplayThread}).
 */
final class SqlApi implements Api {
    static final String ALLOW_LATENESS = "table.exec.emit.allow-lateness";
    static final String LATE_FIRE = "table.exec.emit.late-fire.enabled";
    static final String LATE_FIRE_DELAY = "table.exec.emit.late-fire.delay";

    private final boolean legacy;

    SqlApi(String name) {
        if (!name.equals("sql") && !name.equals("sql-legacy")) {
            throw new IllegalArgumentException("unknown API " + name);
        }
        this.legacy = name.equals("sql-legacy");
    }

    @Override
    public Branches forJob(StreamExecutionEnvironment env) {
        StreamTableEnvironment tables = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tables.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        SqlWatermarkClause clause = new SqlWatermarkClause();
        return new Branches() {
            @Override
            public void add(DataStream<ReplayEvent> source, CaseRun run) {
                SqlBranch.add(tables, source, run, SqlApi.this, clause);
            }

            @Override
            public void complete(StreamGraph graph) {
                clause.onCaseClock(graph);
            }
        };
    }

    /** A WATERMARK clause's emission interval, {@code pipeline.auto-watermark-interval}: the job's. */
    @Override
    public Long watermarkInterval(CaseRun run) {
        GeneratorSpec generator = GeneratorSpec.of(run.spec);
        return generator == null || generator.interval() < 0 ? null : generator.interval(); // < 0: invalid_spec
    }

    /** The case's query over {@code table}, planned with the case's lateness settings. */
    String query(StreamTableEnvironment tables, CaseRun run, String table) {
        long lateness = run.spec.get("allowed_lateness").asLong();
        tables.getConfig().set(ALLOW_LATENESS, lateness + " ms");
        if (!legacy) {
            return SqlQueries.windowTableFunction(run.spec.get("window"), table);
        }
        tables.getConfig().set(LATE_FIRE, String.valueOf(lateness != 0));
        tables.getConfig().set(LATE_FIRE_DELAY, "0 ms");
        return SqlQueries.groupWindow(run.spec.get("window"), table);
    }

    @Override
    public boolean branchesRunInTheReplayThread() {
        return false;
    }
}

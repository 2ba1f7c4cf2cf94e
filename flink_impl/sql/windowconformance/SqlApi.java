package windowconformance;

import java.time.Duration;
import java.time.ZoneOffset;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
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
 *       fires a window again for every record within the allowed lateness; a case whose trigger is
 *       {@code after_end_of_window} states the early and late firings itself ({@link #emitStrategy}).</li>
 * </ul>
 *
 * <p>The window aggregate runs in a task of its own, behind the hash exchange a {@code GROUP BY} puts before it, so
 * the replay operator does not see its failures, nor when its last output has arrived
 * ({@link #branchesRunInTheReplayThread}).
 */
final class SqlApi implements Api {
    static final String ALLOW_LATENESS = "table.exec.emit.allow-lateness";
    /** The planner's {@code WindowEmitStrategy} options, by their keys (the planner's classes are not ours to see). */
    static final ConfigOption<Duration> ALLOW_LATENESS_DURATION =
            ConfigOptions.key(ALLOW_LATENESS).durationType().noDefaultValue();
    static final ConfigOption<Boolean> EARLY_FIRE =
            ConfigOptions.key("table.exec.emit.early-fire.enabled").booleanType().defaultValue(false);
    static final ConfigOption<Duration> EARLY_FIRE_DELAY =
            ConfigOptions.key("table.exec.emit.early-fire.delay").durationType().noDefaultValue();
    static final ConfigOption<Boolean> LATE_FIRE =
            ConfigOptions.key("table.exec.emit.late-fire.enabled").booleanType().defaultValue(false);
    static final ConfigOption<Duration> LATE_FIRE_DELAY =
            ConfigOptions.key("table.exec.emit.late-fire.delay").durationType().noDefaultValue();

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
        CaseClockWindowAggregate.Planned aggregates = new CaseClockWindowAggregate.Planned();
        return new Branches() {
            @Override
            public void add(DataStream<ReplayEvent> source, CaseRun run) {
                DataStream<?> emitted = SqlBranch.add(tables, source, run, SqlApi.this, clause);
                if (aggregateOnCaseClock()) {
                    aggregates.add(emitted, run);
                }
            }

            @Override
            public void complete(StreamGraph graph) {
                clause.onCaseClock(graph);
                aggregates.onCaseClock(graph);
            }
        };
    }

    /** A WATERMARK clause's emission interval, {@code pipeline.auto-watermark-interval}: the job's. */
    @Override
    public Long watermarkInterval(CaseRun run) {
        GeneratorSpec generator = GeneratorSpec.of(run.spec);
        return generator == null || generator.interval() < 0 ? null : generator.interval(); // < 0: invalid_spec
    }

    /** The case's query over {@code table}, planned with the case's lateness and emit settings. */
    String query(StreamTableEnvironment tables, CaseRun run, String table) {
        long lateness = run.spec.get("allowed_lateness").asLong();
        tables.getConfig().set(ALLOW_LATENESS, lateness + " ms");
        if (!legacy) {
            return SqlQueries.windowTableFunction(run.spec.get("window"), table);
        }
        JsonNode emit = emitStrategy(run);
        if (emit == null) {
            tables.getConfig().set(EARLY_FIRE, false);
            tables.getConfig().set(LATE_FIRE, lateness != 0);
            tables.getConfig().set(LATE_FIRE_DELAY, Duration.ZERO);
        } else {
            tables.getConfig().set(ALLOW_LATENESS_DURATION, Duration.ofMillis(lateness));
            fireDelay(tables, EARLY_FIRE, EARLY_FIRE_DELAY, emit.get("early_firing_delay"));
            fireDelay(tables, LATE_FIRE, LATE_FIRE_DELAY, emit.get("late_firing_delay"));
        }
        return SqlQueries.groupWindow(run.spec.get("window"), table);
    }

    /**
     * The case's trigger when it is Flink SQL's emit strategy ({@code after_end_of_window}: {@code
     * EventTimeTriggers.afterEndOfWindow()} with the early and late firings of {@code table.exec.emit.*}), else
     * null: the legacy group window's own trigger, with a late firing of delay 0 for an allowed lateness.
     */
    static JsonNode emitStrategy(CaseRun run) {
        JsonNode trigger = run.spec.path("trigger");
        return trigger.path("type").asText().equals("after_end_of_window") ? trigger : null;
    }

    /**
     * A firing's options as a Table API user sets them, and the allowed lateness with them: on with its delay, a
     * {@link Duration} (a negative one is the planner's to reject, {@code WindowEmitStrategy}, where SQL's {@code SET}
     * could not write it), or off.
     */
    private static void fireDelay(StreamTableEnvironment tables, ConfigOption<Boolean> enabled,
                                  ConfigOption<Duration> delay, JsonNode millis) {
        boolean on = millis != null && !millis.isNull();
        tables.getConfig().set(enabled, on);
        if (on) {
            tables.getConfig().set(delay, Duration.ofMillis(millis.asLong()));
        }
    }

    /**
     * Whether every row of the case's query is a firing at an element: an early firing of delay 0 fires the window
     * on each of its elements ({@code ElementTriggers.every()}), and the on-time firing that follows finds the
     * result unchanged and emits nothing ({@code AggregateWindowOperator}'s updates).
     */
    static boolean firesOnEveryElement(CaseRun run) {
        JsonNode emit = emitStrategy(run);
        return emit != null && emit.path("early_firing_delay").isIntegralNumber()
                && emit.get("early_firing_delay").asLong() == 0;
    }

    /**
     * Whether the case's window aggregate runs on its clock and records what it drops ({@link
     * CaseClockWindowAggregate}): the legacy group windows' {@code WindowOperator}, whose emit strategy has
     * processing-time timers; the window table functions' {@code WindowAggOperator} has none on event time.
     */
    boolean aggregateOnCaseClock() {
        return legacy;
    }

    @Override
    public boolean branchesRunInTheReplayThread() {
        return false;
    }
}

package windowconformance;

import java.time.ZoneOffset;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Flink SQL as the API of the cases' jobs: one {@link StreamTableEnvironment} per job, in streaming mode, on the
 * job's environment (parallelism 1), its session time zone UTC, so that a {@code TIMESTAMP_LTZ} rowtime's windows
 * align on the epoch as the DataStream API's do (the default is the JVM's zone, a clock the case does not set).
 *
 * <p>{@code sql} writes each case's window as a window table function ({@link SqlQueries#windowTableFunction}).
 *
 * <p>The window aggregate runs in a task of its own, behind the hash exchange a {@code GROUP BY} puts before it, so
 * the replay operator does not see its failures ({@link #branchesRecordTheirFailures}).
 */
final class SqlApi implements Api {
    private final String name;

    SqlApi(String name) {
        if (!name.equals("sql")) {
            throw new IllegalArgumentException("unknown API " + name);
        }
        this.name = name;
    }

    @Override
    public Branches forJob(StreamExecutionEnvironment env) {
        StreamTableEnvironment tables = StreamTableEnvironment.create(env, EnvironmentSettings.inStreamingMode());
        tables.getConfig().setLocalTimeZone(ZoneOffset.UTC);
        return (source, run) -> SqlBranch.add(tables, source, run);
    }

    @Override
    public boolean branchesRecordTheirFailures() {
        return false;
    }
}

package windowconformance;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The API a case's job is written in, as a user would write it: the DataStream API's window operator
 * ({@link CaseBranch}, the {@code flink} implementations) or Flink SQL ({@code SqlApi} in flink_impl/sql, compiled
 * only into the SQL runner, with the table jars). The contract's {@code "api"} names it.
 */
interface Api {
    /** The branches of one job, whose environment is {@code env}. */
    Branches forJob(StreamExecutionEnvironment env);

    /**
     * Whether each branch runs in the replay's thread: true when the whole job is one thread, where the replay
     * operator sees every failure of its branch, and a case whose last event it has replayed has every output
     * recorded. Otherwise (a window aggregate behind an exchange, in a task of its own) a job that fails runs its
     * cases again, each in a job of its own, and a job of one case that fails is that case's failure; and a case
     * is complete only once its recorder has seen the end of its input, which follows its last output
     * ({@link CaseRun#outputsEnded}).
     */
    boolean branchesRunInTheReplayThread();

    /**
     * The job-wide {@code pipeline.auto-watermark-interval} the case's job must have (a SQL {@code WATERMARK} clause
     * reads it), or null when its job reads none: the cases of one job share it ({@link JobRunner#run}).
     */
    default Long watermarkInterval(CaseRun run) {
        return null;
    }

    /** Adds cases to one job. */
    interface Branches {
        /** Adds {@code run}'s branch, fed by the job's one source; throws what Flink throws for an invalid spec. */
        void add(DataStream<ReplayEvent> source, CaseRun run);

        /** Changes the job's stream graph, its branches all added, before its job graph is made. */
        default void complete(StreamGraph graph) {}
    }

    /** The DataStream API: each case a keyed window of its own, chained into the job's one thread. */
    Api DATASTREAM = new Api() {
        @Override
        public Branches forJob(StreamExecutionEnvironment env) {
            return CaseBranch::add;
        }

        @Override
        public boolean branchesRunInTheReplayThread() {
            return true;
        }
    };

    /** The API the contract names: {@code datastream}, or one the SQL runner's {@code SqlApi} knows. */
    static Api named(String name) throws ReflectiveOperationException {
        if (name.equals("datastream")) {
            return DATASTREAM;
        }
        // Only the SQL runner is compiled with the SQL sources and run with the table jars.
        return (Api) Class.forName("windowconformance.SqlApi").getDeclaredConstructor(String.class).newInstance(name);
    }
}

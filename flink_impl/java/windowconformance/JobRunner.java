package windowconformance;

import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs cases in a running MiniCluster, many at a time as independent branches of one job.
 *
 * <p>A case whose branch fails makes the whole job fail. Each branch records its own failure
 * (see {@link EventReplayOperator}), so a failed case keeps what it emitted before the failure, and
 * the other cases of the job, whose runs the failure cut short, run again without it.
 */
final class JobRunner {
    private final MiniCluster cluster;
    private final Configuration jobConfiguration;
    private final int branchesPerJob;

    JobRunner(MiniCluster cluster, Configuration jobConfiguration, int branchesPerJob) {
        this.cluster = cluster;
        this.jobConfiguration = jobConfiguration;
        this.branchesPerJob = branchesPerJob;
    }

    void run(List<CaseRun> runs) throws Exception {
        for (int from = 0; from < runs.size(); from += branchesPerJob) {
            runJob(runs.subList(from, Math.min(runs.size(), from + branchesPerJob)));
        }
    }

    private void runJob(List<CaseRun> runs) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(jobConfiguration);
        env.setParallelism(1);
        List<CaseRun> running = new ArrayList<>();
        for (CaseRun run : runs) {
            if (addBranch(env, run)) {
                running.add(run);
            }
        }
        if (running.isEmpty()) {
            return;
        }
        try {
            cluster.executeJobBlocking(env.getStreamGraph().getJobGraph());
        } catch (JobExecutionException jobFailure) {
            rerunAfterFailure(running, jobFailure);
        }
    }

    /** False if Flink rejects the case's specification: then it is an invalid_spec case, not a branch. */
    private static boolean addBranch(StreamExecutionEnvironment env, CaseRun run) {
        List<Transformation<?>> transformations = env.getTransformations();
        int before = transformations.size();
        try {
            CaseBranch.add(env, run);
            return true;
        } catch (CaseBranch.UnsupportedCase e) {
            throw e;
        } catch (RuntimeException rejected) {
            transformations.subList(before, transformations.size()).clear();
            run.invalidSpec(rejected.getMessage());
            return false;
        }
    }

    private void rerunAfterFailure(List<CaseRun> running, JobExecutionException jobFailure) throws Exception {
        List<CaseRun> others = new ArrayList<>();
        for (CaseRun run : running) {
            if (!run.failed()) {
                others.add(run);
            }
        }
        if (others.size() == running.size()) {
            // No branch saw the failure happen: it is not a case's doing.
            throw jobFailure;
        }
        for (CaseRun run : others) {
            run.reset();
        }
        runJob(others);
    }
}

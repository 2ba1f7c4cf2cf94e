package windowconformance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Runs cases in a running MiniCluster, many at a time as independent branches of one job.
 *
 * <p>A case whose branch fails makes the whole job fail. Each branch records its own failure
 * (see {@link EventReplayOperator}), so a failed case keeps what it emitted before the failure, and
 * the other cases of the job, whose runs the failure cut short, run again without it.
 *
 * <p>Some cases never end in Flink either (a ContinuousEventTimeTrigger on the global window at the
 * end of input fires up to Long.MAX_VALUE). A job that does not finish within the timeout is
 * abandoned: its thread cannot be stopped, so the MiniCluster is spent ({@link #spent()}). A case
 * alone in its job gets an error saying so; the other unfinished cases must be retried alone in a
 * fresh runner.
 */
final class JobRunner {
    private final MiniCluster cluster;
    private final Configuration jobConfiguration;
    private final int branchesPerJob;
    private final long timeoutSeconds;
    private boolean spent;

    JobRunner(MiniCluster cluster, Configuration jobConfiguration, int branchesPerJob, long timeoutSeconds) {
        this.cluster = cluster;
        this.jobConfiguration = jobConfiguration;
        this.branchesPerJob = branchesPerJob;
        this.timeoutSeconds = timeoutSeconds;
    }

    /** True once a job was abandoned: its task thread still runs, the process must end. */
    boolean spent() {
        return spent;
    }

    void run(List<CaseRun> runs) throws Exception {
        for (int from = 0; from < runs.size(); from += branchesPerJob) {
            runJob(runs.subList(from, Math.min(runs.size(), from + branchesPerJob)));
        }
    }

    private void runJob(List<CaseRun> runs) throws Exception {
        if (spent) {
            runs.forEach(CaseRun::retryAlone);
            return;
        }
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
        JobID job = cluster.submitJob(env.getStreamGraph().getJobGraph()).get().getJobID();
        JobResult result;
        try {
            result = cluster.requestJobResult(job).get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (TimeoutException unfinished) {
            abandon(job, running);
            return;
        }
        try {
            result.toJobExecutionResult(getClass().getClassLoader());
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

    private void abandon(JobID job, List<CaseRun> running) {
        spent = true;
        cluster.cancelJob(job);
        for (CaseRun run : running) {
            if (run.finished() || run.failed()) {
                continue; // its outputs are complete: nothing happens after the end or a failure
            }
            if (running.size() == 1) {
                run.runtimeError(new TimeoutException("flink_impl stopped the case after " + timeoutSeconds
                        + " s: it did not finish (Flink would go on)"));
            } else {
                run.retryAlone();
            }
        }
    }
}

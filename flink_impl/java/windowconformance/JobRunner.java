package windowconformance;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeoutException;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * Runs cases in a running MiniCluster, many at a time as independent branches of one job.
 *
 * <p>The job is one thread that replays case after case (see {@link CaseBranch}). A case whose
 * branch fails makes the whole job fail. Each branch records its own failure (see
 * {@link EventReplayOperator}), so a failed case keeps what it emitted before the failure; the
 * cases that finished before it are complete, and those after it run again in a new job.
 *
 * <p>Some cases never end in Flink either (a ContinuousEventTimeTrigger on the global window at the
 * end of input whose fire times wrap past Long.MAX_VALUE, over a purged window: it emits nothing, so the
 * output limit never stops it), and some take longer than the timeout to end (a billion timers). A job
 * in which no case ends while the runner spends a whole timeout of CPU is abandoned: the case it was replaying gets
 * the contract's NEVER_ENDS (which is this runner's limit, not Flink's answer, for a burst that would end). Its thread
 * need not stop (Flink's timer loop checks for cancellation, a loop in user code does not), so the
 * MiniCluster is spent ({@link #spent()}) and the cases not yet replayed must run again in a fresh runner.
 *
 * <p>With an API whose window aggregate runs behind an exchange (SQL), a case whose replay has ended may still have
 * outputs on their way: a job abandoned then leaves every case whose recorder had not seen its end to run again, as
 * the cases not yet replayed, never a case cut short as if it were complete. A case that does so alone in its
 * request makes the runner's answer retry every case, which the suite takes as a failure to run it (the protocol's
 * "no progress"), as it takes a hang.
 */
final class JobRunner {
    /** How often a running job's cases are looked at: the job's result comes as soon as it is there. */
    private static final long SETTLED_POLL_MILLIS = 200;
    /** The runner's own CPU time, every thread of its JVM: what a case that never ends goes on spending. */
    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final MiniCluster cluster;
    private final Configuration jobConfiguration;
    private final Api api;
    private int branchesPerJob;
    private long timeoutSeconds;
    private boolean spent;

    JobRunner(MiniCluster cluster, Configuration jobConfiguration, Api api) {
        this.cluster = cluster;
        this.jobConfiguration = jobConfiguration;
        this.api = api;
    }

    /** True once a job was abandoned: its task thread still runs, the process must end. */
    boolean spent() {
        return spent;
    }

    /**
     * Runs the cases, at most {@code branchesPerJob} to a job, each job while its cases go on ending (one at least in
     * every timeout, {@link #resultWhileSettling}); a job holds cases in their order, and only cases whose jobs need
     * the same watermark interval ({@link Api#watermarkInterval}).
     */
    void run(List<CaseRun> runs, int branchesPerJob, long timeoutSeconds) throws Exception {
        this.branchesPerJob = branchesPerJob;
        this.timeoutSeconds = timeoutSeconds;
        int from = 0;
        Long interval = null;
        for (int i = 0; i < runs.size(); i++) {
            Long needed = api.watermarkInterval(runs.get(i));
            boolean clash = needed != null && interval != null && !needed.equals(interval);
            if (clash || i - from == branchesPerJob) {
                runJob(runs.subList(from, i));
                from = i;
                interval = null;
            }
            interval = needed != null ? needed : interval;
        }
        if (from < runs.size()) {
            runJob(runs.subList(from, runs.size()));
        }
    }

    private void runJob(List<CaseRun> runs) throws Exception {
        if (spent) {
            runs.forEach(CaseRun::retry);
            return;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(jobConfiguration);
        env.setParallelism(1);
        for (CaseRun run : runs) {
            Long interval = api.watermarkInterval(run);
            if (interval != null) {
                env.getConfig().setAutoWatermarkInterval(interval);
            }
        }
        DataStream<ReplayEvent> source = CaseBranch.source(env, runs);
        Api.Branches branches = api.forJob(env);
        List<CaseRun> running = new ArrayList<>();
        for (CaseRun run : runs) {
            if (addBranch(env, branches, source, run)) {
                running.add(run);
            }
        }
        if (running.isEmpty()) {
            return;
        }
        AtomicBoolean failed = new AtomicBoolean();
        running.forEach(run -> run.joinJob(failed));
        StreamGraph graph = env.getStreamGraph();
        branches.complete(graph);
        JobID job = cluster.submitJob(graph.getJobGraph()).get().getJobID();
        JobResult result = resultWhileSettling(job, running);
        if (result == null) {
            abandon(job, running);
            return;
        }
        try {
            result.toJobExecutionResult(getClass().getClassLoader());
        } catch (JobExecutionException jobFailure) {
            rerunAfterFailure(running, jobFailure);
        }
    }

    /**
     * The job's result, or null once the runner has spent a whole timeout of CPU since the job began or since one of
     * its cases last settled ({@link #complete}): a job that keeps settling cases is making progress, however slow the
     * machine and however many its cases; one that settles none while it computes is replaying a case that does not
     * end. CPU, not the wall's time: a job the machine gives no CPU (busy with other work, or stalled) spends none, and
     * is not replaying a case that never ends. (On a CI machine, two jobs of cases that end in milliseconds once
     * settled none for the 30 s of a timeout on the wall's time, a minute apart; a timeout on the whole job had told a
     * correct case late in a long job, at a slow hour, that it never ends.) A job that hangs without computing is
     * left to the suite's deadline on the request.
     */
    private JobResult resultWhileSettling(JobID job, List<CaseRun> running) throws Exception {
        CompletableFuture<JobResult> result = cluster.requestJobResult(job);
        long settled = 0;
        long since = cpuNanos();
        while (true) {
            try {
                return result.get(SETTLED_POLL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException unfinished) {
                long now = running.stream().filter(this::complete).count();
                if (now > settled) {
                    settled = now;
                    since = cpuNanos();
                } else if (cpuNanos() - since >= TimeUnit.SECONDS.toNanos(timeoutSeconds)) {
                    return null;
                }
            }
        }
    }

    /** The CPU time the runner's JVM has spent, in nanoseconds (Linux and HotSpot report it; -1 where not). */
    private static long cpuNanos() {
        long nanos = PROCESS.getProcessCpuTime();
        if (nanos < 0) {
            throw new IllegalStateException("this JVM does not report its process CPU time, which the job timeout counts");
        }
        return nanos;
    }

    /** False if Flink rejects the case's specification: then it is an invalid_spec case, not a branch. */
    private static boolean addBranch(StreamExecutionEnvironment env, Api.Branches branches,
                                     DataStream<ReplayEvent> source, CaseRun run) {
        List<Transformation<?>> transformations = env.getTransformations();
        int before = transformations.size();
        try {
            branches.add(source, run);
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
        // The first case that failed made the job fail; what ended or failed after it may have been cut short by
        // that. Flink 2.x stops the task thread at the failure; on Flink 1.20 a branch after the failing one was
        // seen to go on and end, its endless timer loop stopped by the task's cancellation as if it had ended. With
        // an API whose branches run in several threads, a case's replay may have ended while its outputs were
        // still on their way: only its failure is known.
        CaseRun first = null;
        for (CaseRun run : running) {
            if (run.failed() && (first == null || run.failedAt() < first.failedAt())) {
                first = run;
            }
        }
        List<CaseRun> cutShort = new ArrayList<>();
        for (CaseRun run : running) {
            boolean endedBefore = api.branchesRunInTheReplayThread() && run.finished()
                    && (first == null || run.finishedAt() < first.failedAt());
            if (run != first && !endedBefore) {
                cutShort.add(run);
            }
        }
        if (cutShort.size() == running.size()) {
            if (api.branchesRunInTheReplayThread()) {
                // No branch saw the failure happen: it is not a case's doing.
                throw jobFailure;
            }
            runApart(running, jobFailure);
            return;
        }
        for (CaseRun run : cutShort) {
            run.reset();
        }
        runJob(cutShort);
    }

    /**
     * A failed job of an API whose branches run in several threads, which no branch saw fail (its window aggregate
     * failed in a task of its own): each case runs again in a job of its own, and a job of one case that fails is
     * that case's failure.
     */
    private void runApart(List<CaseRun> running, JobExecutionException jobFailure) throws Exception {
        if (running.size() == 1) {
            running.get(0).runtimeError(jobFailure);
            return;
        }
        for (CaseRun run : running) {
            run.reset();
            runJob(List.of(run));
        }
    }

    /**
     * Settles every case of a job that timed out, then cancels the job. In that order: Flink's timer
     * loop ({@code InternalTimerServiceImpl.tryAdvanceWatermark}) stops when its task is cancelled and
     * returns as if it had ended, so the endless case would then look finished.
     *
     * <p>A case whose outputs are complete keeps them. In one thread, the case the replay had started and not
     * finished would never have ended; behind an exchange, a case is complete only once its recorder has seen its end,
     * and any other runs again: its replay may have ended while its window aggregate was still firing.
     */
    private void abandon(JobID job, List<CaseRun> running) {
        spent = true;
        int again = 0;
        for (CaseRun run : running) {
            if (complete(run)) {
                continue;
            }
            if (api.branchesRunInTheReplayThread() && run.started()) {
                run.stoppedForEver();
            } else {
                run.retry();
                again++;
            }
        }
        // The runner's stderr ends the suite's message when a request makes no progress (every case to run again).
        System.err.println("windowconformance: no case of a job ended in its timeout of " + timeoutSeconds + " s of CPU; "
                + again + " of its " + running.size() + " cases had not all their outputs: they are left to run again");
        cluster.cancelJob(job);
    }

    /** Whether every output of the case has been recorded: nothing happens after its end or a failure. */
    private boolean complete(CaseRun run) {
        return api.branchesRunInTheReplayThread() ? run.finished() || run.failed() : run.outputsEnded();
    }
}

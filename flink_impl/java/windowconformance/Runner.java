package windowconformance;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The long-lived process behind flink_impl: one MiniCluster, batches of cases in, observations out.
 *
 * <p>Protocol, one JSON document per line. The request {@code {"cases": [window-case/1, ...],
 * "limits": {"branches_per_job": n, "job_timeout_seconds": s, "output_limit": k}, "never_ends": message,
 * "wrapped_windows_limit": n, "too_many_windows": message}} (the contract's error messages for a case
 * stopped by the limits, and its limit on a sliding assignment that wraps around) is
 * answered by {@code {"observations": [window-observation/1 or null, ...], "retry": [i, ...],
 * "exiting": bool}} in the same order: {@code null} for a case that was not run because an earlier
 * case did not end, whose index is in {@code retry}; {@code exiting} when that made the process
 * unusable, so it ends after this answer. {@code {"failure": "..."}} when the runner could not run the batch.
 *
 * <p>stdout carries only the protocol (System.out is redirected to stderr, where Flink may log).
 * The end of stdin ends the process at once, even in the middle of a job: nobody waits for the
 * answer. The JVM is halted because a failed job leaves non-daemon threads behind.
 */
public final class Runner {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Optional<String> END_OF_INPUT = Optional.empty();

    public static void main(String[] args) {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BlockingQueue<Optional<String>> requests = readStdin();
        int status = 0;
        MiniCluster cluster = null;
        try {
            cluster = startCluster();
            JobRunner jobs = new JobRunner(cluster, jobConfiguration());
            Optional<String> line;
            while (!jobs.spent() && (line = requests.take()).isPresent()) {
                protocol.println(MAPPER.writeValueAsString(answer(jobs, line.get())));
                protocol.flush();
            }
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        } finally {
            closeQuietly(cluster);
            Runtime.getRuntime().halt(status);
        }
    }

    /** Requests as they come; at the end of stdin, a grace period to close the cluster, then halt. */
    private static BlockingQueue<Optional<String>> readStdin() {
        BlockingQueue<Optional<String>> requests = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    requests.add(Optional.of(line));
                }
            } catch (IOException e) {
                e.printStackTrace();
            }
            requests.add(END_OF_INPUT);
            try {
                Thread.sleep(15_000); // the main thread closes the cluster if it is idle
            } catch (InterruptedException ignored) {
                // halting anyway
            }
            Runtime.getRuntime().halt(0);
        }, "stdin-reader");
        reader.setDaemon(true);
        reader.start();
        return requests;
    }

    private static ObjectNode answer(JobRunner jobs, String line) {
        List<CaseRun> runs = new ArrayList<>();
        try {
            JsonNode request = MAPPER.readTree(line);
            JsonNode limits = request.get("limits");
            for (JsonNode spec : request.get("cases")) {
                runs.add(new CaseRun(spec, limits.get("output_limit").asInt(), request.get("never_ends").asText(),
                        request.get("wrapped_windows_limit").asInt(), request.get("too_many_windows").asText()));
            }
            jobs.run(runs, limits.get("branches_per_job").asInt(), limits.get("job_timeout_seconds").asLong());
            ArrayNode observations = MAPPER.createArrayNode();
            ArrayNode retry = MAPPER.createArrayNode();
            for (int i = 0; i < runs.size(); i++) {
                if (runs.get(i).mustRetry()) {
                    retry.add(i);
                    observations.addNull();
                } else {
                    observations.add(runs.get(i).observation());
                }
            }
            ObjectNode answer = MAPPER.createObjectNode();
            answer.set("observations", observations);
            answer.set("retry", retry);
            return answer.put("exiting", jobs.spent());
        } catch (Exception e) {
            e.printStackTrace();
            return MAPPER.createObjectNode().put("failure", String.valueOf(e));
        } finally {
            runs.forEach(CaseRun::release);
        }
    }

    private static Configuration jobConfiguration() {
        Configuration conf = new Configuration();
        // A failure ends the case: restarting would replay its events a second time.
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // The replay operator creates every record afresh, so the chain need not copy them.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        return conf;
    }

    private static MiniCluster startCluster() throws Exception {
        Configuration conf = jobConfiguration();
        // Many runners may run at once (pytest-xdist): no fixed ports, and nothing outside this host.
        conf.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        conf.set(JobManagerOptions.BIND_HOST, "127.0.0.1");
        conf.set(TaskManagerOptions.BIND_HOST, "127.0.0.1");
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .withRandomPorts()
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(1)
                .build());
        cluster.start();
        return cluster;
    }

    private static void closeQuietly(MiniCluster cluster) {
        if (cluster == null) {
            return;
        }
        try {
            cluster.closeAsync().get(10, TimeUnit.SECONDS); // removes its temporary directories
        } catch (Throwable ignored) {
            // halting anyway
        }
    }
}

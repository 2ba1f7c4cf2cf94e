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

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonGenerator;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The long-lived process behind flink_impl: one MiniCluster, batches of cases in, observations out,
 * speaking the suite's public process protocol {@code window-process/1} (docs/protocol.md).
 *
 * <p>Its one argument is a JSON object with what it must take from the contract rather than state
 * again (flink_impl/command.py builds it from window_contract/facts.py and window_contract/features.py):
 * {@code {"name": ..., "features": [...], "limits": {"branches_per_job": n, "job_timeout_seconds": s,
 * "output_limit": k}, "never_ends": message, "too_many_outputs": message, "windows_per_element_limit": n,
 * "too_many_windows": message}}.
 *
 * <p>It says hello at once, then starts its MiniCluster. A request {@code {"type": "run", "id": N,
 * "cases": [window-case/1, ...]}} is answered by {@code {"type": "observations", "id": N,
 * "observations": [...]}} in the same order, with the protocol's extension for cases it could not run:
 * {@code null} for a case that was not run because an earlier case did not end, its index in
 * {@code "retry"}, and {@code "exiting": true} when that made the process unusable, so it ends after this
 * answer. {@code {"type": "error", "id": N, "message": "..."}} when it could not run the batch.
 *
 * <p>stdout carries only the protocol (System.out is redirected to stderr, where Flink may log).
 * The end of stdin ends the process at once, even in the middle of a job: nobody waits for the
 * answer. The JVM is halted because a failed job leaves non-daemon threads behind; what Flink wrote to its
 * temporary directory goes with it ({@link Scratch}).
 */
public final class Runner {
    private static final ObjectMapper MAPPER = new ObjectMapper().configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
    private static final Optional<String> END_OF_INPUT = Optional.empty();

    public static void main(String[] args) {
        Scratch.enter();
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Contract contract;
        try {
            contract = Contract.parse(args);
        } catch (Exception e) {
            System.err.println("usage: Runner CONTRACT_JSON (flink_impl/command.py builds it): " + e.getMessage());
            Scratch.halt(2);
            return;
        }
        int status = 0;
        try {
            say(protocol, contract.hello());
            BlockingQueue<Optional<String>> requests = readStdin();
            JobRunner jobs = new JobRunner(startCluster(), jobConfiguration(), Api.named(contract.api));
            Optional<String> line;
            while (!jobs.spent() && (line = requests.take()).isPresent()) {
                say(protocol, answer(jobs, contract, MAPPER.readTree(line.get())));
            }
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        } finally {
            Scratch.halt(status); // the cluster with it: nobody waits for it, and its directories are Scratch's
        }
    }

    /** One message, one line: written as it is serialized, never as one string (an answer can be large). */
    private static void say(PrintStream protocol, ObjectNode message) throws IOException {
        MAPPER.writeValue(protocol, message);
        protocol.println();
        protocol.flush();
    }

    /** Requests as they come; at the end of stdin, a grace period for the main thread to halt, then halt. */
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
                Thread.sleep(15_000); // the main thread halts at once if it is idle
            } catch (InterruptedException ignored) {
                // halting anyway
            }
            Scratch.halt(0);
        }, "stdin-reader");
        reader.setDaemon(true);
        reader.start();
        return requests;
    }

    private static ObjectNode answer(JobRunner jobs, Contract contract, JsonNode request) {
        long id = request.path("id").asLong();
        List<CaseRun> runs = new ArrayList<>();
        try {
            if (!"run".equals(request.path("type").asText())) {
                throw new IllegalArgumentException("not a run request: " + request.path("type"));
            }
            for (JsonNode spec : request.get("cases")) {
                runs.add(new CaseRun(spec, contract.outputLimit, contract.tooManyOutputs, contract.neverEnds,
                        contract.windowsPerElementLimit, contract.tooManyWindows));
            }
            jobs.run(runs, contract.branchesPerJob, contract.jobTimeoutSeconds);
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
            ObjectNode answer = MAPPER.createObjectNode().put("type", "observations").put("id", id);
            answer.set("observations", observations);
            if (!retry.isEmpty()) {
                answer.set("retry", retry);
            }
            return jobs.spent() ? answer.put("exiting", true) : answer;
        } catch (Exception e) {
            e.printStackTrace();
            String message = String.valueOf(e).lines().findFirst().orElse(e.getClass().getName());
            return MAPPER.createObjectNode().put("type", "error").put("id", id).put("message", message);
        } finally {
            runs.forEach(CaseRun::release);
        }
    }

    static Configuration jobConfiguration() {
        Configuration conf = new Configuration();
        // A failure ends the case: restarting would replay its events a second time.
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        // The replay operator creates every record afresh, so the chain need not copy them.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        return conf;
    }

    static MiniCluster startCluster() throws Exception {
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
}

package windowconformance;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The long-lived process behind flink_impl: one MiniCluster, batches of cases in, observations out.
 *
 * <p>Protocol, one JSON document per line: the request {@code {"cases": [window-case/1, ...]}} is
 * answered by {@code {"observations": [window-observation/1, ...]}} in the same order, or by
 * {@code {"failure": "..."}} when the runner itself could not run the batch. stdout carries only the
 * protocol (System.out is redirected to stderr, where Flink may log). End of stdin ends the process;
 * it halts the JVM because a failed job leaves non-daemon threads behind.
 */
public final class Runner {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public static void main(String[] args) {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        int branchesPerJob = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int status = 0;
        MiniCluster cluster = null;
        try {
            cluster = startCluster();
            JobRunner jobs = new JobRunner(cluster, jobConfiguration(), branchesPerJob);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                protocol.println(MAPPER.writeValueAsString(answer(jobs, line)));
                protocol.flush();
            }
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        } finally {
            if (cluster != null) {
                try {
                    cluster.closeAsync().get(10, TimeUnit.SECONDS); // removes its temporary directories
                } catch (Throwable ignored) {
                    // halting anyway
                }
            }
            Runtime.getRuntime().halt(status);
        }
    }

    private static ObjectNode answer(JobRunner jobs, String line) {
        List<CaseRun> runs = new ArrayList<>();
        try {
            for (JsonNode spec : MAPPER.readTree(line).get("cases")) {
                runs.add(new CaseRun(spec));
            }
            jobs.run(runs);
            ArrayNode observations = MAPPER.createArrayNode();
            runs.forEach(run -> observations.add(run.observation()));
            return MAPPER.createObjectNode().set("observations", observations);
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
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(1)
                .build());
        cluster.start();
        return cluster;
    }
}

package windowconformance;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.OutputTag;

/**
 * The bulk mode of flink_impl ({@code python -m flink_impl.bulk}): one Flink job over a whole event log, as a user
 * would run their job on it. Standard input is the log, one record a line in arrival order ({@link StdinLines});
 * the job is source -> {@link BulkReplayOperator} (the replay's watermarks) -> reinterpretAsKeyedStream -> Flink's
 * {@code WindowOperator} (the window built by {@link CaseBranch#window}, allowed lateness, the late-data side output)
 * -> {@link BulkOutputs}, chained in one task thread of a MiniCluster, at parallelism 1. Nothing of the log is kept
 * but the window state Flink keeps.
 *
 * <p>Arguments: a JSON object (a {@code window-case/1} case without events, whose {@code window},
 * {@code allowed_lateness} and {@code late_side_output} apply, with {@code bound} and {@code every}, the watermarks,
 * and the contract's {@code windows_per_element_limit} and {@code too_many_windows}), and the folder the outputs are
 * written to. It prints {@code {"job_seconds": s}}, the job's time from submission to its result, on stdout.
 */
public final class BulkReplay {
    private BulkReplay() {}

    public static void main(String[] args) throws Exception {
        Scratch.enter();
        PrintStream result = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 2) {
            System.err.println("usage: BulkReplay CONFIG_JSON OUT_FOLDER (flink_impl/bulk.py runs it)");
            Scratch.halt(2);
        }
        int status = 0;
        try {
            JsonNode config = new ObjectMapper().readTree(args[0]);
            BulkOutputs.open(Path.of(args[1]));
            MiniCluster cluster = Runner.startCluster();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(Runner.jobConfiguration());
            env.setParallelism(1);
            build(env, config);
            long start = System.nanoTime();
            cluster.executeJobBlocking(env.getStreamGraph().getJobGraph());
            double seconds = (System.nanoTime() - start) / 1e9;
            BulkOutputs.close();
            result.println("{\"job_seconds\": " + seconds + "}");
        } catch (Throwable t) {
            t.printStackTrace();
            status = 1;
        } finally {
            // A finished MiniCluster may leave non-daemon threads behind; its directories are Scratch's.
            Scratch.halt(status);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void build(StreamExecutionEnvironment env, JsonNode config) {
        DataStream<String> lines = env.fromSource(new StdinLines(), WatermarkStrategy.noWatermarks(), "stdin");
        DataStream<Element> replayed = lines.transform("replay", CaseBranch.ELEMENT_TYPE,
                new BulkReplayOperator(config.get("bound").asLong(), config.get("every").asLong()));
        KeyedStream<Element, String> keyed =
                DataStreamUtils.reinterpretAsKeyedStream(replayed, new CaseBranch.ByKey(), Types.STRING);
        OutputTag<Element> lateTag = new OutputTag<>("late", CaseBranch.ELEMENT_TYPE);
        WindowedStream<Element, String, TimeWindow> windowed = (WindowedStream) CaseBranch.window(keyed,
                config.get("window"), config.get("windows_per_element_limit").asInt(),
                config.get("too_many_windows").asText());
        SingleOutputStreamOperator<FiringRecord> fired = windowed
                .allowedLateness(Duration.ofMillis(config.get("allowed_lateness").asLong()))
                .sideOutputLateData(lateTag)
                .process(new BulkOutputs.WindowContents(), TypeInformation.of(FiringRecord.class));
        fired.process(new BulkOutputs.Firings(), Types.VOID).name("firings");
        fired.getSideOutput(lateTag).process(new BulkOutputs.LateRecords(config.get("late_side_output").asBoolean()),
                Types.VOID).name("late");
    }
}

package joinconformance;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Runs interval join cases on Flink 2.3's runtime (a local MiniCluster): a JSON array of {@code join-case/1} cases on
 * stdin, a JSON array of raw observations on stdout (flink_impl/joins.py reads them), one job for the whole batch.
 *
 * <p>Each case is a branch of the job: source -> {@link JoinReplayOperator} -> reinterpretAsKeyedStream ->
 * {@link ReplayedIntervalJoinOperator} (Flink's {@code IntervalJoinOperator}, built with the arguments
 * {@code KeyedStream.IntervalJoined.process} passes: {@code new IntervalJoinOperator<>(lower, upper, lowerInclusive,
 * upperInclusive, leftLateTag, rightLateTag, ...)}) -> recorders, all chained in the source's one thread. Both late
 * tags are always set: a case without a side's late output reports that side's late records as dropped, which is
 * what Flink does with them (it neither joins nor buffers them).
 */
public final class JoinRunner {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeInformation<Side> SIDE_TYPE = TypeInformation.of(Side.class);

    private JoinRunner() {}

    public static void main(String[] args) throws Exception {
        PrintStream answer = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        InputStream in = System.in;
        JsonNode cases = MAPPER.readTree(in);
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, config);
        List<JoinEvent> events = new ArrayList<>();
        List<JoinRun> runs = new ArrayList<>();
        String[] invalid = new String[cases.size()];
        for (int id = 0; id < cases.size(); id++) {
            runs.add(JoinRun.create(id));
            events.addAll(events(id, cases.get(id)));
        }
        DataStream<JoinEvent> source = env.fromData(events, TypeInformation.of(JoinEvent.class)).name("events");
        for (int id = 0; id < cases.size(); id++) {
            try {
                addBranch(source, id, cases.get(id));
            } catch (IllegalArgumentException e) {
                invalid[id] = e.getMessage();
            }
        }
        env.execute("interval joins");
        StringBuilder out = new StringBuilder("[");
        for (int id = 0; id < cases.size(); id++) {
            out.append(id == 0 ? "" : ",").append(observation(runs.get(id), invalid[id]));
        }
        answer.println(out.append("]"));
        answer.flush();
        Runtime.getRuntime().halt(0);
    }

    static final class ByKey implements KeySelector<Tagged, String> {
        @Override
        public String getKey(Tagged t) {
            return t.key;
        }
    }

    private static void addBranch(DataStream<JoinEvent> source, int id, JsonNode c) {
        JsonNode join = c.get("join");
        JsonNode inputs = c.get("inputs");
        OutputTag<Side> leftLate = new OutputTag<>("case-" + id + "-left-late", SIDE_TYPE);
        OutputTag<Side> rightLate = new OutputTag<>("case-" + id + "-right-late", SIDE_TYPE);
        ReplayedIntervalJoinOperator operator = new ReplayedIntervalJoinOperator(id, join.get("lower").asLong(),
                join.get("upper").asLong(), !join.get("lower_exclusive").asBoolean(),
                !join.get("upper_exclusive").asBoolean(), leftLate, rightLate,
                SIDE_TYPE.createSerializer(new SerializerConfigImpl()), new PairRecorder(id));
        DataStream<Tagged> replayed = source.transform("case-" + id + "-replay", TypeInformation.of(Tagged.class),
                new JoinReplayOperator(id, c.get("end_of_input").asBoolean(),
                        inputs.get("left").get("channels").asInt(), inputs.get("right").get("channels").asInt()));
        KeyedStream<Tagged, String> keyed = DataStreamUtils.reinterpretAsKeyedStream(replayed, new ByKey(), Types.STRING);
        SingleOutputStreamOperator<Void> joined = keyed.transform("Interval Join", Types.VOID,
                new ReplayedIntervalJoinOperator.Factory(operator));
        JsonNode late = join.get("late_side_output");
        joined.getSideOutput(leftLate).process(new LateRecorder(id, 0, late.get("left").asBoolean()), Types.VOID);
        joined.getSideOutput(rightLate).process(new LateRecorder(id, 1, late.get("right").asBoolean()), Types.VOID);
    }

    /** The case's events as the source emits them, then its end. */
    static List<JoinEvent> events(int id, JsonNode c) {
        List<JoinEvent> out = new ArrayList<>();
        JsonNode events = c.get("events");
        for (int i = 0; i <= events.size(); i++) {
            JoinEvent e = new JoinEvent();
            e.caseId = id;
            e.index = i;
            if (i == events.size()) {
                e.kind = JoinEvent.END;
            } else {
                JsonNode j = events.get(i);
                e.input = j.get("input").asText().equals("left") ? 0 : 1;
                if (j.has("record")) {
                    JsonNode r = j.get("record");
                    e.kind = JoinEvent.RECORD;
                    e.key = r.get("key").asText();
                    e.value = r.get("value").asLong();
                    e.time = r.get("ts").asLong();
                    e.channel = r.path("channel").asInt(0);
                } else if (j.has("watermark")) {
                    e.kind = JoinEvent.WATERMARK;
                    e.time = j.get("watermark").asLong();
                    e.channel = j.path("channel").asInt(0);
                } else if (j.has("watermark_status")) {
                    e.kind = JoinEvent.WATERMARK_STATUS;
                    e.channel = j.get("watermark_status").get("channel").asInt();
                    e.time = j.get("watermark_status").get("idle").asBoolean() ? 1 : 0;
                } else {
                    e.kind = JoinEvent.END_OF_CHANNEL;
                    e.channel = j.get("end_of_channel").asInt();
                }
            }
            out.add(e);
        }
        return out;
    }

    /** The join's function: records each pair with the output record's timestamp and the join's watermark. */
    static final class PairRecorder extends ProcessJoinFunction<Side, Side, Void> {
        private final int id;

        PairRecorder(int id) {
            this.id = id;
        }

        @Override
        public void processElement(Side left, Side right, Context ctx, Collector<Void> out) {
            JoinRun run = JoinRun.get(id);
            run.outputs.add("[" + run.at + "," + JoinRun.quote(left.key) + "," + ctx.getTimestamp() + ","
                    + run.watermark + "," + left.value + "," + right.value + "]");
        }
    }

    /** One input's late records: its late side output when the case sets one, else what Flink drops. */
    static final class LateRecorder extends ProcessFunction<Side, Void> {
        private final int id;
        private final int input;
        private final boolean sideOutput;

        LateRecorder(int id, int input, boolean sideOutput) {
            this.id = id;
            this.input = input;
            this.sideOutput = sideOutput;
        }

        @Override
        public void processElement(Side s, Context ctx, Collector<Void> out) {
            JoinRun run = JoinRun.get(id);
            String record = "[" + run.at + "," + (input == 0 ? "\"left\"" : "\"right\"") + "," + JoinRun.quote(s.key)
                    + "," + s.value + "," + ctx.timestamp() + "]";
            (sideOutput ? run.late : run.dropped).add(record);
        }
    }

    static String observation(JoinRun run, String invalid) {
        if (invalid != null) {
            return "{\"error\":{\"kind\":\"invalid_spec\",\"message\":" + JoinRun.quote(invalid) + "}}";
        }
        String error = run.errorMessage == null ? "null"
                : "{\"kind\":\"runtime\",\"message\":" + JoinRun.quote(run.errorMessage) + "}";
        return "{\"outputs\":" + run.outputs + ",\"late\":" + run.late + ",\"dropped\":" + run.dropped
                + ",\"watermarks\":" + run.watermarks + ",\"error\":" + error + "}";
    }
}

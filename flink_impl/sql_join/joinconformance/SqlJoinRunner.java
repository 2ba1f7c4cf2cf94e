package joinconformance;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.operators.ChainingStrategy;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.api.transformations.PhysicalTransformation;
import org.apache.flink.streaming.api.transformations.TwoInputTransformation;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.types.Row;

/**
 * Runs Flink SQL join cases on Flink 2.3's runtime: a JSON array of {@code {"case": join-case/1, "sql": query}} on
 * stdin (flink_impl/sql_joins.py writes the query a SQL user writes for the case), a JSON array of raw observations
 * on stdout, one job for the whole batch.
 *
 * <p>Each case is a branch of the job, chained in the source's one thread: source -> {@link JoinReplayOperator} (each
 * input's valve) -> per input, {@link SideRows} (the input's table: {@code fromDataStream} with the rowtime of the
 * records and {@code SOURCE_WATERMARK()}) -> the planner's operators of that input, up to the exchange before the
 * join -> {@link SideSink} -> the planner's join operator, hosted ({@link HostedJoin}). The planner plans the query
 * exactly as for a job that runs it; only its two exchanges are left out (one parallel instance: they partition
 * nothing), so that the join receives the inputs in the case's order. What Flink rejects while planning is the
 * case's {@code invalid_spec}.
 */
public final class SqlJoinRunner {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeInformation<Row> ROW = Types.ROW_NAMED(new String[] {"k", "v"}, Types.STRING, Types.LONG);

    private SqlJoinRunner() {}

    public static void main(String[] args) throws Exception {
        PrintStream answer = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        JsonNode batch = MAPPER.readTree(System.in);
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, config);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        List<JoinEvent> events = new ArrayList<>();
        List<JoinRun> runs = new ArrayList<>();
        String[] invalid = new String[batch.size()];
        for (int id = 0; id < batch.size(); id++) {
            runs.add(JoinRun.create(id));
            events.addAll(JoinRunner.events(id, batch.get(id).get("case")));
        }
        DataStream<JoinEvent> source = env.fromData(events, TypeInformation.of(JoinEvent.class)).name("events");
        for (int id = 0; id < batch.size(); id++) {
            try {
                addBranch(tables, source, id, batch.get(id).get("case"), batch.get(id).get("sql").asText());
            } catch (Rejected e) {
                invalid[id] = e.getMessage();
            }
        }
        env.execute("sql joins");
        StringBuilder out = new StringBuilder("[");
        for (int id = 0; id < batch.size(); id++) {
            out.append(id == 0 ? "" : ",").append(JoinRunner.observation(runs.get(id), invalid[id]));
        }
        answer.println(out.append("]"));
        answer.flush();
        Runtime.getRuntime().halt(0);
    }

    /** A query the planner refuses, with its message. */
    static final class Rejected extends Exception {
        Rejected(String message) {
            super(message);
        }
    }

    @SuppressWarnings("unchecked")
    private static void addBranch(StreamTableEnvironment tables, DataStream<JoinEvent> source, int id, JsonNode c,
            String sql) throws Rejected {
        JsonNode inputs = c.get("inputs");
        DataStream<Tagged> replayed = source.transform("case-" + id + "-replay", TypeInformation.of(Tagged.class),
                new JoinReplayOperator(id, c.get("end_of_input").asBoolean(),
                        inputs.get("left").get("channels").asInt(), inputs.get("right").get("channels").asInt()));
        Schema schema = Schema.newBuilder().columnByMetadata("rowtime", "TIMESTAMP_LTZ(3)")
                .watermark("rowtime", "SOURCE_WATERMARK()").build();
        String[] names = {"l", "r"};
        for (int input = 0; input < 2; input++) {
            DataStream<Row> rows = replayed.transform("case-" + id + "-" + names[input], ROW, new SideRows(input));
            tables.createTemporaryView(names[input], tables.fromDataStream(rows, schema));
        }
        TwoInputTransformation<RowData, RowData, RowData> join;
        try {
            join = findJoin(tables.toChangelogStream(tables.sqlQuery(sql)).getTransformation());
        } catch (RuntimeException rejected) {
            Throwable cause = rejected;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            throw new Rejected(String.valueOf(cause.getMessage()));
        } finally {
            tables.dropTemporaryView("l");
            tables.dropTemporaryView("r");
        }
        for (int input = 0; input < 2; input++) {
            Transformation<RowData> planned = (Transformation<RowData>) join.getInputs().get(input);
            if (planned instanceof PartitionTransformation) {
                planned = (Transformation<RowData>) planned.getInputs().get(0);
            }
            // the sink too: Flink 1.20's AbstractStreamOperator is a chain's head unless told (2.x's chains by default)
            chainAll(new DataStream<>(replayed.getExecutionEnvironment(), planned)
                    .transform("case-" + id + "-" + names[input] + "-join", Types.VOID, new SideSink(id, input,
                            new RowDataSerializer(rowType(input == 0 ? join.getInputType1() : join.getInputType2()))))
                    .getTransformation());
        }
        KeySelector<RowData, ?>[] keys = new KeySelector[] {join.getStateKeySelector1(), join.getStateKeySelector2()};
        JoinRows rows = new JoinRows(rowType(join.getInputType1()), rowType(join.getInputType2()),
                rowType(join.getOutputType()));
        DataStream<Tagged> nothing = replayed.filter(t -> false);
        DataStreamUtils.reinterpretAsKeyedStream(nothing, new NoKey(), (TypeInformation<Object>) join.getStateKeyType())
                .transform("case-" + id + "-" + join.getName(), Types.VOID,
                        new HostedJoin.Factory(id, (StreamOperatorFactory<RowData>) join.getOperatorFactory(), keys,
                                rows));
    }

    /** The key selector of the hosted join's own input, which carries nothing. */
    static final class NoKey implements KeySelector<Tagged, Object> {
        @Override
        public Object getKey(Tagged t) {
            throw new IllegalStateException("the hosted join's own input carries nothing");
        }
    }

    private static TwoInputTransformation<RowData, RowData, RowData> findJoin(Transformation<?> t) {
        if (t instanceof TwoInputTransformation) {
            return (TwoInputTransformation<RowData, RowData, RowData>) t;
        }
        if (t.getInputs().size() != 1) {
            throw new IllegalStateException("no two-input join in the plan, at " + t.getName());
        }
        return findJoin(t.getInputs().get(0));
    }

    /** An input's sink and the planner's operators before it, chained down to the replay (one thread keeps the case's
     * order). */
    private static void chainAll(Transformation<?> t) {
        if (t instanceof PhysicalTransformation) {
            ((PhysicalTransformation<?>) t).setChainingStrategy(ChainingStrategy.ALWAYS);
        }
        for (Transformation<?> input : t.getInputs()) {
            chainAll(input);
        }
    }

    private static org.apache.flink.table.types.logical.RowType rowType(TypeInformation<?> type) {
        return ((InternalTypeInfo<?>) type).toRowType();
    }
}

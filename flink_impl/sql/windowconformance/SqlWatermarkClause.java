package windowconformance;

import java.util.HashMap;
import java.util.Map;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.runtime.operators.wmassigners.WatermarkAssignerOperatorFactory;

/**
 * A case's {@code watermark_generator} as the table's {@code WATERMARK FOR} clause, as a Flink SQL user declares it:
 * {@code forBoundedOutOfOrderness(b)} is {@code WATERMARK FOR rowtime AS rowtime - INTERVAL 'b'},
 * {@code forMonotonousTimestamps()} is {@code WATERMARK FOR rowtime AS rowtime}, {@code withIdleness(t)} is
 * {@code table.exec.source.idle-timeout} (read by {@code StreamExecWatermarkAssigner} when the query is planned),
 * and the interval is the job's {@code pipeline.auto-watermark-interval} ({@link SqlApi#watermarkInterval}). Without
 * a generator the table takes its source's watermarks: {@code SOURCE_WATERMARK()}.
 *
 * <p>The clause on a table from {@code fromDataStream} (whose {@code ExternalDynamicSource} takes no watermark
 * push-down) plans to {@code StreamExecWatermarkAssigner}: a {@code WatermarkAssignerOperator} chained after the
 * source's {@code InputConversionOperator}, which then lets through only {@code Long.MAX_VALUE} of the upstream
 * watermarks (the replay's end of input) and every status. The assigner emits on its processing-time timer and
 * after a record; its processing-time service is the case's clock ({@link CaseClockWatermarkAssigner}), put in
 * before the job graph is made ({@link #onCaseClock}), as {@code CaseClockWindowOperator} does for the DataStream
 * window operator.
 */
final class SqlWatermarkClause {
    static final String IDLE_TIMEOUT = "table.exec.source.idle-timeout";
    /**
     * The widest day precision a WATERMARK expression's interval takes: the planner's {@code FlinkTypeFactory} turns
     * a wider one away ("DAY_INTERVAL_TYPES precision is not supported: 6"), so a bound ends at 999 days.
     */
    static final int CLAUSE_DAY_PRECISION = 3;

    /** The stream graph node of each case's assigner (the transformation's id), with the case's id. */
    private final Map<Integer, Integer> assigners = new HashMap<>();

    /**
     * The clause's expression for the case's table; an interval Flink rejects (a negative one) throws Flink's own
     * exception, as the job's configuration would.
     */
    static String expression(JsonNode caseSpec) {
        GeneratorSpec generator = GeneratorSpec.of(caseSpec);
        if (generator == null) {
            return "SOURCE_WATERMARK()";
        }
        new ExecutionConfig().setAutoWatermarkInterval(generator.interval());
        JsonNode g = caseSpec.get("watermark_generator");
        if (g.path("punctuated").asBoolean(false)) {
            throw new CaseBranch.UnsupportedCase("punctuated watermarks in SQL");
        }
        switch (g.get("type").asText()) {
            case "bounded_out_of_orderness":
                return "rowtime - " + SqlQueries.interval(g.get("bound").asLong(), CLAUSE_DAY_PRECISION);
            case "monotonous":
                return "rowtime";
            default:
                throw new CaseBranch.UnsupportedCase("watermark generator " + g.get("type") + " in SQL");
        }
    }

    /** The case's idleness as the planner reads it: 0 switches idleness detection off. */
    static void configure(StreamTableEnvironment tables, JsonNode caseSpec) {
        JsonNode idleness = caseSpec.path("watermark_generator").path("idleness");
        tables.getConfig().set(IDLE_TIMEOUT, (idleness.isNumber() ? idleness.asLong() : 0) + " ms");
    }

    /** Remembers the assigner the planner put before {@code emitted}, if the case has a generator. */
    void planned(DataStream<?> emitted, CaseRun run) {
        if (GeneratorSpec.of(run.spec) == null) {
            return;
        }
        for (Transformation<?> t : emitted.getTransformation().getTransitivePredecessors()) {
            if (t instanceof OneInputTransformation
                    && ((OneInputTransformation<?, ?>) t).getOperatorFactory() instanceof WatermarkAssignerOperatorFactory) {
                assigners.put(t.getId(), run.id);
                return;
            }
        }
        throw new IllegalStateException("case " + run.id + ": the planner made no WatermarkAssignerOperator");
    }

    /** Puts every remembered assigner of the job on its case's clock. */
    void onCaseClock(StreamGraph graph) {
        assigners.forEach((node, caseId) -> {
            StreamNode assigner = graph.getStreamNode(node);
            StreamNodeShim.setOperatorFactory(assigner, new CaseClockWatermarkAssigner(
                    (WatermarkAssignerOperatorFactory) assigner.getOperatorFactory(), caseId));
        });
    }
}

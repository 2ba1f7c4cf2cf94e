package windowconformance;

import java.time.Duration;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.functions.timestamps.AscendingTimestampExtractor;
import org.apache.flink.streaming.api.functions.timestamps.BoundedOutOfOrdernessTimestampExtractor;
import org.apache.flink.util.clock.RelativeClock;
import org.apache.flink.util.clock.SystemClock;

/**
 * A case's {@code watermark_generator} as the {@link WatermarkStrategy} a user would pass to
 * {@code assignTimestampsAndWatermarks}, built with Flink's public API so that Flink's own checks
 * reject what Flink rejects, with Flink's messages.
 *
 * <p>Where each check fires in a real job decides which error a case with several mistakes gets:
 * {@code ExecutionConfig.setAutoWatermarkInterval} (a negative interval) runs when the environment
 * is configured, the legacy extractors' constructors and {@code withIdleness} (a non-positive
 * timeout) when the pipeline is built, before the window is; {@code BoundedOutOfOrdernessWatermarks}
 * checks its bound only when {@code TimestampsAndWatermarksOperator.open} creates the generator,
 * after the whole pipeline was built. {@link #checkBeforeWindow} and {@link #checkAfterWindow} run
 * them in that order around the window's construction (see {@link CaseBranch#add}).
 */
final class GeneratorSpec {
    private final JsonNode spec;

    private GeneratorSpec(JsonNode spec) {
        this.spec = spec;
    }

    /** The case's generator, or null when its own watermark events are the watermarks. */
    static GeneratorSpec of(JsonNode caseSpec) {
        JsonNode g = caseSpec.get("watermark_generator");
        return g == null || g.isNull() ? null : new GeneratorSpec(g);
    }

    /** {@code pipeline.auto-watermark-interval}; 0 switches periodic emission off. */
    long interval() {
        return spec.path("interval").asLong(200);
    }

    /** Throws Flink's own exception for an interval or strategy that Flink's API rejects. */
    void checkBeforeWindow() {
        new ExecutionConfig().setAutoWatermarkInterval(interval());
        strategy();
    }

    /** Throws what {@code TimestampsAndWatermarksOperator.open} would: the generator's own checks. */
    void checkAfterWindow() {
        strategy().createWatermarkGenerator(context(SystemClock.getInstance()));
    }

    /**
     * The strategy: Flink's generator for the type, {@link Punctuated} when the case emits after
     * every record, then {@code withIdleness} as a user would chain it last.
     */
    WatermarkStrategy<Element> strategy() {
        WatermarkStrategy<Element> strategy;
        switch (spec.get("type").asText()) {
            case "bounded_out_of_orderness":
                strategy = WatermarkStrategy.forBoundedOutOfOrderness(Duration.ofMillis(spec.get("bound").asLong()));
                break;
            case "monotonous":
                strategy = WatermarkStrategy.forMonotonousTimestamps();
                break;
            case "legacy_bounded_out_of_orderness":
                strategy = LegacyStrategy.of(new LegacyBoundedOutOfOrderness(Duration.ofMillis(spec.get("bound").asLong())));
                break;
            case "legacy_ascending":
                strategy = LegacyStrategy.of(new LegacyAscending());
                break;
            default:
                throw new CaseBranch.UnsupportedCase("watermark generator " + spec.get("type"));
        }
        if (spec.path("punctuated").asBoolean(false)) {
            strategy = new Punctuated(strategy);
        }
        if (spec.hasNonNull("idleness")) {
            strategy = strategy.withIdleness(Duration.ofMillis(spec.get("idleness").asLong()));
        }
        return strategy;
    }

    /** What {@code TimestampsAndWatermarksOperator.open} hands the strategy: metrics and the input activity clock. */
    static WatermarkGeneratorSupplier.Context context(RelativeClock clock) {
        return new WatermarkGeneratorSupplier.Context() {
            @Override
            public UnregisteredMetricsGroup getMetricGroup() {
                return new UnregisteredMetricsGroup();
            }

            @Override
            public RelativeClock getInputActivityClock() {
                return clock;
            }
        };
    }

    /** The legacy extractor of the seed documents, reading the record's own timestamp. */
    static final class LegacyBoundedOutOfOrderness extends BoundedOutOfOrdernessTimestampExtractor<Element> {
        LegacyBoundedOutOfOrderness(Duration bound) {
            super(bound);
        }

        @Override
        public long extractTimestamp(Element e) {
            return e.ts;
        }
    }

    /** The legacy ascending extractor, with its default monotony-violation handler (it logs). */
    static final class LegacyAscending extends AscendingTimestampExtractor<Element> {
        @Override
        public long extractAscendingTimestamp(Element e) {
            return e.ts;
        }
    }

    /**
     * Punctuated emission, as a user writes it: a generator that emits in {@code onEvent} what the
     * wrapped periodic generator would emit, right after the record, and nothing on the periodic
     * call. The timestamp assigner is the wrapped strategy's (for the legacy extractors, the
     * extractor itself, which tracks the maximum as {@code TimestampsAndWatermarksOperator} extracts
     * the record's timestamp, before {@code onEvent}).
     */
    static final class Punctuated implements WatermarkStrategy<Element> {
        private static final long serialVersionUID = 1L;
        private final WatermarkStrategy<Element> periodic;

        Punctuated(WatermarkStrategy<Element> periodic) {
            this.periodic = periodic;
        }

        @Override
        public TimestampAssigner<Element> createTimestampAssigner(TimestampAssignerSupplier.Context context) {
            return periodic.createTimestampAssigner(context);
        }

        @Override
        public WatermarkGenerator<Element> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context) {
            WatermarkGenerator<Element> generator = periodic.createWatermarkGenerator(context);
            return new WatermarkGenerator<Element>() {
                @Override
                public void onEvent(Element event, long eventTimestamp, WatermarkOutput output) {
                    generator.onEvent(event, eventTimestamp, output);
                    generator.onPeriodicEmit(output);
                }

                @Override
                public void onPeriodicEmit(WatermarkOutput output) {}
            };
        }
    }
}

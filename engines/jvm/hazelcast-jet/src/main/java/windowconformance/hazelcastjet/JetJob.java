package windowconformance.hazelcastjet;

import com.hazelcast.function.FunctionEx;
import com.hazelcast.function.SupplierEx;
import com.hazelcast.jet.aggregate.AggregateOperation;
import com.hazelcast.jet.aggregate.AggregateOperation1;
import com.hazelcast.jet.core.ProcessorMetaSupplier;
import com.hazelcast.jet.core.ProcessorSupplier;
import com.hazelcast.jet.core.SlidingWindowPolicy;
import com.hazelcast.jet.core.WatermarkPolicy;
import com.hazelcast.jet.pipeline.Pipeline;
import com.hazelcast.jet.pipeline.Sinks;
import com.hazelcast.jet.pipeline.SlidingWindowDefinition;
import com.hazelcast.jet.pipeline.Sources;
import com.hazelcast.jet.pipeline.StreamSource;
import com.hazelcast.jet.pipeline.StreamSourceStage;
import com.hazelcast.jet.pipeline.StreamStage;
import com.hazelcast.jet.pipeline.WindowDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import windowconformance.protocol.Translated;
import windowconformance.protocol.WindowCase;

/**
 * The Jet pipeline a Jet user writes for a Flink case:
 *
 * <pre>
 * p.readFrom(source)                                   // the case's events, in order (CaseSourceP)
 *  .withTimestamps(r -> r.ts(), allowedLag)            // or withNativeTimestamps(0) when the source has watermarks
 *  .groupingKey(r -> r.key())
 *  .window(WindowDefinition.tumbling(size))            // sliding(size, slide), session(gap)
 *  .aggregate(the values of the window's records)
 *  .customTransform("observe", ObserveP)              // reads each result and its timestamp
 *  .writeTo(Sinks.noop());
 * </pre>
 *
 * What Jet rejects ({@code WatermarkPolicy.limitingLag}'s and its {@code WindowDefinition}s' own checks, in the order
 * the pipeline's code meets them) is thrown by {@link #of}, in Jet's words.
 */
record JetJob(Pipeline pipeline, CaseScript script) {

    /** What the engine translates: the features declared in its hello (names from
     * {@code window_contract.features.FEATURES}), checked on every case. */
    static final Translated TRANSLATED = new Translated("hazelcast-jet", Set.of(
            "assigner.tumbling", "assigner.sliding", "assigner.session", "trigger.event_time", "negative_timestamps",
            "unbounded_input", "watermark.bounded_out_of_orderness", "watermark.monotonous",
            "watermark.legacy_ascending", "watermark.punctuated"));

    /** The job of case {@code c}, whose functions report to {@link Collected} run {@code run}. */
    static JetJob of(WindowCase c, long run) {
        TRANSLATED.check(c);
        Long allowedLag = c.generator() == null ? null : Mapping.allowedLag(c.generator());
        if (allowedLag != null) {
            WatermarkPolicy.limitingLag(allowedLag);   // withTimestamps' own check, met before the window's
        }
        WindowDefinition window = window(c.window());
        CaseScript script = CaseScript.of(c, window instanceof SlidingWindowDefinition sliding
                ? SlidingWindowPolicy.slidingWinPolicy(sliding.windowSize(), sliding.slideBy()) : null, run);
        StreamSource<SourceEvent.Item> source = Sources.<SourceEvent.Item>streamFromProcessorWithWatermarks(
                "case", true, policy -> ProcessorMetaSupplier.preferLocalParallelismOne(
                        ProcessorSupplier.of(() -> new CaseSourceP(script, policy))))
                .setPartitionIdleTimeout(0);
        Pipeline p = Pipeline.create();
        StreamSourceStage<SourceEvent.Item> read = p.readFrom(source);
        StreamStage<SourceEvent.Item> timed = allowedLag == null
                ? read.withNativeTimestamps(0) : read.withTimestamps(SourceEvent.Item::ts, allowedLag);
        timed.groupingKey(SourceEvent.Item::key)
             .window(window)
             .aggregate(values(run))
             .customTransform("observe", ProcessorMetaSupplier.preferLocalParallelismOne(
                     ProcessorSupplier.of(() -> new ObserveP(run))))
             .writeTo(Sinks.noop());
        return new JetJob(p, script);
    }

    /** Flink's assigner as Jet's window definition. */
    private static WindowDefinition window(WindowCase.Window w) {
        return switch (w.assigner()) {
            case "tumbling" -> WindowDefinition.tumbling(w.size());
            case "sliding" -> WindowDefinition.sliding(w.size(), w.slide());
            case "session" -> WindowDefinition.session(w.gap());
            default -> throw new UnsupportedOperationException("no " + w.assigner() + " windows");
        };
    }

    /** The window function's input as an aggregation: the values of the window's records. Its accumulation tells
     * the adapter that Jet took the record ({@link Collected#took}). */
    private static AggregateOperation1<SourceEvent.Item, List<Long>, List<Long>> values(long run) {
        SupplierEx<List<Long>> empty = ArrayList::new;
        FunctionEx<List<Long>, List<Long>> copy = ArrayList::new;
        return AggregateOperation.withCreate(empty)
                .<SourceEvent.Item>andAccumulate((list, item) -> {
                    Collected.of(run).took(item.index());
                    list.add(item.value());
                })
                .andCombine(List::addAll)
                .andExportFinish(copy);
    }
}

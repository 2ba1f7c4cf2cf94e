package windowconformance.kafkastreams;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Window;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import windowconformance.protocol.Translated;
import windowconformance.protocol.WindowCase;

/**
 * The Kafka Streams job a Kafka Streams user writes for a Flink case, with the DSL:
 *
 * <pre>
 * builder.stream("input", Consumed.with(Serdes.String(), Serdes.Long()))
 *        .groupByKey()
 *        .windowedBy(TimeWindows.ofSizeAndGrace(size, grace).advanceBy(slide))   // or SessionWindows
 *        .aggregate(ArrayList::new, (key, value, list) -> list + value, ...)       // the window's values
 *        .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))         // EMIT.FINAL only
 *        .toStream().to("output");
 * </pre>
 *
 * and a second sink on the aggregate's table, before {@code suppress}, through which the adapter watches the
 * records the aggregate takes ({@link CaseDrive}): a table may feed several streams, and this one changes nothing
 * of what the first gets.
 *
 * <ul>
 *   <li>{@code TumblingEventTimeWindows.of(size)} is {@code TimeWindows.ofSizeAndGrace(size, grace)};
 *       {@code SlidingEventTimeWindows.of(size, slide)} is the same {@code .advanceBy(slide)} (Kafka's hopping
 *       windows: its {@code SlidingWindows} are another thing, windows defined by pairs of records);
 *       {@code EventTimeSessionWindows.withGap(gap)} is {@code SessionWindows.ofInactivityGapAndGrace(gap, grace)}.
 *       Kafka Streams has no offsets: its windows are aligned to the epoch.</li>
 *   <li>The grace period is the watermark generator's bound: Flink's {@code forBoundedOutOfOrderness(bound)} fires
 *       a window once its watermark {@code max - bound - 1} reaches {@code end - 1}, that is once the largest
 *       timestamp reaches {@code end + bound}; Kafka closes it once stream time (the largest timestamp) reaches
 *       {@code end + grace}. {@code forMonotonousTimestamps()} and the legacy {@code AscendingTimestampExtractor}
 *       ({@code max - 1}) are a grace of 0, as is a case that lists its watermarks (they come as heartbeat
 *       records, {@link CaseDrive}).</li>
 *   <li>{@link Emit#FINAL}: Flink's default trigger fires a window once, when it closes: Kafka's
 *       {@code suppress(untilWindowCloses)}. {@link Emit#UPDATES}: the same job without {@code suppress}, Kafka's
 *       default, emits the window's aggregate on every update.</li>
 *   <li>State stores are in memory ({@code Materialized.withStoreType(IN_MEMORY)}); the record cache is off
 *       ({@code statestore.cache.max.bytes=0}, {@link CaseDrive}), so every update is forwarded at once.</li>
 * </ul>
 *
 * What Kafka Streams rejects ({@code TimeWindows}' and {@code SessionWindows}' own checks) is thrown by
 * {@link #of}, in Kafka's words.
 */
final class KafkaStreamsJob {

    /** What the engine translates: the features declared in its hello (names from
     * {@code window_contract.features.FEATURES}), checked on every case. */
    static final Translated TRANSLATED = new Translated("kafka-streams", Set.of(
            "assigner.tumbling", "assigner.sliding", "assigner.session", "trigger.event_time", "unbounded_input",
            "watermark.bounded_out_of_orderness", "watermark.monotonous", "watermark.legacy_ascending",
            "watermark.punctuated"));

    static final String INPUT = "input";
    static final String OUTPUT = "output";
    /** The aggregate's own updates, before {@code suppress}: the adapter watches them ({@link CaseDrive}). */
    static final String UPDATES = "updates";

    /** One result per window when it closes ({@code suppress}), or every update (Kafka's default). */
    enum Emit { FINAL, UPDATES }

    /** A window's contents: the values of its records, as the window function gets them in Flink. */
    static final Serde<List<Long>> VALUES = Serdes.ListSerde(ArrayList.class, Serdes.Long());

    private final TimeWindows timeWindows;
    private final SessionWindows sessionWindows;
    private final Emit emit;

    private KafkaStreamsJob(TimeWindows timeWindows, SessionWindows sessionWindows, Emit emit) {
        this.timeWindows = timeWindows;
        this.sessionWindows = sessionWindows;
        this.emit = emit;
    }

    /** The job for {@code c}; {@code IllegalArgumentException} (Kafka's) when Kafka Streams rejects its windows,
     * {@code UnsupportedOperationException} for what the engine does not declare (the suite never sends it). */
    static KafkaStreamsJob of(WindowCase c, Emit emit) {
        TRANSLATED.check(c);
        Duration grace = Duration.ofMillis(grace(c));
        WindowCase.Window w = c.window();
        return switch (w.assigner()) {
            case "tumbling" -> new KafkaStreamsJob(
                    TimeWindows.ofSizeAndGrace(Duration.ofMillis(w.size()), grace), null, emit);
            case "sliding" -> new KafkaStreamsJob(
                    TimeWindows.ofSizeAndGrace(Duration.ofMillis(w.size()), grace)
                            .advanceBy(Duration.ofMillis(w.slide())), null, emit);
            case "session" -> new KafkaStreamsJob(
                    null, SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(w.gap()), grace), emit);
            default -> throw new UnsupportedOperationException("no " + w.assigner() + " windows");
        };
    }

    /** The grace period: the generator's bound (class comment). */
    private static long grace(WindowCase c) {
        if (c.generator() == null) {
            return 0;
        }
        return switch (c.generator().type()) {
            case "bounded_out_of_orderness" -> c.generator().bound();
            case "monotonous", "legacy_ascending" -> 0;
            default -> throw new UnsupportedOperationException("no " + c.generator().type() + " generator");
        };
    }

    boolean sessions() {
        return sessionWindows != null;
    }

    /** How many windows Kafka puts a record at {@code ts} in: one session, or the starts {@code TimeWindows.windowsFor}
     * goes through, from {@code max(0, ts - size + advance) / advance * advance} up to {@code ts} by {@code advance}
     * (counted, not built: a window of a million slides would build a million). */
    long windowsFor(long ts) {
        if (sessions()) {
            return 1;
        }
        long advance = timeWindows.advanceMs;
        long first = Math.max(0, ts - timeWindows.size() + advance) / advance * advance;
        return (ts - first) / advance + 1;
    }

    /**
     * The largest timestamp Kafka Streams can window: {@code TimeWindows.windowsFor(ts)} computes
     * {@code start + size}, the session aggregate looks for sessions up to {@code ts + gap}, both in {@code long}s
     * that must not overflow. The heartbeat that ends the input carries it.
     */
    long endOfTime() {
        return Long.MAX_VALUE - (sessions() ? sessionWindows.inactivityGap() : timeWindows.size());
    }

    /** The end of a result's window as the format's half-open {@code [start, end)}: a {@code TimeWindow} is
     * half-open already, a {@code SessionWindow} is closed, {@code [first record, last record]}, so its end is the
     * last record's timestamp plus one. */
    long end(Window window) {
        return sessions() ? window.end() + 1 : window.end();
    }

    Serde<Windowed<String>> windowedKeys() {
        return sessions() ? WindowedSerdes.sessionWindowedSerdeFrom(String.class)
                : WindowedSerdes.timeWindowedSerdeFrom(String.class, timeWindows.size());
    }

    Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KGroupedStream<String, Long> grouped = builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.Long()))
                .groupByKey();
        KTable<Windowed<String>, List<Long>> windows = sessions()
                ? grouped.windowedBy(sessionWindows).aggregate(ArrayList::new, KafkaStreamsJob::append,
                        KafkaStreamsJob::merge, Materialized.<String, List<Long>, SessionStore<Bytes, byte[]>>with(
                                Serdes.String(), VALUES).withStoreType(Materialized.StoreType.IN_MEMORY))
                : grouped.windowedBy(timeWindows).aggregate(ArrayList::new, KafkaStreamsJob::append,
                        Materialized.<String, List<Long>, WindowStore<Bytes, byte[]>>with(
                                Serdes.String(), VALUES).withStoreType(Materialized.StoreType.IN_MEMORY));
        windows.toStream().to(UPDATES, Produced.with(windowedKeys(), VALUES));
        KTable<Windowed<String>, List<Long>> results = emit == Emit.FINAL
                ? windows.suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded())) : windows;
        results.toStream().to(OUTPUT, Produced.with(windowedKeys(), VALUES));
        return builder.build();
    }

    private static List<Long> append(String key, Long value, List<Long> window) {
        List<Long> next = new ArrayList<>(window);
        next.add(value);
        return next;
    }

    private static List<Long> merge(String key, List<Long> one, List<Long> other) {
        List<Long> merged = new ArrayList<>(one);
        merged.addAll(other);
        return merged;
    }
}

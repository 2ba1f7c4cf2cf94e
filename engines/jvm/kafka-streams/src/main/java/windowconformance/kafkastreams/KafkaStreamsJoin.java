package windowconformance.kafkastreams;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.ValueJoiner;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import windowconformance.protocol.JoinCase;

/**
 * The Kafka Streams job a Kafka Streams user writes for a Flink interval join, with the DSL:
 *
 * <pre>
 * KStream&lt;String, Long&gt; left = builder.stream("left", ...), right = builder.stream("right", ...);
 * left.join(right, (l, r) -&gt; l + "," + r,                            // leftJoin, outerJoin for SQL's outer joins
 *           JoinWindows.ofTimeDifferenceWithNoGrace(d).before(b).after(a),
 *           StreamJoined.with(Serdes.String(), Serdes.Long(), Serdes.Long()).withDslStoreSuppliers(IN_MEMORY))
 *     .to("output");
 * </pre>
 *
 * <ul>
 *   <li>{@code KStream#join} looks, for a left record at {@code l}, for the right records at {@code [l - before,
 *       l + after]}, and for a right one at {@code r} the left records at {@code [r - after, r + before]}: the same
 *       pairs as Flink's {@code between(lower, upper)} ({@code l + lower <= r <= l + upper}) with {@code before =
 *       -lower}, {@code after = upper}. Flink SQL's {@code l.rt BETWEEN r.rt + lower AND r.rt + upper} is
 *       {@code before = upper}, {@code after = -lower}. {@code ofTimeDifferenceWithNoGrace(d)} is the symmetric
 *       window; {@code .before(..)} and {@code .after(..)} make it asymmetric, as a user does for other bounds
 *       (in Java {@code long}s: {@code -Long.MIN_VALUE} is itself, which Kafka then rejects).</li>
 *   <li>Kafka has no exclusive bound: {@code lowerBoundExclusive()} is the lower bound plus 1 ms, as Flink computes
 *       it ({@code upperBoundExclusive()} the upper minus 1), in Java {@code long} arithmetic.</li>
 *   <li>No grace: a case's watermarks come as heartbeat records ({@link JoinDrive}), as for the windows.</li>
 *   <li>Flink SQL's {@code LEFT JOIN} is {@code leftJoin}, {@code FULL JOIN} {@code outerJoin}, {@code RIGHT JOIN}
 *       the right stream's {@code leftJoin} of the left one (the window seen from the right: before and after
 *       swapped).</li>
 *   <li>The joiner writes both values, {@code null} for a side an outer join pads; the record's timestamp is
 *       Kafka's ({@code max} of the two for a pair, the record's own for a padded one).</li>
 * </ul>
 *
 * What Kafka Streams rejects ({@code JoinWindows}' own checks) is thrown by {@link #of}, in Kafka's words.
 */
final class KafkaStreamsJoin {

    /** The joins the engine runs (names from {@code window_contract.features}). */
    static final Set<String> FEATURES = Set.of("join.interval", "join.sql_interval");

    static final String LEFT = "left";
    static final String RIGHT = "right";
    static final String OUTPUT = "joined";

    private final long before;
    private final long after;
    private final Topology topology;

    private KafkaStreamsJoin(String type, long before, long after) {
        this.before = before;
        this.after = after;
        this.topology = topology(type);
    }

    /** The job for {@code c}; {@code IllegalArgumentException} (Kafka's words) when Kafka Streams rejects its
     * windows, {@code UnsupportedOperationException} for a join the engine does not declare. */
    static KafkaStreamsJoin of(JoinCase c) {
        JsonNode join = c.join();
        long lower = join.get("lower").asLong();
        long upper = join.get("upper").asLong();
        return switch (c.operation()) {
            case "interval_join" -> {
                long low = join.path("lower_exclusive").asBoolean() ? lower + 1 : lower;
                long up = join.path("upper_exclusive").asBoolean() ? upper - 1 : upper;
                yield of("inner", -low, up);
            }
            case "sql_interval_join" -> of(join.path("type").asText("inner"), upper, -lower);
            default -> throw new UnsupportedOperationException("kafka-streams does not declare " + c.operation());
        };
    }

    private static KafkaStreamsJoin of(String type, long before, long after) {
        return new KafkaStreamsJoin(type, before, after);
    }

    /** {@code ofTimeDifferenceWithNoGrace(d)} for a symmetric window, else the asymmetric one built from a window of
     * 0, its non-negative side first, so that no intermediate window is rejected (nor overflows) where the final
     * one is not: {@code JoinWindows} checks {@code before + after >= 0} at every step. */
    private static JoinWindows windows(long before, long after) {
        if (before == after) {
            return JoinWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis(before));
        }
        JoinWindows none = JoinWindows.ofTimeDifferenceWithNoGrace(Duration.ZERO);
        return after >= 0 ? none.after(Duration.ofMillis(after)).before(Duration.ofMillis(before))
                : none.before(Duration.ofMillis(before)).after(Duration.ofMillis(after));
    }

    /**
     * The largest timestamp a heartbeat carries: the end of input's. {@code KStreamKStreamJoin} looks up
     * {@code ts + after} (and {@code ts + before} on the other side) in {@code long}s that must not overflow.
     */
    long endOfTime() {
        return Long.MAX_VALUE - Math.max(0, Math.max(before, after));
    }

    Topology topology() {
        return topology;
    }

    private Topology topology(String type) {
        JoinWindows windows = windows(before, after);
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, Long> left = builder.stream(LEFT, Consumed.with(Serdes.String(), Serdes.Long()));
        KStream<String, Long> right = builder.stream(RIGHT, Consumed.with(Serdes.String(), Serdes.Long()));
        StreamJoined<String, Long, Long> stores = StreamJoined.<String, Long, Long>with(
                Serdes.String(), Serdes.Long(), Serdes.Long()).withDslStoreSuppliers(BuiltInDslStoreSuppliers.IN_MEMORY);
        ValueJoiner<Long, Long, String> pair = (l, r) -> l + "," + r;
        KStream<String, String> joined = switch (type) {
            case "inner" -> left.join(right, pair, windows, stores);
            case "left" -> left.leftJoin(right, pair, windows, stores);
            case "full" -> left.outerJoin(right, pair, windows, stores);
            case "right" -> right.leftJoin(left, (Long r, Long l) -> l + "," + r, windows(after, before), stores);
            default -> throw new UnsupportedOperationException("kafka-streams does not declare a " + type + " join");
        };
        joined.to(OUTPUT, Produced.with(Serdes.String(), Serdes.String()));
        return builder.build();
    }
}

package windowconformance.kafkastreams;

import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import windowconformance.protocol.JoinCase;
import windowconformance.protocol.JoinObservation;
import windowconformance.protocol.WindowCase;

/**
 * One join case through its job ({@link KafkaStreamsJoin}) on a {@code TopologyTestDriver} of its own, which runs
 * the topology in this thread, one record at a time, in the case's order across both inputs (the two topics are
 * one task's partitions).
 *
 * <ul>
 *   <li>A record is {@code pipeInput(key, value, ts)} on its input's topic. What the join forwards while it
 *       processes the record is output at the record's position.</li>
 *   <li>Kafka Streams has no watermarks: the join's clock is its <em>stream time</em>, the largest timestamp it has
 *       processed on either input ({@code KStreamImplJoin.TimeTracker}), which only records move. A Flink
 *       {@code Watermark(w)} on an input is what a Kafka Streams user sends to move it without data, as for the
 *       windows ({@link CaseDrive}): a heartbeat record at {@code w + 1} on that input's topic, on a key of its own
 *       (its pairs and padded rows are left out). The end of input is a heartbeat on each input at
 *       {@link KafkaStreamsJoin#endOfTime}. Watermark statuses and channel ends have nothing to send.</li>
 *   <li>The operator's watermark the observation reports is Kafka's clock in Flink's terms: stream time
 *       {@code s} says what {@code Watermark(s - 1)} says (the heartbeat's mapping read backwards), received at the
 *       event that moved stream time; an output carries the one in force when it came out.</li>
 *   <li>An outer join's null-padded records come out, in Kafka, at most once per
 *       {@code __emit.interval.ms.kstreams.outer.join.spurious.results.fix__} (1 s) of wall-clock time; the wall
 *       clock here does not move, and the interval is 0, as in production between records more than a second
 *       apart: they come out at the first record that finds them expired.</li>
 *   <li>Kafka Streams has no late side output and drops no record a join processes (a record behind stream time
 *       still joins what the other side's store keeps): {@code late} and {@code dropped} stay empty.</li>
 *   <li>An exception from the topology fails the job: a {@code runtime} error (its innermost cause), after the
 *       outputs emitted before it.</li>
 * </ul>
 */
final class JoinDrive {

    private static final Instant WALL_CLOCK_START = Instant.EPOCH;

    private final JoinCase c;
    private final KafkaStreamsJoin job;
    private final String heartbeat;
    private final boolean sql;
    private final JoinObservation observation = new JoinObservation();
    private TestInputTopic<String, Long> left;
    private TestInputTopic<String, Long> right;
    private TestOutputTopic<String, String> output;
    private long streamTime = Long.MIN_VALUE;
    private long watermark = Long.MIN_VALUE;

    private JoinDrive(JoinCase c, KafkaStreamsJoin job) {
        this.c = c;
        this.job = job;
        this.heartbeat = heartbeatKey(c);
        this.sql = c.operation().startsWith("sql_");
    }

    static JoinObservation run(JoinCase c, KafkaStreamsJoin job, Path stateDir) {
        return new JoinDrive(c, job).drive(stateDir);
    }

    private JoinObservation drive(Path stateDir) {
        try (TopologyTestDriver driver = new TopologyTestDriver(job.topology(), config(stateDir), WALL_CLOCK_START)) {
            left = driver.createInputTopic(KafkaStreamsJoin.LEFT, new StringSerializer(), new LongSerializer());
            right = driver.createInputTopic(KafkaStreamsJoin.RIGHT, new StringSerializer(), new LongSerializer());
            output = driver.createOutputTopic(KafkaStreamsJoin.OUTPUT, new StringDeserializer(),
                    new StringDeserializer());
            int at = 0;
            try {
                for (JoinCase.Event e : c.events()) {
                    play(e, at);
                    at++;
                }
                if (c.endOfInput()) {
                    pipe(KafkaStreamsJoin.LEFT, heartbeat, job.endOfTime(), at);
                    pipe(KafkaStreamsJoin.RIGHT, heartbeat, job.endOfTime(), at);
                }
            } catch (RuntimeException failed) {
                collect(at);
                observation.error("runtime", CaseDrive.innermost(failed).toString());
            }
        }
        return observation;
    }

    private void play(JoinCase.Event e, int at) {
        if (e.event() instanceof WindowCase.Record r) {
            pipe(e.input(), r.key(), r.ts(), at, r.value());
        } else if (e.event() instanceof WindowCase.Watermark m) {
            pipe(e.input(), heartbeat, m.timestamp() >= job.endOfTime() ? job.endOfTime() : m.timestamp() + 1, at);
        }
    }

    private void pipe(String input, String key, long ts, int at) {
        pipe(input, key, ts, at, 0L);
    }

    /** A record into its input's topic, then stream time and what the join forwarded, at position {@code at}. */
    private void pipe(String input, String key, long ts, int at, long value) {
        (KafkaStreamsJoin.LEFT.equals(input) ? left : right).pipeInput(key, value, ts);
        if (ts > streamTime) {
            streamTime = ts;
            watermark = ts - 1;
            observation.watermark(new JoinObservation.Watermark(at, watermark));
        }
        collect(at);
    }

    private void collect(int at) {
        for (TestRecord<String, String> r : output.readRecordsToList()) {
            if (!r.key().equals(heartbeat)) {
                String[] values = r.value().split(",");
                observation.output(new JoinObservation.Output(at, r.key(), r.timestamp(), watermark,
                        value(values[0]), value(values[1]), sql));
            }
        }
    }

    private static Long value(String text) {
        return "null".equals(text) ? null : Long.valueOf(text);
    }

    /** {@link CaseDrive#config}, and an outer join's padded records emitted whenever they are due (class comment). */
    private static Properties config(Path stateDir) {
        Properties config = CaseDrive.config(stateDir);
        config.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_OUTER_JOIN_SPURIOUS_RESULTS_FIX, 0L);
        return config;
    }

    /** A key none of the case's records has. */
    private static String heartbeatKey(JoinCase c) {
        Set<String> keys = new HashSet<>();
        c.events().stream().map(JoinCase.Event::event).filter(WindowCase.Record.class::isInstance)
                .forEach(r -> keys.add(((WindowCase.Record) r).key()));
        return CaseDrive.heartbeatKey(keys);
    }
}

package windowconformance.kafkastreams;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.test.TestRecord;
import windowconformance.protocol.Contract;
import windowconformance.protocol.Observation;
import windowconformance.protocol.WindowCase;

/**
 * One case through its job on a {@code TopologyTestDriver} of its own: the driver runs the topology in this thread,
 * one record at a time, with the timestamps the case gives and a wall clock frozen at the epoch.
 *
 * <ul>
 *   <li>A record is {@code pipeInput(key, value, ts)} on the input topic.</li>
 *   <li>Kafka Streams has no watermarks: its stream time is the largest timestamp it has seen, and only a record
 *       moves it. A Flink {@code Watermark(w)} (no record at or before {@code w} follows) is therefore what a Kafka
 *       Streams user sends to move stream time along: a heartbeat record at {@code w + 1}, on a key of its own
 *       (none of the case's; its windows' results are left out). With no grace, a window closes once stream time
 *       reaches its end, so the windows Flink fires at {@code maxTimestamp = end - 1 <= w} close with it. The
 *       case's records move stream time too: that is Kafka Streams' own rule, and where it differs from the
 *       listed watermarks, the engine does.</li>
 *   <li>The end of input, and {@code Watermark(Long.MAX_VALUE)}, is a last heartbeat at the largest timestamp
 *       Kafka Streams can window ({@link KafkaStreamsJob#endOfTime}): Kafka has no end of input, and a user who
 *       wants the last windows out of {@code suppress} sends such a record.</li>
 *   <li>A {@code processing_time} event advances the driver's wall clock ({@code advanceWallClockTime}); the job
 *       reads it nowhere (suppression and stream time are event time).</li>
 *   <li>Every output record is a firing: its key's window (a session's, closed in Kafka, as the half-open
 *       {@code [first, last + 1)}), its timestamp (the output record's), its list of
 *       values. A null value (a session merged into another, with {@code UPDATES}) retracts a result: it is no
 *       firing.</li>
 *   <li>Kafka Streams has no late side output: the aggregate skips a record's expired windows and only logs it
 *       (and counts it in the task's {@code dropped-records} metric, which counts windows, and also what a store's
 *       retention drops). A record is <em>dropped</em> when the aggregate forwarded no update for it: the adapter
 *       reads the aggregate's updates topic ({@link KafkaStreamsJob#UPDATES}) after each record.</li>
 *   <li>A record that Kafka would put in more windows than the contract compares stops the case before it, with
 *       the contract's {@code runtime} error ({@link Contract}); a heartbeat is such a record too (a sliding
 *       window of millions of slides gives a heartbeat millions of windows).</li>
 *   <li>An exception from the topology fails the job: a {@code runtime} error (its innermost cause), after the
 *       results emitted before it.</li>
 * </ul>
 */
final class CaseDrive {

    private static final Instant WALL_CLOCK_START = Instant.EPOCH;

    private final WindowCase c;
    private final KafkaStreamsJob job;
    private final Contract contract;
    private final String heartbeat;
    private final Observation observation = new Observation();
    private TestInputTopic<String, Long> input;
    private TestOutputTopic<Windowed<String>, List<Long>> output;
    private TestOutputTopic<Windowed<String>, List<Long>> updates;

    private CaseDrive(WindowCase c, KafkaStreamsJob job, Contract contract) {
        this.c = c;
        this.job = job;
        this.contract = contract;
        this.heartbeat = heartbeatKey(c);
    }

    static Observation run(WindowCase c, KafkaStreamsJob job, Contract contract, Path stateDir) {
        return new CaseDrive(c, job, contract).drive(stateDir);
    }

    private Observation drive(Path stateDir) {
        try (TopologyTestDriver driver = new TopologyTestDriver(job.topology(), config(stateDir), WALL_CLOCK_START)) {
            input = driver.createInputTopic(KafkaStreamsJob.INPUT, new StringSerializer(), new LongSerializer());
            output = driver.createOutputTopic(
                    KafkaStreamsJob.OUTPUT, job.windowedKeys().deserializer(), KafkaStreamsJob.VALUES.deserializer());
            updates = driver.createOutputTopic(
                    KafkaStreamsJob.UPDATES, job.windowedKeys().deserializer(), KafkaStreamsJob.VALUES.deserializer());
            try {
                play(driver);
            } catch (TooManyWindows stopped) {
                observation.error("runtime", contract.tooManyWindows());
            } catch (RuntimeException failed) {
                collect();
                observation.error("runtime", innermost(failed).toString());
            }
        }
        return observation;
    }

    private void play(TopologyTestDriver driver) {
        long clock = 0;
        for (WindowCase.Event e : c.events()) {
            if (e instanceof WindowCase.Record r) {
                pipe(r.key(), r.value(), r.ts());
                if (updates.readRecordsToList().stream().noneMatch(u -> u.value() != null)) {
                    observation.dropped(new Observation.Late(r.key(), r.value(), r.ts()));
                }
            } else if (e instanceof WindowCase.Watermark m) {
                pipe(heartbeat, 0L, heartbeatTime(m.timestamp()));
                updates.readRecordsToList();
            } else if (e instanceof WindowCase.ProcessingTime p && p.time() > clock) {
                driver.advanceWallClockTime(Duration.ofMillis(p.time() - clock));
                clock = p.time();
            }
            collect();
        }
        if (c.endOfInput()) {
            pipe(heartbeat, 0L, job.endOfTime());
            collect();
        }
    }

    /** A record into the job, unless Kafka would put it in more windows than the contract compares. */
    private void pipe(String key, long value, long ts) {
        if (job.windowsFor(ts) > contract.windowsPerElementLimit()) {
            throw new TooManyWindows();
        }
        input.pipeInput(key, value, ts);
    }

    /** The contract stops the case (class comment). */
    private static final class TooManyWindows extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooManyWindows() {
            super(null, null, false, false);
        }
    }

    /** The heartbeat for Flink's {@code Watermark(w)}: stream time {@code w + 1}, at most the end of time. */
    private long heartbeatTime(long w) {
        return w >= job.endOfTime() ? job.endOfTime() : w + 1;
    }

    private void collect() {
        for (TestRecord<Windowed<String>, List<Long>> r : output.readRecordsToList()) {
            if (!r.key().key().equals(heartbeat) && r.value() != null) {
                observation.fired(new Observation.Firing(r.key().key(), r.key().window().start(),
                        job.end(r.key().window()), r.timestamp(), r.value()));
            }
        }
    }

    /** The driver's configuration: no record cache, so every update is forwarded at once; state under
     * {@code stateDir}. */
    static Properties config(Path stateDir) {
        Properties config = new Properties();
        config.put(StreamsConfig.APPLICATION_ID_CONFIG, "window-conformance");
        config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        config.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return config;
    }

    /** A key none of the case's records has. */
    private static String heartbeatKey(WindowCase c) {
        Set<String> keys = new HashSet<>();
        c.records().forEach(r -> keys.add(r.key()));
        return heartbeatKey(keys);
    }

    /** A key none of {@code keys} is: a heartbeat's, whose results are left out. */
    static String heartbeatKey(Set<String> keys) {
        String key = "heartbeat";
        while (keys.contains(key)) {
            key += "'";
        }
        return key;
    }

    /** The innermost cause of a failure: what the job's error reports. */
    static Throwable innermost(Throwable e) {
        return e.getCause() == null || e.getCause() == e ? e : innermost(e.getCause());
    }
}

package windowconformance.kafkastreams;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import windowconformance.protocol.Contract;
import windowconformance.protocol.Engine;
import windowconformance.protocol.JoinCase;
import windowconformance.protocol.JoinObservation;
import windowconformance.protocol.Observation;
import windowconformance.protocol.Server;
import windowconformance.protocol.WindowCase;

/**
 * Kafka Streams 4.4 as an engine under test, a process speaking {@code window-process/1}: each case is the job a
 * Kafka Streams user writes for it ({@link KafkaStreamsJob}), run on a {@code TopologyTestDriver} of its own
 * ({@link CaseDrive}). {@code --emit=updates} runs the same jobs without {@code suppress} (the engine
 * {@code kafka-streams-updates}): Kafka's default, a result on every update. {@code kafka-streams} also runs Flink's
 * interval joins, DataStream's and SQL's, as {@code KStream#join}, {@code leftJoin} and {@code outerJoin}
 * ({@link KafkaStreamsJoin}, {@link JoinDrive}).
 */
public final class KafkaStreamsEngine implements Engine {

    private final KafkaStreamsJob.Emit emit;
    private final Contract contract;
    private final Path stateDir;

    private KafkaStreamsEngine(KafkaStreamsJob.Emit emit, Contract contract, Path stateDir) {
        this.emit = emit;
        this.contract = contract;
        this.stateDir = stateDir;
    }

    /** {@code KafkaStreamsEngine CONTRACT [--emit=updates]}: the contract's JSON ({@link Contract}). */
    public static void main(String[] args) throws Exception {
        Contract contract = Contract.fromJson(args[0]);
        KafkaStreamsJob.Emit emit = List.of(args).contains("--emit=updates")
                ? KafkaStreamsJob.Emit.UPDATES : KafkaStreamsJob.Emit.FINAL;
        Path stateDir = Files.createTempDirectory("kafka-streams-");
        try {
            Server.serve(new KafkaStreamsEngine(emit, contract, stateDir));
        } finally {
            delete(stateDir);
        }
    }

    @Override
    public String name() {
        return emit == KafkaStreamsJob.Emit.FINAL ? "kafka-streams" : "kafka-streams-updates";
    }

    @Override
    public Set<String> features() {
        Set<String> features = new HashSet<>(KafkaStreamsJob.TRANSLATED.features());
        if (emit == KafkaStreamsJob.Emit.FINAL) {
            features.addAll(KafkaStreamsJoin.FEATURES);
        }
        return features;
    }

    @Override
    public List<Observation> run(List<WindowCase> cases) {
        List<Observation> observations = new ArrayList<>();
        for (WindowCase c : cases) {
            KafkaStreamsJob job;
            try {
                job = KafkaStreamsJob.of(c, emit);
            } catch (IllegalArgumentException rejected) {
                observations.add(Observation.invalidSpec(rejected.getMessage()));
                continue;
            }
            observations.add(CaseDrive.run(c, job, contract, stateDir));
        }
        return observations;
    }

    /** Each join case as its Kafka Streams join ({@link KafkaStreamsJoin}) on a driver of its own ({@link JoinDrive}). */
    @Override
    public List<JoinObservation> runJoins(List<JoinCase> cases) {
        List<JoinObservation> observations = new ArrayList<>();
        for (JoinCase c : cases) {
            KafkaStreamsJoin job;
            try {
                job = KafkaStreamsJoin.of(c);
            } catch (IllegalArgumentException rejected) {
                observations.add(JoinObservation.invalidSpec(rejected.getMessage()));
                continue;
            }
            observations.add(JoinDrive.run(c, job, stateDir));
        }
        return observations;
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

package windowconformance.hazelcastjet;

import windowconformance.protocol.WindowCase;

/**
 * Flink's time in Jet's terms.
 *
 * <ul>
 *   <li>Flink's {@code Watermark(w)} says that no record at or before {@code w} follows, and fires a window once
 *       {@code w} reaches its {@code maxTimestamp = end - 1}; Jet's {@code Watermark(t)} says that none before {@code t}
 *       follows, and a window result is emitted once {@code end <= t} ({@code SlidingWindowP}). The same statement is
 *       {@code t = w + 1}.</li>
 *   <li>Flink's {@code forBoundedOutOfOrderness(bound)} emits {@code max - bound - 1}, Jet's
 *       {@code limitingLag(lag)} {@code max - lag}: the allowed lag is the bound. {@code forMonotonousTimestamps()}
 *       and the legacy {@code AscendingTimestampExtractor} ({@code max - 1}) are a lag of 0.</li>
 * </ul>
 */
final class Mapping {

    private Mapping() {}

    static long jetWatermark(long flinkWatermark) {
        return flinkWatermark == Long.MAX_VALUE ? Long.MAX_VALUE - 1 : flinkWatermark + 1;
    }

    static long allowedLag(WindowCase.Generator g) {
        return switch (g.type()) {
            case "bounded_out_of_orderness" -> g.bound();
            case "monotonous", "legacy_ascending" -> 0;
            default -> throw new UnsupportedOperationException("no " + g.type() + " generator");
        };
    }
}

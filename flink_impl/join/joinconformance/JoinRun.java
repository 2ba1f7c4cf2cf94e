package joinconformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one case's branch of the job observes, shared in the one JVM of the local MiniCluster: the position of the
 * event being replayed ({@link #at}), the join's current watermark, and the outputs, each a JSON array
 * ({@code [at, key, timestamp, watermark, left, right]} a pair, {@code [at, input, key, value, ts]} a late record,
 * {@code [at, watermark]} a watermark the join received). The whole branch runs in the source's one task thread.
 */
final class JoinRun {
    private static final Map<Integer, JoinRun> RUNS = new ConcurrentHashMap<>();

    final int id;
    volatile int at;
    volatile long watermark = Long.MIN_VALUE;
    volatile String errorMessage;
    final List<String> outputs = new ArrayList<>();
    final List<String> late = new ArrayList<>();
    final List<String> dropped = new ArrayList<>();
    final List<String> watermarks = new ArrayList<>();

    private JoinRun(int id) {
        this.id = id;
    }

    static JoinRun create(int id) {
        JoinRun run = new JoinRun(id);
        RUNS.put(id, run);
        return run;
    }

    static JoinRun get(int id) {
        return RUNS.get(id);
    }

    boolean failed() {
        return errorMessage != null;
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }
}

package windowconformance.hazelcastjet;

import com.hazelcast.jet.core.SlidingWindowPolicy;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import windowconformance.protocol.WindowCase;

/**
 * What the case's source plays ({@link CaseSourceP}): the case's records, and the watermarks it lists in Jet's terms
 * ({@link Mapping#jetWatermark}), each only if it increases, as Flink's input ignores one that does not (Jet fails a job
 * whose watermarks do not increase); whether a generator makes the watermarks instead (a {@code processing_time} event
 * moves a clock the job reads nowhere: the source's idle timeout is off and no window emits early results); whether the input ends; the key
 * of the sentinel (none of the case's); the sliding-window policy whose walk the source counts ({@link WindowEndWalk}; none for sessions);
 * and the run the job reports to ({@link Collected}).
 */
record CaseScript(List<SourceEvent> events, boolean generated, boolean endOfInput, int eventCount, String sentinelKey,
                  SlidingWindowPolicy slidingPolicy, long run) implements Serializable {

    static CaseScript of(WindowCase c, SlidingWindowPolicy slidingPolicy, long run) {
        List<SourceEvent> events = new ArrayList<>();
        long last = Long.MIN_VALUE;
        for (int i = 0; i < c.events().size(); i++) {
            WindowCase.Event e = c.events().get(i);
            if (e instanceof WindowCase.Record r) {
                events.add(new SourceEvent.Item(i, r.key(), r.value(), r.ts()));
            } else if (e instanceof WindowCase.Watermark m && Mapping.jetWatermark(m.timestamp()) > last) {
                last = Mapping.jetWatermark(m.timestamp());
                events.add(new SourceEvent.Mark(i, last));
            }
        }
        return new CaseScript(events, c.generator() != null, c.endOfInput(), c.events().size(), sentinelKey(c),
                slidingPolicy, run);
    }

    private static String sentinelKey(WindowCase c) {
        Set<String> keys = new HashSet<>();
        c.records().forEach(r -> keys.add(r.key()));
        String key = "sentinel";
        while (keys.contains(key)) {
            key += "'";
        }
        return key;
    }
}

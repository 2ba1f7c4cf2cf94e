package windowconformance.hazelcastjet;

import com.hazelcast.jet.core.AbstractProcessor;
import com.hazelcast.jet.core.Watermark;
import com.hazelcast.jet.datamodel.KeyedWindowResult;
import com.hazelcast.jet.impl.JetEvent;
import java.util.List;
import windowconformance.protocol.Observation;

/**
 * The stage after the window aggregation ({@code customTransform}): a custom processor receives the stream's items as
 * Jet carries them, each window result in a {@code JetEvent} with the timestamp the next event-time stage would see
 * ({@code WindowGroupTransform}: {@code winEnd - 1}), and the watermarks that follow each batch of results. It hands both
 * to the adapter ({@link Collected}) and emits nothing.
 */
final class ObserveP extends AbstractProcessor {

    private final long run;

    ObserveP(long run) {
        this.run = run;
    }

    @Override
    protected boolean tryProcess(int ordinal, Object item) {
        JetEvent<?> event = (JetEvent<?>) item;
        KeyedWindowResult<?, ?> r = (KeyedWindowResult<?, ?>) event.payload();
        @SuppressWarnings("unchecked")
        List<Long> values = (List<Long>) r.result();
        Collected.of(run).result(new Observation.Firing((String) r.key(), r.start(), r.end(), event.timestamp(), values));
        return true;
    }

    @Override
    public boolean tryProcessWatermark(Watermark watermark) {
        Collected.of(run).watermarkObserved();
        return true;
    }
}

package windowconformance;

import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput.DataOutput;

/**
 * Flink 2.x's {@link DataOutput}: its generalized watermarks ({@code WatermarkEvent}, new in 2.0) never reach the
 * runner's outputs. The Flink 1.20 build has the same class without that method (shims/flink-1.20). Public: the join
 * runner's valves (`flink_impl/join`) output through it too.
 */
public abstract class DataOutputShim<T> implements DataOutput<T> {
    @Override
    public void emitWatermark(WatermarkEvent watermark) {
        throw new UnsupportedOperationException("no generalized watermarks");
    }
}

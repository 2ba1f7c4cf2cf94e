package windowconformance;

import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.streaming.api.operators.Output;

/**
 * Flink 2.x's operator {@link Output}: its generalized watermarks ({@code WatermarkEvent}, new in 2.0) never reach
 * the runner's outputs. The Flink 1.20 build has the same class without that method (shims/flink-1.20).
 */
public abstract class OutputShim<T> implements Output<T> {
    @Override
    public void emitWatermark(WatermarkEvent watermark) {
        throw new UnsupportedOperationException("no generalized watermarks");
    }
}

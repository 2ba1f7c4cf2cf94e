package windowconformance;

import java.lang.reflect.Field;

import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;

/**
 * Replaces a stream graph node's operator factory: Flink 1.20's {@code StreamNode} has no setter (2.x's
 * {@code setOperatorFactory}), so its field {@code operatorFactory} is set, as that setter does.
 */
final class StreamNodeShim {
    private StreamNodeShim() {}

    static void setOperatorFactory(StreamNode node, StreamOperatorFactory<?> factory) {
        try {
            Field field = StreamNode.class.getDeclaredField("operatorFactory");
            field.setAccessible(true);
            field.set(node, factory);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Flink 1.20's StreamNode has no field operatorFactory", e);
        }
    }
}

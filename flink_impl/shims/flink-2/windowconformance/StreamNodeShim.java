package windowconformance;

import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.operators.StreamOperatorFactory;

/** Replaces a stream graph node's operator factory: Flink 2.x's {@code StreamNode.setOperatorFactory}. */
final class StreamNodeShim {
    private StreamNodeShim() {}

    static void setOperatorFactory(StreamNode node, StreamOperatorFactory<?> factory) {
        node.setOperatorFactory(factory);
    }
}

package windowconformance;

import org.apache.flink.streaming.api.operators.Output;

/** Flink 1.20's operator {@link Output}, which has no generalized watermarks (the 2.x build's shim refuses them). */
public abstract class OutputShim<T> implements Output<T> {}

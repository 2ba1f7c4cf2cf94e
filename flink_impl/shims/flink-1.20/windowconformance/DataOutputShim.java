package windowconformance;

import org.apache.flink.streaming.runtime.io.PushingAsyncDataInput.DataOutput;

/** Flink 1.20's {@link DataOutput}, which has no generalized watermarks (the 2.x build's shim refuses them). */
public abstract class DataOutputShim<T> implements DataOutput<T> {}

package windowconformance;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.Window;

/**
 * Flink 1.20's {@link WindowAssigner}, whose abstract default trigger still takes the environment (2.0 dropped it):
 * it is the assigner's {@code getDefaultTrigger()}, as in 2.x.
 */
abstract class WindowAssignerShim<T, W extends Window> extends WindowAssigner<T, W> {
    private static final long serialVersionUID = 1L;

    @Override
    public Trigger<T, W> getDefaultTrigger(StreamExecutionEnvironment env) {
        return getDefaultTrigger();
    }

    @Override
    public abstract Trigger<T, W> getDefaultTrigger();
}

package windowconformance;

import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.Window;

/** Flink 2.x's {@link WindowAssigner}: {@code getDefaultTrigger()} is its one abstract default trigger. */
abstract class WindowAssignerShim<T, W extends Window> extends WindowAssigner<T, W> {
    private static final long serialVersionUID = 1L;
}

package windowconformance;

import java.util.Collection;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Flink's own {@code SlidingEventTimeWindows} or {@code SlidingProcessingTimeWindows}, with the contract's limit on the
 * windows of one element ({@code conformance.facts.WINDOWS_PER_ELEMENT_LIMIT}).
 *
 * <p>Flink accepts up to {@code MAX_WINDOW_NUM} (10,000,000) windows an element, and near {@code Long.MIN_VALUE}
 * {@code start -= slide} wraps around to the top of the {@code long} range, where Flink's loop goes on for a few
 * windows, for millions, or until it fills the heap. Whether a job survives millions depends on its heap, so the
 * contract stops a case whose assignment yields more than {@code limit} windows for one element, wrapped or not, or
 * runs out of memory in the loop, with one message. The windows are Flink's; this class only counts them.
 */
final class WrappedAssignmentLimit extends WindowAssigner<Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    private final WindowAssigner<Object, TimeWindow> flink;
    private final int limit;
    private final String message;

    WrappedAssignmentLimit(WindowAssigner<Object, TimeWindow> flink, int limit, String message) {
        this.flink = flink;
        this.limit = limit;
        this.message = message;
    }

    @Override
    public Collection<TimeWindow> assignWindows(Object element, long timestamp, WindowAssignerContext context) {
        Collection<TimeWindow> windows;
        try {
            windows = flink.assignWindows(element, timestamp, context);
        } catch (OutOfMemoryError e) {
            throw new IllegalStateException(message);
        }
        if (windows.size() > limit) {
            throw new IllegalStateException(message);
        }
        return windows;
    }

    @Override
    public Trigger<Object, TimeWindow> getDefaultTrigger() {
        return flink.getDefaultTrigger();
    }

    @Override
    public TypeSerializer<TimeWindow> getWindowSerializer(ExecutionConfig executionConfig) {
        return flink.getWindowSerializer(executionConfig);
    }

    @Override
    public boolean isEventTime() {
        return flink.isEventTime();
    }

    @Override
    public String toString() {
        return flink.toString();
    }
}

package windowconformance;

import java.util.Collection;
import java.util.Iterator;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Flink's own {@code SlidingEventTimeWindows} or {@code SlidingProcessingTimeWindows}, with the contract's limit on the one assignment that
 * can run away ({@code conformance.observation.WRAPPED_WINDOWS_LIMIT}).
 *
 * <p>Near {@code Long.MIN_VALUE}, {@code start -= slide} wraps around to the top of the {@code long}
 * range and Flink's loop goes on from there: it ends after a few windows, after millions, or never
 * (it then fills the heap). Whether a job survives millions depends on its heap, so the contract stops
 * a case whose assignment wraps and yields more than {@code limit} windows, or runs out of memory in
 * the loop, with one message. The windows are Flink's; this class only counts them: Flink's loop
 * yields decreasing starts, so a start above the one before it is where the loop wrapped.
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
        if (windows.size() > limit && wrapped(windows)) {
            throw new IllegalStateException(message);
        }
        return windows;
    }

    private static boolean wrapped(Collection<TimeWindow> windows) {
        Iterator<TimeWindow> it = windows.iterator();
        long previous = it.next().getStart();
        while (it.hasNext()) {
            long start = it.next().getStart();
            if (start > previous) {
                return true;
            }
            previous = start;
        }
        return false;
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

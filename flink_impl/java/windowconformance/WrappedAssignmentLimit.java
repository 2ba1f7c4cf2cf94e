package windowconformance;

import java.util.Collection;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Flink's own {@code SlidingEventTimeWindows} or {@code SlidingProcessingTimeWindows}, with the contract's limit on the
 * windows of one element ({@code window_contract.facts.WINDOWS_PER_ELEMENT_LIMIT}).
 *
 * <p>Flink accepts up to {@code MAX_WINDOW_NUM} (10,000,000) windows an element, and near {@code Long.MIN_VALUE}
 * {@code start -= slide} wraps around to the top of the {@code long} range, where Flink's loop goes on for a few
 * windows, for millions, or until it fills the heap. Whether a job survives millions depends on its heap, so the
 * contract stops a case whose assignment yields more than {@code limit} windows for one element, wrapped or not, or
 * runs out of memory in the loop, with one message. The windows are Flink's; this class only counts them.
 */
final class WrappedAssignmentLimit extends WindowAssignerShim<Object, TimeWindow> {
    private static final long serialVersionUID = 1L;

    private final WindowAssigner<Object, TimeWindow> flink;
    private final boolean eventTime;
    private final long size;
    private final long slide;
    private final long offset;
    private final int limit;
    private final String message;

    WrappedAssignmentLimit(WindowAssigner<Object, TimeWindow> flink, boolean eventTime, long size, long slide,
                           long offset, int limit, String message) {
        this.flink = flink;
        this.eventTime = eventTime;
        this.size = size;
        this.slide = slide;
        this.offset = offset;
        this.limit = limit;
        this.message = message;
    }

    @Override
    public Collection<TimeWindow> assignWindows(Object element, long timestamp, WindowAssignerContext context) {
        long time = eventTime ? timestamp : context.getCurrentProcessingTime();
        // Where Flink's assigner fails before its loop, it speaks for itself: Long.MIN_VALUE is its "no timestamp",
        // and (int) (size / slide) sizes its list (a negative slide or a cast that overflows: "Illegal Capacity").
        boolean flinkLoops = (!eventTime || timestamp != Long.MIN_VALUE) && slide > 0 && (int) (size / slide) >= 0;
        if (flinkLoops && exceedsLimit(time)) {
            throw new IllegalStateException(message);
        }
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

    /**
     * Whether Flink's loop ({@code for (start = lastStart; start > time - size; start -= slide)}) would yield more than
     * {@code limit} windows for {@code time}: counted ahead, in the same {@code long} arithmetic, so that a loop that
     * wraps for ever is stopped at once instead of filling the heap (which, with a large heap, outlasts the job's
     * timeout and reads as a case that never ends).
     */
    private boolean exceedsLimit(long time) {
        int count = 0;
        for (long start = TimeWindow.getWindowStartWithOffset(time, offset, slide); start > time - size; start -= slide) {
            if (++count > limit) {
                return true;
            }
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

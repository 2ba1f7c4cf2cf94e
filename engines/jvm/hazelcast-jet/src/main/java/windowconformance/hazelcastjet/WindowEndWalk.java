package windowconformance.hazelcastjet;

import com.hazelcast.jet.core.SlidingWindowPolicy;
import java.util.TreeSet;

/**
 * The work of Jet's sliding-window stage ({@code SlidingWindowP}), counted by the stage's own rules before the source
 * sends what causes it. Jet emits a watermark's results by walking every window end from the first it has not emitted
 * up to the watermark, one frame (slide) at a time, empty ones included ({@code windowTraverserAndEvictor}:
 * {@code range(startingWindowTs(wm), wm, frameSize)}), and the end of its input likewise up to the last window of its
 * top frame ({@code flushBuffers}); at each window end it combines the window from its {@code size / slide} frames
 * ({@code computeWindow}: {@code recomputeWindow}, as the aggregation has no deduct function; a tumbling window is its
 * one frame). The count is of frames visited: a watermark far ahead is a walk of billions (about 140 ns a window end
 * of a tumbling window on this machine, both stages together), and Flink's {@code Watermark(Long.MAX_VALUE)} one of
 * about {@code 2^63 / slide} window ends. The rules, from {@code SlidingWindowP}:
 *
 * <ul>
 *   <li>a record goes to the frame {@code higherFrameTs(ts)}, unless that frame is below {@code nextWinToEmit}
 *       (a late record is dropped);</li>
 *   <li>a watermark {@code wm} walks from {@code nextWinToEmit}, or, before the first watermark, from
 *       {@code min(lowest frame, floorFrameTs(wm))} (nothing when no frame holds data), up to {@code wm}: {@code 1 +
 *       (wm - start) / frameSize} window ends, in {@code long} arithmetic; then {@code nextWinToEmit =
 *       higherFrameTs(wm)} and the frames of the windows it completed are evicted;</li>
 *   <li>the end of input walks, when a frame still holds data, up to {@code topTs + windowSize - frameSize}.</li>
 * </ul>
 *
 * Session windows do not walk ({@code SessionWindowP} closes sessions from a sorted map of their ends): without a
 * sliding-window policy, every count is 0.
 */
final class WindowEndWalk {

    private final SlidingWindowPolicy policy;
    private final TreeSet<Long> frames = new TreeSet<>();
    private long nextWinToEmit = Long.MIN_VALUE;
    private long topTs = Long.MIN_VALUE;

    /** The walk of the stage with {@code policy}, or of none when it is null. */
    WindowEndWalk(SlidingWindowPolicy policy) {
        this.policy = policy;
    }

    /** A record at {@code ts} reaches the stage. */
    void record(long ts) {
        if (policy == null) {
            return;
        }
        long frameTs = policy.higherFrameTs(ts);
        if (frameTs >= nextWinToEmit) {
            frames.add(frameTs);
            topTs = Math.max(topTs, frameTs);
        }
    }

    /** The frames the stage visits for watermark {@code wm}, which then reaches it. */
    long watermark(long wm) {
        if (policy == null) {
            return 0;
        }
        long walked = walk(wm);
        frames.headSet(wm - policy.windowSize() + policy.frameSize(), true).clear();
        nextWinToEmit = policy.higherFrameTs(wm);
        return walked;
    }

    /** The frames the stage visits at the end of its input. */
    long endOfInput() {
        return policy == null || frames.isEmpty() ? 0 : walk(topTs + policy.windowSize() - policy.frameSize());
    }

    private long walk(long wm) {
        long start;
        if (nextWinToEmit != Long.MIN_VALUE) {
            start = nextWinToEmit;
        } else if (frames.isEmpty()) {
            return 0;
        } else {
            start = Math.min(frames.first(), policy.floorFrameTs(wm));
        }
        // SlidingWindowP.range: LongStream.iterate(start, n -> n + step).limit(1 + (end - start) / step); a negative
        // limit (the difference overflowed) fails the job at once, which Jet then does itself
        long ends = start > wm ? 0 : Math.max(0, 1 + (wm - start) / policy.frameSize());
        long framesPerWindow = policy.windowSize() / policy.frameSize();
        return ends > Long.MAX_VALUE / framesPerWindow ? Long.MAX_VALUE : ends * framesPerWindow;
    }
}

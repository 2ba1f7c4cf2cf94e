package windowconformance;

import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.operators.ProcessingTimeService.ProcessingTimeCallback;
import org.apache.flink.streaming.runtime.tasks.ProcessingTimeService;
import org.apache.flink.util.clock.Clock;

/**
 * The window operator's processing-time service, on the case's clock instead of the wall clock: the
 * case's {@code processing_time} events move it, and the timers it holds fire in the replay thread,
 * during the event that made them due.
 *
 * <p>When a timer fires, relative to the clock, is real Flink's rule, not its test harness's.
 * {@code SystemProcessingTimeService.registerTimer(t)} schedules the callback
 * {@code ProcessingTimeServiceUtil.getProcessingTimeDelay(t, now)} ms ahead: {@code t - now + 1} for
 * {@code t >= now}, "to align the semantics with watermark" (a record that arrives while the clock
 * reads t still comes before the timer for t, as a record with timestamp T is not late at watermark
 * T), and 0 for a timer already past. Both cases say the same thing: a timer for t is due once the
 * clock reads more than t. The callback gets t itself. (Flink's {@code TestProcessingTimeService},
 * behind {@code WindowOperatorTest}'s {@code setProcessingTime}, fires a timer for t when the clock
 * reaches t, one millisecond earlier than any real task would.)
 *
 * <p>Due timers fire when the clock moves ({@link #advanceTo}), and after every other event of the
 * case ({@link #fireDue}): a timer registered already past (a processing-time trigger on an
 * event-time window that ended before now) gets delay 0, and its mail runs before the task takes
 * its next input. Timers due at the same time fire in timestamp order, then in registration order;
 * timers registered while firing are due in the same advance when they are past too, as
 * {@code InternalTimerServiceImpl.onProcessingTime} re-registers its next head.
 *
 * <p>The end of input fires nothing: a finishing task quiesces its processing-time service
 * ({@code StreamOperatorWrapper.finish}) and pending processing-time timers never fire.
 *
 * <p>Not {@code org.apache.flink.util.clock.ManualClock}: it counts nanoseconds, which leave the long
 * range past 2^63 / 10^6 ms, and a case's clock may be any long.
 */
final class CaseProcessingTime implements ProcessingTimeService {
    private final CaseClock clock = new CaseClock();
    private final PriorityQueue<PendingTimer> timers = new PriorityQueue<>();
    private long registrations;
    private boolean quiesced;

    /** The case's clock moves to {@code time} (never back), and the timers due by then fire. */
    void advanceTo(long time) throws Exception {
        clock.now = Math.max(clock.now, time);
        fireDue();
    }

    /** Fires, in timestamp order, every timer for a time before the clock's. */
    void fireDue() throws Exception {
        PendingTimer next;
        while (!quiesced && (next = timers.peek()) != null && next.timestamp < clock.now) {
            timers.poll();
            if (!next.cancelled) {
                next.done = true;
                next.callback.onProcessingTime(next.timestamp);
            }
        }
    }

    @Override
    public long getCurrentProcessingTime() {
        return clock.now;
    }

    @Override
    public Clock getClock() {
        return clock;
    }

    @Override
    public ScheduledFuture<?> registerTimer(long timestamp, ProcessingTimeCallback callback) {
        PendingTimer timer = new PendingTimer(timestamp, registrations++, callback);
        if (!quiesced) {
            timers.add(timer);
        }
        return timer;
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(ProcessingTimeCallback callback, long initialDelay, long period) {
        throw new UnsupportedOperationException("the window operator registers single timers only");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(ProcessingTimeCallback callback, long initialDelay, long period) {
        throw new UnsupportedOperationException("the window operator registers single timers only");
    }

    @Override
    public CompletableFuture<Void> quiesce() {
        quiesced = true;
        timers.clear();
        return CompletableFuture.completedFuture(null);
    }

    /** The case's processing time; relative and absolute time are the same. */
    private static final class CaseClock extends Clock {
        long now;

        @Override
        public long absoluteTimeMillis() {
            return now;
        }

        @Override
        public long relativeTimeMillis() {
            return now;
        }

        @Override
        public long relativeTimeNanos() {
            // Saturates where nanoseconds leave the long range.
            return now > Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : now * 1_000_000;
        }
    }

    /** A registered callback; cancelling it (as InternalTimerServiceImpl does for a new head) skips it. */
    private static final class PendingTimer implements ScheduledFuture<Object>, Comparable<Delayed> {
        final long timestamp;
        final long registration;
        final ProcessingTimeCallback callback;
        boolean cancelled;
        boolean done;

        PendingTimer(long timestamp, long registration, ProcessingTimeCallback callback) {
            this.timestamp = timestamp;
            this.registration = registration;
            this.callback = callback;
        }

        @Override
        public int compareTo(Delayed other) {
            PendingTimer o = (PendingTimer) other;
            int byTime = Long.compare(timestamp, o.timestamp);
            return byTime != 0 ? byTime : Long.compare(registration, o.registration);
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return 0; // not on a real clock: no one waits for it
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            return null;
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return null;
        }
    }
}

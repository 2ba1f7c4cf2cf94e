package windowconformance.hazelcastjet;

import com.hazelcast.jet.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import windowconformance.protocol.Observation;

/**
 * What one job told the adapter, collected in this JVM (the member is embedded: the job's functions and processors run
 * here, on Jet's threads): the records its aggregation took, the results and watermarks that reached the observing
 * stage, the watermarks the source emitted, and where the source stopped the case, if it did.
 */
final class Collected {

    /** The index the source's last record, the sentinel, takes ({@link CaseSourceP}). */
    static final int SENTINEL = -1;

    private static final AtomicLong RUNS = new AtomicLong();
    private static final Map<Long, Collected> BY_RUN = new ConcurrentHashMap<>();

    private final Set<Integer> taken = ConcurrentHashMap.newKeySet();
    private final List<Observation.Firing> results = new ArrayList<>();
    private long watermarksEmitted;
    private long watermarksObserved;
    private Integer stoppedAt;

    private Collected() {}

    /** A new run's id: the job's functions find its collection by it. */
    static long open() {
        long run = RUNS.incrementAndGet();
        BY_RUN.put(run, new Collected());
        return run;
    }

    static Collected of(long run) {
        return BY_RUN.get(run);
    }

    static void close(long run) {
        BY_RUN.remove(run);
    }

    /** The aggregation took the record at {@code index} into a frame or a session. */
    synchronized void took(int index) {
        taken.add(index);
        notifyAll();
    }

    boolean wasTaken(int index) {
        return taken.contains(index);
    }

    synchronized void result(Observation.Firing firing) {
        results.add(firing);
    }

    synchronized List<Observation.Firing> results() {
        return new ArrayList<>(results);
    }

    synchronized void watermarkEmitted() {
        watermarksEmitted++;
    }

    private synchronized void ended() {
        notifyAll();
    }

    synchronized void watermarkObserved() {
        watermarksObserved++;
        notifyAll();
    }

    /** The source stopped the case at the event {@code index} (the number of events for the end of input). */
    synchronized void stoppedAt(int index) {
        stoppedAt = index;
    }

    synchronized OptionalInt stopped() {
        return stoppedAt == null ? OptionalInt.empty() : OptionalInt.of(stoppedAt);
    }

    /**
     * Waits until the job ends, or, when its source does not end it (a case without end of input, a case stopped),
     * until the job has done everything the source sent: the window stage took the source's last record, the
     * sentinel, so it has processed every event before it, and every watermark the source emitted has reached the
     * observing stage, after the results it made. The job is then cancelled.
     */
    void awaitEnd(Job job) throws InterruptedException {
        job.getFuture().whenComplete((result, failure) -> ended());
        synchronized (this) {
            while (!job.getFuture().isDone() && !(taken.contains(SENTINEL) && watermarksObserved == watermarksEmitted)) {
                wait();
            }
        }
        if (!job.getFuture().isDone()) {
            job.cancel();
        }
    }
}

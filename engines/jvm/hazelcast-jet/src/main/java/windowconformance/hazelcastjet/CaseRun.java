package windowconformance.hazelcastjet;

import com.hazelcast.jet.JetService;
import com.hazelcast.jet.Job;
import com.hazelcast.jet.pipeline.Pipeline;
import java.util.concurrent.CancellationException;
import windowconformance.protocol.Contract;
import windowconformance.protocol.Observation;
import windowconformance.protocol.WindowCase;

/**
 * One case through its job, a light job on the embedded member ({@link JetJob}, {@link CaseSourceP}).
 *
 * <ul>
 *   <li>Every result that reached the observing stage is a firing ({@link ObserveP}).</li>
 *   <li>A record is dropped when the aggregation never took it ({@link Collected#took}): Jet drops a late record
 *       before it accumulates it, and only logs and counts it ({@code lateEventsDropped}).</li>
 *   <li>A job that fails is a {@code runtime} error (its innermost cause), after the results emitted before it.</li>
 *   <li>A case the source stopped ({@link CaseSourceP#WALK_LIMIT}) is a {@code runtime} error that says so, after the
 *       results of the events before the one it stopped at; the records from there on are neither taken nor
 *       dropped.</li>
 *   <li>A record that Flink would put in more sliding windows than the contract compares stops the case there, with
 *       the contract's error: every record of a sliding window is in {@code size / slide} windows, so the case stops
 *       at its first record, before which nothing can fire.</li>
 * </ul>
 */
final class CaseRun {

    private CaseRun() {}

    static Observation run(WindowCase c, JetService jet, Contract contract) {
        long run = Collected.open();
        try {
            JetJob job;
            try {
                job = JetJob.of(c, run);
            } catch (IllegalArgumentException rejected) {
                return Observation.invalidSpec(rejected.getMessage());
            }
            if (!c.records().isEmpty() && windowsPerRecord(c.window()) > contract.windowsPerElementLimit()) {
                Observation stopped = new Observation();
                stopped.error("runtime", contract.tooManyWindows());
                return stopped;
            }
            return observation(job.script(), Collected.of(run), play(jet, job.pipeline(), Collected.of(run)));
        } finally {
            Collected.close(run);
        }
    }

    /** Runs the job to its end; the innermost cause of its failure, or null. */
    private static String play(JetService jet, Pipeline pipeline, Collected collected) {
        Job job = jet.newLightJob(pipeline);
        try {
            collected.awaitEnd(job);
            job.join();
            return null;
        } catch (CancellationException cancelled) {
            return null;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the job ran", interrupted);
        } catch (RuntimeException failed) {
            return innermost(failed).toString();
        }
    }

    private static Observation observation(CaseScript script, Collected collected, String failure) {
        Observation o = new Observation();
        collected.results().forEach(o::fired);
        for (SourceEvent e : script.events()) {
            if (e instanceof SourceEvent.Item item && !collected.wasTaken(item.index())
                    && collected.stopped().orElse(Integer.MAX_VALUE) > item.index()) {
                o.dropped(new Observation.Late(item.key(), item.value(), item.ts()));
            }
        }
        if (failure != null) {
            o.error("runtime", failure);
        } else if (collected.stopped().isPresent()) {
            o.error("runtime", CaseSourceP.STOPPED);
        }
        return o;
    }

    /** How many windows Flink's sliding assigner gives each record ({@code size / slide}); one for other windows. */
    private static long windowsPerRecord(WindowCase.Window w) {
        return "sliding".equals(w.assigner()) ? w.size() / w.slide() : 1;
    }

    private static Throwable innermost(Throwable e) {
        return e.getCause() == null || e.getCause() == e ? e : innermost(e.getCause());
    }
}

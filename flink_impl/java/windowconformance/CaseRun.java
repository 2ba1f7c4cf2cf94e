package windowconformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.util.RawValue;

/**
 * What one case's branch of a job observed, recorded as it happens.
 *
 * <p>Every operator of a branch runs in one task thread (the chain source -> replay -> window ->
 * recorders), so {@link #at} set by {@link EventReplayOperator} before it forwards an event is the
 * event during which the window operator produced an output. The job's functions are serialized, so
 * they find their run through the static registry by id. Outputs are kept as they are produced:
 * when the job fails, what came before the failure stays observed. Each is kept as its JSON text, not
 * as a tree of nodes (a fifth of the memory): a request may hold several cases stopped at the output
 * limit, and their trees outgrew the runner's heap.
 */
final class CaseRun {
    private static final AtomicInteger NEXT_ID = new AtomicInteger();
    /** Orders the ends and failures of every case, to tell which came before a job's first failure. */
    private static final AtomicLong MOMENTS = new AtomicLong();
    private static final Map<Integer, CaseRun> ACTIVE = new ConcurrentHashMap<>();
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    final int id = NEXT_ID.incrementAndGet();
    final JsonNode spec;
    /** Index of the event being replayed; written and read only by the branch's task thread. */
    int at;
    /** The branch's task thread, to check that the chain really is one thread. */
    volatile Thread replayThread;
    /** The window operator's processing-time service, set when its factory creates it ({@link CaseClockWindowOperator}). */
    volatile CaseProcessingTime processingTime;
    /**
     * The {@code processing_time} event whose clock reading a window aggregate behind an exchange is firing its timers
     * at (SQL's {@code CaseClockWindowAggregate}), or -1: written and read only by that aggregate's task thread.
     */
    int aggregateAt = -1;
    private final List<String> firings = new ArrayList<>();
    private final List<String> late = new ArrayList<>();
    private final List<String> dropped = new ArrayList<>();
    /** The window operator's input watermarks, or null when the case does not observe them. */
    private final List<String> watermarks;
    /**
     * The event during which the window operator's input received each watermark (they only increase), for an API
     * whose outputs reach their recorder in another thread ({@link #eventOfWatermark}).
     */
    private final Map<Long, Integer> watermarkEvents = new ConcurrentHashMap<>();
    private ObjectNode error;
    /** Set when the replay operator receives the case's first event. */
    private volatile boolean started;
    /** Set when the replay operator has forwarded the last event: nothing can happen after it. */
    private volatile boolean finished;
    /**
     * Set when the case's recorder has seen the end of its input, which follows the case's last output through any
     * exchange: with an API whose outputs reach their recorder in another thread
     * ({@link Api#branchesRunInTheReplayThread}), only this says that every output has arrived.
     */
    private volatile boolean outputsEnded;
    /** When the case finished and when it failed ({@link #MOMENTS}), 0 until then. */
    private volatile long finishedAt;
    private volatile long failedAt;
    /** The case was not replayed because another case did not end: it must run again elsewhere. */
    private boolean retry;

    /**
     * The contract's limit on the outputs of one key (window_contract/facts.py, OUTPUT_LIMIT): a key's next
     * output stops the case with {@link #tooManyOutputs}. A continuous trigger over a window with contents
     * emits at every fire time, without end where its timers never end.
     */
    private final int outputLimit;
    private final String tooManyOutputs;
    private final Map<String, Integer> outputsPerKey = new HashMap<>();
    /** The error message the contract prescribes for a case stopped because it would never end. */
    private final String neverEnds;
    /** The contract's limit on a sliding assignment that wraps around, and its message (see {@link WrappedAssignmentLimit}). */
    final int wrappedWindowsLimit;
    final String tooManyWindows;

    CaseRun(JsonNode spec, int outputLimit, String tooManyOutputs, String neverEnds, int wrappedWindowsLimit,
            String tooManyWindows) {
        this.spec = spec;
        this.outputLimit = outputLimit;
        this.tooManyOutputs = tooManyOutputs;
        this.neverEnds = neverEnds;
        this.wrappedWindowsLimit = wrappedWindowsLimit;
        this.tooManyWindows = tooManyWindows;
        this.watermarks = CaseWatermarks.observed(spec) ? new ArrayList<>() : null;
        ACTIVE.put(id, this);
    }

    static CaseRun get(int id) {
        CaseRun run = ACTIVE.get(id);
        if (run == null) {
            throw new IllegalStateException("no active case run " + id);
        }
        return run;
    }

    void release() {
        ACTIVE.remove(id);
    }

    /**
     * Whether a case of this case's job has failed: the job is over, and what a branch would replay after that is
     * thrown away (its case runs again in another job). Flink 2.x stops the task thread at the failure; on Flink
     * 1.20 the thread was seen to go on replaying the job's other branches, a long burst of timers among them,
     * for longer than the job's timeout. Shared by the cases of one job ({@link #joinJob}).
     */
    private AtomicBoolean jobFailed = new AtomicBoolean();

    /** This case runs in a job with the others given the same flag. */
    void joinJob(AtomicBoolean failed) {
        jobFailed = failed;
    }

    boolean jobFailed() {
        return jobFailed.get();
    }

    /**
     * This case's failure fails its job. Only then: a failure recorded without failing the job (behind an exchange,
     * {@link EventReplayOperator}) leaves the job's other branches to replay on, and the job to end.
     */
    void failJob() {
        jobFailed.set(true);
    }

    /** Forgets what a job that another case made fail observed, before this case runs again. */
    synchronized void reset() {
        firings.clear();
        late.clear();
        dropped.clear();
        outputsPerKey.clear();
        if (watermarks != null) {
            watermarks.clear();
        }
        watermarkEvents.clear();
        error = null;
        replayThread = null;
        started = false;
        finished = false;
        outputsEnded = false;
        finishedAt = 0;
        failedAt = 0;
    }

    void start() {
        started = true;
    }

    boolean started() {
        return started;
    }

    void finish() {
        finishedAt = MOMENTS.incrementAndGet();
        finished = true;
    }

    /** When the case finished, or 0 (an order, not a time: {@link #failedAt}). */
    long finishedAt() {
        return finishedAt;
    }

    /** When the case failed while running, or 0. */
    long failedAt() {
        return failedAt;
    }

    boolean finished() {
        return finished;
    }

    /** The recorder has seen the end of its input: no output of the case is on its way any more. */
    void endOfOutputs() {
        outputsEnded = true;
    }

    boolean outputsEnded() {
        return outputsEnded;
    }

    synchronized void retry() {
        reset();
        retry = true;
    }

    synchronized boolean mustRetry() {
        return retry;
    }

    synchronized boolean failed() {
        return error != null;
    }

    synchronized void invalidSpec(String message) {
        error = errorNode("invalid_spec", message);
    }

    /** The first failure ends the case (a failed job runs nothing after it). */
    synchronized void runtimeError(Throwable failure) {
        if (error == null) {
            failedAt = MOMENTS.incrementAndGet();
            Throwable root = rootCause(failure);
            error = errorNode("runtime", root.getMessage() != null ? root.getMessage() : root.toString());
        }
    }

    /** One more output of {@code key}, or, past the limit, the end of the case. */
    private void countOutput(String key) {
        int emitted = outputsPerKey.getOrDefault(key, 0);
        if (emitted >= outputLimit) {
            // Thrown through the window operator, this ends the job: the branch records it as its failure.
            throw new IllegalStateException(tooManyOutputs);
        }
        outputsPerKey.put(key, emitted + 1);
    }

    /** The case was stopped from outside (its job timed out): it would never have ended. */
    void stoppedForEver() {
        runtimeError(new IllegalStateException(neverEnds));
    }

    synchronized void fired(FiringRecord f, long timestamp) {
        countOutput(f.key);
        ObjectNode window = JSON.objectNode();
        if (f.global) {
            window.put("global", true);
        } else {
            window.put("start", f.start).put("end", f.end);
        }
        ArrayNode values = JSON.arrayNode();
        Arrays.stream(f.values).forEach(values::add);
        ObjectNode firing = JSON.objectNode().put("at", f.at).put("key", f.key);
        firing.set("window", window);
        firing.put("timestamp", timestamp);
        firing.set("values", values);
        firing.put("watermark", f.watermark);
        firings.add(firing.toString());
    }

    /** A record of the late-data side output: `late` if the case asked for it, else `dropped`. */
    synchronized void lateRecord(Element e, boolean sideOutput) {
        lateRecordAt(at, e, sideOutput);
    }

    /** A late record that left the window operator during event {@code at}. */
    synchronized void lateRecordAt(int at, Element e, boolean sideOutput) {
        countOutput(e.key);
        ObjectNode node = JSON.objectNode().put("at", at).put("key", e.key).put("value", e.value).put("ts", e.ts);
        (sideOutput ? late : dropped).add(node.toString());
    }

    /** A watermark the window operator receives, during the current event. */
    synchronized void receivedWatermark(long watermark) {
        watermarkEvents.put(watermark, at);
        if (watermarks != null) {
            watermarks.add(JSON.objectNode().put("at", at).put("watermark", watermark).toString());
        }
    }

    /** The event during which the window operator received {@code watermark}, or null if it never did. */
    Integer eventOfWatermark(long watermark) {
        return watermarkEvents.get(watermark);
    }

    synchronized ObjectNode observation() {
        ObjectNode o = JSON.objectNode().put("format", "window-observation/1");
        o.set("firings", raw(firings));
        o.set("late", raw(late));
        o.set("dropped", raw(dropped));
        o.set("error", error == null ? JSON.nullNode() : error);
        if (watermarks != null) {
            o.set("watermarks", raw(watermarks));
        }
        return o;
    }

    /** The outputs as an array whose elements are written as the JSON texts they are. */
    private static ArrayNode raw(List<String> outputs) {
        ArrayNode array = JSON.arrayNode(outputs.size());
        outputs.forEach(output -> array.addRawValue(new RawValue(output)));
        return array;
    }

    private static ObjectNode errorNode(String kind, String message) {
        return JSON.objectNode().put("kind", kind).put("message", message);
    }

    static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}

package windowconformance.hazelcastjet;

import com.hazelcast.jet.Traverser;
import com.hazelcast.jet.Traversers;
import com.hazelcast.jet.core.AbstractProcessor;
import com.hazelcast.jet.core.EventTimeMapper;
import com.hazelcast.jet.core.EventTimePolicy;
import com.hazelcast.jet.core.Watermark;
import java.util.ArrayList;
import java.util.List;

/**
 * The case's source, a Jet source processor (read with {@code Sources.streamFromProcessorWithWatermarks}, one
 * instance): it emits the case's events in order.
 *
 * <ul>
 *   <li>A case with a watermark generator: each record goes through the {@link EventTimeMapper} of the job's
 *       {@link EventTimePolicy}, as Jet's own sources do (its Kafka and journal sources): the mapper puts the watermark
 *       that the record raises, if any, before it, and wraps the record with its timestamp. The policy is the
 *       pipeline's {@code withTimestamps(ts, allowedLag)}, throttled by Jet's planner; its idle timeout is off.</li>
 *   <li>A case that lists its watermarks: a source that knows its watermarks emits them ({@link SourceEvent.Mark}) and
 *       wraps each record with its own timestamp ({@code withNativeTimestamps}).</li>
 *   <li>The end of input is the source completing: Jet then emits every window it holds. A case without end of input,
 *       or one the source stops, ends instead with the sentinel, a record on a key of its own at the last watermark
 *       (so never late), and the source then waits to be cancelled ({@link Collected#awaitEnd}).</li>
 *   <li>Before it sends what makes the sliding-window stage walk its window ends ({@link WindowEndWalk}), the source
 *       counts the frames the stage will visit: a case whose walk would pass {@link #WALK_LIMIT} stops at that event,
 *       as if its input went no further, and says so ({@link Collected#stoppedAt}).</li>
 * </ul>
 */
final class CaseSourceP extends AbstractProcessor {

    /** The frames a case may make the sliding-window stage visit: about a second and a half of CPU. */
    static final long WALK_LIMIT = 10_000_000;

    /** The {@code runtime} error of a case stopped so. */
    static final String STOPPED = "Hazelcast Jet walks every window end up to each watermark, empty ones included, "
            + "and combines each window from its frames: this case's walk passes 10,000,000 frames (stopped)";

    private final CaseScript script;
    private final EventTimePolicy<? super SourceEvent.Item> policy;
    private EventTimeMapper<SourceEvent.Item> mapper;
    private WindowEndWalk walk;
    private long walked;
    private long lastWatermark = Long.MIN_VALUE;
    private int next;
    private boolean waiting;
    private Traverser<Object> pending = Traversers.empty();

    CaseSourceP(CaseScript script, EventTimePolicy<? super SourceEvent.Item> policy) {
        this.script = script;
        this.policy = policy;
    }

    @Override
    protected void init(Context context) {
        mapper = new EventTimeMapper<>(policy);
        mapper.addPartitions(1);
        walk = new WindowEndWalk(script.slidingPolicy());
    }

    @Override
    public boolean complete() {
        while (emitFromTraverser(pending)) {
            if (waiting) {
                return false;
            }
            if (next < script.events().size()) {
                pending = send(script.events().get(next++));
            } else if (script.endOfInput() && within(walk.endOfInput())) {
                return true;
            } else {
                pending = script.endOfInput() ? stopAt(script.eventCount()) : sentinel();
            }
        }
        return false;
    }

    /** What event {@code e} is at the source, unless a watermark it brings would make the walk too long: then the
     * case stops there. */
    private Traverser<Object> send(SourceEvent e) {
        List<Object> out = emitted(e);
        for (Object o : out) {
            if (o instanceof Watermark wm && !within(walk.watermark(wm.timestamp()))) {
                return stopAt(e.index());
            }
        }
        for (Object o : out) {
            if (o instanceof Watermark wm) {
                lastWatermark = wm.timestamp();
                Collected.of(script.run()).watermarkEmitted();
            } else {
                walk.record(((SourceEvent.Item) e).ts());
            }
        }
        return Traversers.traverseIterable(out);
    }

    /** A listed watermark; or a record, after the watermark it raises when the case has a generator. */
    private List<Object> emitted(SourceEvent e) {
        if (e instanceof SourceEvent.Mark m) {
            return List.of(new Watermark(m.timestamp()));
        }
        SourceEvent.Item item = (SourceEvent.Item) e;
        if (!script.generated()) {
            return List.of(policy.wrapFn().apply(item, item.ts()));
        }
        List<Object> out = new ArrayList<>(2);
        Traverser<Object> mapped = mapper.flatMapEvent(item, 0, EventTimeMapper.NO_NATIVE_TIME);
        for (Object o = mapped.next(); o != null; o = mapped.next()) {
            out.add(o);
        }
        return out;
    }

    private boolean within(long frames) {
        walked = Math.min(WALK_LIMIT + 1, walked + Math.min(frames, WALK_LIMIT + 1));
        return walked <= WALK_LIMIT;
    }

    /** The case goes no further than event {@code index}: the sentinel follows. */
    private Traverser<Object> stopAt(int index) {
        Collected.of(script.run()).stoppedAt(index);
        return sentinel();
    }

    /** The last record of a source that does not complete. */
    private Traverser<Object> sentinel() {
        waiting = true;
        SourceEvent.Item sentinel = new SourceEvent.Item(Collected.SENTINEL, script.sentinelKey(), 0, lastWatermark);
        return Traversers.singleton(policy.wrapFn().apply(sentinel, lastWatermark));
    }
}

package windowconformance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.GlobalWindows;
import org.apache.flink.streaming.api.windowing.assigners.ProcessingTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingProcessingTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingProcessingTimeWindows;
import org.apache.flink.streaming.api.windowing.evictors.CountEvictor;
import org.apache.flink.streaming.api.windowing.evictors.DeltaEvictor;
import org.apache.flink.streaming.api.windowing.evictors.Evictor;
import org.apache.flink.streaming.api.windowing.evictors.TimeEvictor;
import org.apache.flink.streaming.api.windowing.triggers.ContinuousEventTimeTrigger;
import org.apache.flink.streaming.api.windowing.triggers.ContinuousProcessingTimeTrigger;
import org.apache.flink.streaming.api.windowing.triggers.CountTrigger;
import org.apache.flink.streaming.api.windowing.triggers.DeltaTrigger;
import org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger;
import org.apache.flink.streaming.api.windowing.triggers.ProcessingTimeTrigger;
import org.apache.flink.streaming.api.windowing.triggers.ProcessingTimeoutTrigger;
import org.apache.flink.streaming.api.windowing.triggers.PurgingTrigger;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.util.OutputTag;

/**
 * Adds one case (a {@code window-case/1} JSON document) to a job as its own branch:
 * source -> {@link EventReplayOperator} -> reinterpretAsKeyedStream -> window(...) -> recorders.
 *
 * <p>All branches of a job share one source and are chained to it, so the whole job is one task
 * thread: a branch costs no task of its own (deploying tasks is what makes a job slow), and each
 * case's events are replayed to completion before the next case's begin.
 *
 * <p>The stream is re-interpreted as keyed rather than keyBy'd: keyBy would put a network shuffle
 * between the replay operator and the window operator and break the chain that makes {@code at}
 * exact. With parallelism 1 the single window operator instance owns every key group anyway.
 *
 * <p>The window specification is built with Flink's public API exactly as a user would write it,
 * so whatever Flink rejects while building (assigner preconditions, a merging assigner with a
 * trigger that cannot merge) throws here, before the job runs. The sliding assigner is Flink's,
 * counted by {@link WrappedAssignmentLimit}. The window operator runs on the case's processing-time
 * clock ({@link CaseClockWindowOperator}).
 */
final class CaseBranch {
    private CaseBranch() {}

    private static final TypeInformation<ReplayEvent> EVENT_TYPE = TypeInformation.of(ReplayEvent.class);
    static final TypeInformation<Element> ELEMENT_TYPE = TypeInformation.of(Element.class);

    static final class ByKey implements KeySelector<Element, String> {
        @Override
        public String getKey(Element e) {
            return e.key;
        }
    }

    /** One source for the whole job: every case's events, case after case. */
    static DataStream<ReplayEvent> source(StreamExecutionEnvironment env, List<CaseRun> runs) {
        List<ReplayEvent> events = new ArrayList<>();
        for (CaseRun run : runs) {
            events.addAll(replayEvents(run.id, run.spec.get("events")));
        }
        return env.fromData(events, EVENT_TYPE).name("events");
    }

    /** Adds the branch of {@code run}; throws whatever Flink throws for an invalid specification. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static void add(DataStream<ReplayEvent> source, CaseRun run) {
        JsonNode c = run.spec;
        String name = "case-" + run.id;
        GeneratorSpec generator = GeneratorSpec.of(c);
        if (generator != null) {
            generator.checkBeforeWindow();
        }
        DataStream<Element> replayed = source.transform(name + "-replay", ELEMENT_TYPE,
                new EventReplayOperator(run.id, c.get("end_of_input").asBoolean(), true, false));
        KeyedStream<Element, String> keyed =
                DataStreamUtils.reinterpretAsKeyedStream(replayed, new ByKey(), Types.STRING);

        WindowedStream windowed = window(keyed, c.get("window"), run.wrappedWindowsLimit, run.tooManyWindows);
        if (!c.get("trigger").isNull()) {
            windowed = windowed.trigger(trigger(c.get("trigger")));
        }
        if (!c.get("evictor").isNull()) {
            windowed = windowed.evictor(evictor(c.get("evictor")));
        }
        OutputTag<Element> lateTag = new OutputTag<>(name + "-late", ELEMENT_TYPE);
        windowed = windowed.allowedLateness(Duration.ofMillis(c.get("allowed_lateness").asLong()))
                .sideOutputLateData(lateTag);
        TypeInformation<FiringRecord> firingType = TypeInformation.of(FiringRecord.class);
        SingleOutputStreamOperator<FiringRecord> fired = CaseClockWindowOperator.onCaseClock(
                keyed, windowed.process(new Recorders.WindowContents(run.id), firingType), firingType, run);
        fired.process(new Recorders.Firings(run.id), Types.VOID).name(name + "-firings");
        fired.getSideOutput(lateTag)
                .process(new Recorders.LateRecords(run.id, c.get("late_side_output").asBoolean()), Types.VOID)
                .name(name + "-late");
        if (generator != null) {
            generator.checkAfterWindow();
        }
    }

    private static List<ReplayEvent> replayEvents(int caseId, JsonNode events) {
        List<ReplayEvent> out = new ArrayList<>(events.size() + 1);
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            if (e.has("record")) {
                JsonNode r = e.get("record");
                out.add(new ReplayEvent(caseId, i, ReplayEvent.RECORD, r.get("key").asText(), r.get("value").asLong(),
                        r.get("ts").asLong()).onChannel(r.path("channel").asInt(0)));
            } else if (e.has("watermark")) {
                out.add(new ReplayEvent(caseId, i, ReplayEvent.WATERMARK, null, 0, e.get("watermark").asLong())
                        .onChannel(e.path("channel").asInt(0)));
            } else if (e.has("processing_time")) {
                out.add(new ReplayEvent(caseId, i, ReplayEvent.PROCESSING_TIME, null, 0, e.get("processing_time").asLong()));
            } else if (e.has("watermark_status")) {
                JsonNode s = e.get("watermark_status");
                out.add(new ReplayEvent(caseId, i, ReplayEvent.WATERMARK_STATUS, null, s.get("idle").asBoolean() ? 1 : 0, 0)
                        .onChannel(s.get("channel").asInt()));
            } else if (e.has("end_of_channel")) {
                out.add(new ReplayEvent(caseId, i, ReplayEvent.END_OF_CHANNEL, null, 0, 0)
                        .onChannel(e.get("end_of_channel").asInt()));
            } else {
                throw new UnsupportedCase("event " + e);
            }
        }
        out.add(new ReplayEvent(caseId, events.size(), ReplayEvent.END, null, 0, 0));
        return out;
    }

    private static Duration ms(JsonNode n, String field) {
        return Duration.ofMillis(n.get(field).asLong());
    }

    /**
     * {@code keyed} windowed by the case's assigner {@code w}, built with the public API; a sliding assignment stops
     * past {@code wrappedWindowsLimit} windows an element with {@code tooManyWindows} ({@link WrappedAssignmentLimit}).
     */
    static WindowedStream<Element, String, ?> window(KeyedStream<Element, String> keyed, JsonNode w,
                                                     int wrappedWindowsLimit, String tooManyWindows) {
        boolean eventTime = !w.path("time").asText("event").equals("processing");
        switch (w.get("assigner").asText()) {
            case "tumbling":
                return keyed.window(eventTime
                        ? TumblingEventTimeWindows.of(ms(w, "size"), ms(w, "offset"))
                        : TumblingProcessingTimeWindows.of(ms(w, "size"), ms(w, "offset")));
            case "sliding":
                return keyed.window(new WrappedAssignmentLimit(eventTime
                        ? SlidingEventTimeWindows.of(ms(w, "size"), ms(w, "slide"), ms(w, "offset"))
                        : SlidingProcessingTimeWindows.of(ms(w, "size"), ms(w, "slide"), ms(w, "offset")),
                        eventTime, w.get("size").asLong(), w.get("slide").asLong(), w.path("offset").asLong(0),
                        wrappedWindowsLimit, tooManyWindows));
            case "session":
                return keyed.window(eventTime
                        ? EventTimeSessionWindows.withGap(ms(w, "gap"))
                        : ProcessingTimeSessionWindows.withGap(ms(w, "gap")));
            case "dynamic_session":
                NamedGapExtractor gap = new NamedGapExtractor(w.get("gap_extractor").asText());
                return keyed.window(eventTime
                        ? EventTimeSessionWindows.withDynamicGap(gap)
                        : ProcessingTimeSessionWindows.withDynamicGap(gap));
            case "global":
                return keyed.window(GlobalWindows.create());
            case "count":
                // KeyedStream.countWindow builds the GlobalWindows + CountTrigger (+ CountEvictor) itself.
                return w.hasNonNull("slide")
                        ? keyed.countWindow(w.get("size").asLong(), w.get("slide").asLong())
                        : keyed.countWindow(w.get("size").asLong());
            default:
                throw new UnsupportedCase("window assigner " + w.get("assigner"));
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Trigger trigger(JsonNode t) {
        switch (t.get("type").asText()) {
            case "event_time":
                return EventTimeTrigger.create();
            case "count":
                return CountTrigger.of(t.get("count").asLong());
            case "continuous_event_time":
                return ContinuousEventTimeTrigger.of(ms(t, "interval"));
            case "processing_time":
                return ProcessingTimeTrigger.create();
            case "continuous_processing_time":
                return ContinuousProcessingTimeTrigger.of(ms(t, "interval"));
            case "purging":
                return PurgingTrigger.of(trigger(t.get("inner")));
            case "processing_timeout":
                return ProcessingTimeoutTrigger.of(trigger(t.get("inner")), ms(t, "timeout"),
                        t.get("reset_timer_on_new_record").asBoolean(), t.get("should_clear_on_timeout").asBoolean());
            case "never":
                // Flink's own class; it is declared for GlobalWindow, as a user would have to cast it.
                return new GlobalWindows.NeverTrigger();
            case "delta":
                return DeltaTrigger.of(t.get("threshold").asDouble(), NamedDeltaFunction.of(t.get("delta_function").asText()),
                        ELEMENT_TYPE.createSerializer(new SerializerConfigImpl()));
            default:
                throw new UnsupportedCase("trigger " + t.get("type"));
        }
    }

    @SuppressWarnings("rawtypes")
    private static Evictor evictor(JsonNode e) {
        boolean after = e.get("after").asBoolean();
        switch (e.get("type").asText()) {
            case "count":
                return CountEvictor.of(e.get("max_count").asLong(), after);
            case "time":
                return TimeEvictor.of(ms(e, "size"), after);
            case "delta":
                return DeltaEvictor.of(e.get("threshold").asDouble(), NamedDeltaFunction.of(e.get("delta_function").asText()),
                        after);
            default:
                throw new UnsupportedCase("evictor " + e.get("type"));
        }
    }

    /** A case this runner does not run (the Python side never sends one): a protocol error. */
    static final class UnsupportedCase extends RuntimeException {
        UnsupportedCase(String what) {
            super("unsupported by the flink runner: " + what);
        }
    }
}

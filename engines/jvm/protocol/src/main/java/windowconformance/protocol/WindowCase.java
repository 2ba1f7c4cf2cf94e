package windowconformance.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code window-case/1} case (docs/format.md), as far as a JVM engine under test reads it: the assigner, the
 * stream, the end of input, the watermark generator. The parts an engine does not declare (a trigger other than the
 * default, an evictor, channels) are kept as they came, so that the engine can refuse what it does not translate
 * instead of running something else.
 */
public record WindowCase(String name, Window window, JsonNode trigger, JsonNode evictor, long allowedLateness,
                         boolean lateSideOutput, List<Event> events, boolean endOfInput, int channels,
                         Generator generator) {

    /** The assigner: {@code tumbling} (size, offset), {@code sliding} (size, slide, offset), {@code session} (gap),
     * or another the engine does not declare ({@code global}, {@code count}, {@code dynamic_session}). */
    public record Window(String assigner, long size, long slide, long offset, long gap, String time) {}

    /** {@code watermark_generator}: its type, {@code bound} (0 where the type has none), {@code interval},
     * {@code punctuated} and {@code idleness} (null when not given). */
    public record Generator(String type, long bound, long interval, boolean punctuated, Long idleness) {}

    /** An event of the stream. */
    public sealed interface Event permits Record, Watermark, ProcessingTime, ChannelEvent {}

    /** {@code {"record": {"key", "value", "ts", "channel"}}}. */
    public record Record(String key, long value, long ts, int channel) implements Event {}

    /** {@code {"watermark": timestamp, "channel": n}}. */
    public record Watermark(long timestamp, int channel) implements Event {}

    /** {@code {"processing_time": time}}: the processing-time clock moves to {@code time}. */
    public record ProcessingTime(long time) implements Event {}

    /** {@code watermark_status} or {@code end_of_channel}: events of several channels. */
    public record ChannelEvent(JsonNode event) implements Event {}

    /** A default trigger (null), and no evictor. */
    public boolean hasDefaultTrigger() {
        return trigger == null || trigger.isNull();
    }

    public List<Record> records() {
        return events.stream().filter(Record.class::isInstance).map(Record.class::cast).toList();
    }

    /** The case in {@code doc}, with the format's defaults (docs/format.md); the suite has validated it. */
    public static WindowCase fromJson(JsonNode doc) {
        JsonNode w = doc.get("window");
        Window window = new Window(w.get("assigner").asText(), w.path("size").asLong(0), w.path("slide").asLong(0),
                w.path("offset").asLong(0), w.path("gap").asLong(0), w.path("time").asText("event"));
        List<Event> events = new ArrayList<>();
        for (JsonNode e : doc.get("events")) {
            events.add(event(e));
        }
        JsonNode g = doc.get("watermark_generator");
        Generator generator = g == null || g.isNull() ? null : new Generator(g.get("type").asText(),
                g.path("bound").asLong(0), g.path("interval").asLong(200), g.path("punctuated").asBoolean(false),
                g.hasNonNull("idleness") ? g.get("idleness").asLong() : null);
        return new WindowCase(doc.path("name").asText(null), window, doc.get("trigger"), doc.get("evictor"),
                doc.path("allowed_lateness").asLong(0), doc.path("late_side_output").asBoolean(false), events,
                doc.path("end_of_input").asBoolean(true), doc.path("channels").asInt(1), generator);
    }

    /** One event of a stream (a join case's events are the same, each with its input). */
    static Event event(JsonNode e) {
        if (e.has("record")) {
            JsonNode r = e.get("record");
            return new Record(r.get("key").asText(), r.get("value").asLong(), r.get("ts").asLong(),
                    r.path("channel").asInt(0));
        }
        if (e.has("watermark")) {
            return new Watermark(e.get("watermark").asLong(), e.path("channel").asInt(0));
        }
        if (e.has("processing_time")) {
            return new ProcessingTime(e.get("processing_time").asLong());
        }
        return new ChannelEvent(e);
    }
}

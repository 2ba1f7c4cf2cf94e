package windowconformance.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One {@code join-case/1} case (docs/format.md, "Two inputs"), as far as a JVM engine under test reads it: the join
 * (kept as it came: each engine reads the kinds it runs and refuses the rest), both inputs' channels, and the events
 * in the order the join's operator receives them, each naming its input.
 */
public record JoinCase(String name, JsonNode join, int leftChannels, int rightChannels, List<Event> events,
                       boolean endOfInput) {

    /** An event of one input: {@link WindowCase.Record}, {@link WindowCase.Watermark} or a channel event. */
    public record Event(String input, WindowCase.Event event) {}

    /** {@code join.operation}: {@code interval_join}, {@code sql_interval_join}, {@code window_join}, ... */
    public String operation() {
        return join.get("operation").asText();
    }

    /** The case in {@code doc}, with the format's defaults; the suite has validated it. */
    public static JoinCase fromJson(JsonNode doc) {
        List<Event> events = new ArrayList<>();
        for (JsonNode e : doc.get("events")) {
            events.add(new Event(e.get("input").asText(), WindowCase.event(e)));
        }
        JsonNode inputs = doc.path("inputs");
        return new JoinCase(doc.path("name").asText(null), doc.get("join"),
                inputs.path("left").path("channels").asInt(1), inputs.path("right").path("channels").asInt(1),
                events, doc.path("end_of_input").asBoolean(true));
    }
}

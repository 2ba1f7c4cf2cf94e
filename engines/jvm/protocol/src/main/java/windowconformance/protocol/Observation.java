package windowconformance.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What an engine emitted for one case, as a position-free {@code window-observation/1} (docs/format.md): every
 * output has {@code "at": null}, and a firing's {@code "watermark"} is null (the engine cannot say at which event it
 * emitted an output, nor at which watermark).
 */
public final class Observation {

    /** A window function's call: the key, the window {@code [start, end)}, the output record's timestamp, the
     * values the function got. */
    public record Firing(String key, long start, long end, long timestamp, List<Long> values) {}

    /** A record that went to the late side output or was dropped. */
    public record Late(String key, long value, long ts) {}

    private final List<Firing> firings = new ArrayList<>();
    private final List<Late> late = new ArrayList<>();
    private final List<Late> dropped = new ArrayList<>();
    private String errorKind;
    private String errorMessage;

    public static Observation invalidSpec(String message) {
        Observation o = new Observation();
        o.error("invalid_spec", message);
        return o;
    }

    public void fired(Firing firing) {
        firings.add(firing);
    }

    public void late(Late record) {
        late.add(record);
    }

    public void dropped(Late record) {
        dropped.add(record);
    }

    /** The job failed while running ({@code runtime}) or was rejected before it ran ({@code invalid_spec}). */
    public void error(String kind, String message) {
        errorKind = kind;
        errorMessage = message;
    }

    public boolean failed() {
        return errorKind != null;
    }

    public List<Firing> firings() {
        return firings;
    }

    public ObjectNode toJson() {
        JsonNodeFactory json = JsonNodeFactory.instance;
        ObjectNode o = json.objectNode().put("format", "window-observation/1");
        ArrayNode fired = o.putArray("firings");
        for (Firing f : firings) {
            ObjectNode firing = fired.addObject().putNull("at").put("key", f.key());
            firing.putObject("window").put("start", f.start()).put("end", f.end());
            firing.put("timestamp", f.timestamp());
            f.values().forEach(firing.putArray("values")::add);
            firing.putNull("watermark");
        }
        records(o.putArray("late"), late);
        records(o.putArray("dropped"), dropped);
        if (errorKind == null) {
            o.putNull("error");
        } else {
            o.putObject("error").put("kind", errorKind).put("message", errorMessage);
        }
        return o;
    }

    private static void records(ArrayNode array, List<Late> records) {
        for (Late r : records) {
            array.addObject().putNull("at").put("key", r.key()).put("value", r.value()).put("ts", r.ts());
        }
    }
}

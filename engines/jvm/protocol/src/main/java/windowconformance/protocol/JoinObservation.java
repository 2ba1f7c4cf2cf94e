package windowconformance.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What an engine emitted for one join case, as a {@code join-observation/1} (docs/format.md, "Two inputs"): each
 * output at the position {@code at} of the event during which it came out (the number of events for the end of
 * input), with the operator's watermark then, and every watermark the operator received.
 */
public final class JoinObservation {

    /** An output: a DataStream join's pair ({@code sql} false: both values, the record's timestamp), or a SQL join's
     * row ({@code sql} true: a null value for a side padded with nulls, the timestamp null where the row has none). */
    public record Output(int at, String key, Long timestamp, long watermark, Long left, Long right, boolean sql) {}

    /** A late record of one input, on its late output or dropped. */
    public record SideRecord(int at, String input, String key, long value, long ts) {}

    /** A watermark the operator received at position {@code at}. */
    public record Watermark(int at, long watermark) {}

    private final List<Output> outputs = new ArrayList<>();
    private final List<SideRecord> late = new ArrayList<>();
    private final List<SideRecord> dropped = new ArrayList<>();
    private final List<Watermark> watermarks = new ArrayList<>();
    private String errorKind;
    private String errorMessage;

    public static JoinObservation invalidSpec(String message) {
        JoinObservation o = new JoinObservation();
        o.error("invalid_spec", message);
        return o;
    }

    public void output(Output output) {
        outputs.add(output);
    }

    public void late(SideRecord record) {
        late.add(record);
    }

    public void dropped(SideRecord record) {
        dropped.add(record);
    }

    public void watermark(Watermark watermark) {
        watermarks.add(watermark);
    }

    /** The job failed while running ({@code runtime}) or was rejected before it ran ({@code invalid_spec}). */
    public void error(String kind, String message) {
        errorKind = kind;
        errorMessage = message;
    }

    public ObjectNode toJson() {
        JsonNodeFactory json = JsonNodeFactory.instance;
        ObjectNode o = json.objectNode().put("format", "join-observation/1");
        ArrayNode array = o.putArray("outputs");
        for (Output x : outputs) {
            ObjectNode output = array.addObject().put("at", x.at()).put("key", x.key());
            output.put("timestamp", x.timestamp()).put("watermark", x.watermark());
            output.put("left", x.left()).put("right", x.right());
            if (x.sql()) {
                output.putNull("window");
            }
        }
        records(o.putArray("late"), late);
        records(o.putArray("dropped"), dropped);
        ArrayNode received = o.putArray("watermarks");
        watermarks.forEach(w -> received.addObject().put("at", w.at()).put("watermark", w.watermark()));
        if (errorKind == null) {
            o.putNull("error");
        } else {
            o.putObject("error").put("kind", errorKind).put("message", errorMessage);
        }
        return o;
    }

    private static void records(ArrayNode array, List<SideRecord> records) {
        for (SideRecord r : records) {
            array.addObject().put("at", r.at()).put("input", r.input()).put("key", r.key()).put("value", r.value())
                    .put("ts", r.ts());
        }
    }
}

/*
 * A hand-written tumbling event-time windowing in Java 17, of the kind people write before they read
 * Flink's source, and a peer of the conformance suite's process protocol (docs/protocol.md): it says
 * hello on stdout, then answers each run request (one line of JSON) with one window-observation/1 per
 * case (one line of JSON). The JDK has no JSON, so a small reader and writer come with it.
 *
 *     javac -d build examples/NaiveWindows.java
 *     python -m conformance run --impl 'exec:java -cp build NaiveWindows'
 *
 * It looks right on positive timestamps, but the suite finds that it
 * - computes a window's start as `ts - ts % size`: Java's `%` truncates towards zero, so a record at
 *   ts = -7 (size 5) lands in [-5, 0) instead of Flink's [-10, -5) (TimeWindow.getWindowStartWithOffset
 *   floors);
 * - treats nothing as late: a record whose window the watermark has already passed opens that window
 *   again and fires later, where Flink drops it (WindowOperator.isWindowLate).
 *
 * It declares tumbling event-time windows, negative timestamps and cases without end of input only, so
 * cases with offsets, lateness, side outputs, triggers or evictors are never sent to it.
 */

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public class NaiveWindows {

    public static void main(String[] args) throws Exception {
        System.out.println("{\"type\": \"hello\", \"protocol\": \"window-process/1\", \"name\": \"naive-windows-java\", "
                + "\"features\": [\"assigner.tumbling\", \"negative_timestamps\", \"unbounded_input\"], \"position_free\": false}");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            Map<String, Object> request = asObject(new Json(line).value());
            StringBuilder answer = new StringBuilder("{\"type\": \"observations\", \"id\": ")
                    .append(request.get("id")).append(", \"observations\": [");
            List<Object> cases = asList(request.get("cases"));
            for (int i = 0; i < cases.size(); i++) {
                answer.append(i == 0 ? "" : ", ").append(runCase(asObject(cases.get(i))));
            }
            System.out.println(answer.append("]}"));
            System.out.flush();
        }
    }

    /** One case: a window of `size` per key and start, fired when the watermark passes its end - 1. */
    static String runCase(Map<String, Object> c) {
        long size = (Long) asObject(c.get("window")).get("size");
        if (size <= 0) {
            return "{\"format\": \"window-observation/1\", \"error\": {\"kind\": \"invalid_spec\", \"message\": "
                    + "\"TumblingEventTimeWindows parameters must satisfy abs(offset) < size\"}}";
        }
        List<Object> events = asList(c.get("events"));
        // (end, key) -> values: firing in this order fires the windows of one watermark by timestamp.
        TreeMap<Long, TreeMap<String, List<Long>>> panes = new TreeMap<>();
        List<String> firings = new ArrayList<>();
        long watermark = Long.MIN_VALUE;
        for (int at = 0; at < events.size(); at++) {
            Map<String, Object> event = asObject(events.get(at));
            if (event.containsKey("record")) {
                Map<String, Object> r = asObject(event.get("record"));
                long ts = (Long) r.get("ts");
                long start = ts - ts % size;
                panes.computeIfAbsent(start + size, end -> new TreeMap<>())
                        .computeIfAbsent((String) r.get("key"), key -> new ArrayList<>()).add((Long) r.get("value"));
            } else if (event.containsKey("watermark") && (Long) event.get("watermark") > watermark) {
                watermark = (Long) event.get("watermark");
                fire(panes, watermark, size, at, firings);
            }
        }
        if (Boolean.TRUE.equals(c.getOrDefault("end_of_input", true))) {
            fire(panes, Long.MAX_VALUE, size, events.size(), firings);
        }
        return "{\"format\": \"window-observation/1\", \"firings\": [" + String.join(", ", firings) + "]}";
    }

    static void fire(TreeMap<Long, TreeMap<String, List<Long>>> panes, long watermark, long size, int at,
                     List<String> firings) {
        while (!panes.isEmpty() && panes.firstKey() - 1 <= watermark) {
            Map.Entry<Long, TreeMap<String, List<Long>>> window = panes.pollFirstEntry();
            long end = window.getKey();
            for (Map.Entry<String, List<Long>> pane : window.getValue().entrySet()) {
                List<Long> values = pane.getValue();
                Collections.sort(values);
                firings.add("{\"at\": " + at + ", \"key\": " + quote(pane.getKey()) + ", \"window\": {\"start\": "
                        + (end - size) + ", \"end\": " + end + "}, \"timestamp\": " + (end - 1) + ", \"values\": "
                        + values + ", \"watermark\": " + watermark + "}");
            }
        }
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') {
                out.append('\\').append(ch);
            } else if (ch < 0x20) {
                out.append(String.format("\\u%04x", (int) ch));
            } else {
                out.append(ch);
            }
        }
        return out.append('"').toString();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asObject(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> asList(Object value) {
        return (List<Object>) value;
    }

    /** JSON to Map, List, String, Long, Boolean and null: integers only, as the case format has. */
    static final class Json {
        private final String text;
        private int pos;

        Json(String text) {
            this.text = text;
        }

        Object value() {
            skipSpace();
            char ch = text.charAt(pos);
            switch (ch) {
                case '{': {
                    Map<String, Object> object = new LinkedHashMap<>();
                    pos++;
                    skipSpace();
                    while (text.charAt(pos) != '}') {
                        skipSpace();
                        String name = string();
                        skipSpace();
                        expect(':');
                        object.put(name, value());
                        skipSpace();
                        if (text.charAt(pos) == ',') {
                            pos++;
                            skipSpace();
                        }
                    }
                    pos++;
                    return object;
                }
                case '[': {
                    List<Object> list = new ArrayList<>();
                    pos++;
                    skipSpace();
                    while (text.charAt(pos) != ']') {
                        list.add(value());
                        skipSpace();
                        if (text.charAt(pos) == ',') {
                            pos++;
                        }
                        skipSpace();
                    }
                    pos++;
                    return list;
                }
                case '"':
                    return string();
                default:
                    for (String word : new String[] {"true", "false", "null"}) {
                        if (text.startsWith(word, pos)) {
                            pos += word.length();
                            return word.equals("null") ? null : Boolean.valueOf(word);
                        }
                    }
                    int start = pos;
                    while (pos < text.length() && "-0123456789".indexOf(text.charAt(pos)) >= 0) {
                        pos++;
                    }
                    return Long.parseLong(text.substring(start, pos));
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            for (char ch = text.charAt(pos++); ch != '"'; ch = text.charAt(pos++)) {
                if (ch != '\\') {
                    out.append(ch);
                    continue;
                }
                char escaped = text.charAt(pos++);
                switch (escaped) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u': out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16)); pos += 4; break;
                    default: out.append(escaped);
                }
            }
            return out.toString();
        }

        private void expect(char ch) {
            if (text.charAt(pos) != ch) {
                throw new IllegalArgumentException("expected '" + ch + "' at " + pos + " of " + text);
            }
            pos++;
        }

        private void skipSpace() {
            while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
                pos++;
            }
        }
    }
}

package windowconformance;

import java.math.BigInteger;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * A case's window as the SQL query a Flink SQL user writes for it, over the case's table ({@code k}, {@code v},
 * {@code idx}, {@code rowtime}).
 *
 * <p>Window table functions ({@code sql}), aggregated by {@code WindowAggregate} (the table runtime's
 * {@code WindowAggOperator}):
 * <ul>
 *   <li>{@code TumblingEventTimeWindows.of(size, offset)} is {@code TUMBLE(TABLE t, DESCRIPTOR(rowtime), size, offset)};
 *   <li>{@code SlidingEventTimeWindows.of(size, slide, offset)} is {@code HOP(TABLE t, DESCRIPTOR(rowtime), slide, size,
 *       offset)} (slide first);
 *   <li>Flink SQL's cumulative windows ({@code CumulativeWindowAssigner.of(size, step).withOffset(offset)}) are
 *       {@code CUMULATE(TABLE t, DESCRIPTOR(rowtime), step, size, offset)} (step first);
 *   <li>{@code EventTimeSessionWindows.withGap(gap)} is {@code SESSION(TABLE t PARTITION BY k, DESCRIPTOR(rowtime), gap)}
 *       (a session per key, as keyBy makes them);
 * </ul>
 * an offset of 0 is left out, as a user leaves it out. The key is a {@code GROUP BY} column beside the window's
 * {@code window_start}, {@code window_end} and {@code window_time}; the window function's contents are
 * {@code ARRAY_AGG(idx)}: every record the window holds.
 */
final class SqlQueries {
    private SqlQueries() {}

    private static final BigInteger DAY = BigInteger.valueOf(86_400_000L);

    /** The query of the case's window table function, over {@code table}. */
    static String windowTableFunction(JsonNode window, String table) {
        return "SELECT k, window_start, window_end, window_time, ARRAY_AGG(idx) AS idxs FROM TABLE("
                + tableFunction(window, table) + ") GROUP BY k, window_start, window_end, window_time";
    }

    /**
     * The query of the case's legacy group window, over {@code table}: {@code GROUP BY k, TUMBLE(rowtime, size)}
     * ({@code HOP(rowtime, slide, size)}, {@code SESSION(rowtime, gap)}), the window's bounds and time its
     * {@code _START}, {@code _END} and {@code _ROWTIME} functions.
     */
    static String groupWindow(JsonNode w, String table) {
        String function;
        String arguments;
        switch (w.get("assigner").asText()) {
            case "tumbling":
                function = "TUMBLE";
                arguments = interval(w.get("size").asLong());
                break;
            case "sliding":
                function = "HOP";
                arguments = interval(w.get("slide").asLong()) + ", " + interval(w.get("size").asLong());
                break;
            case "session":
                function = "SESSION";
                arguments = interval(w.get("gap").asLong());
                break;
            default:
                throw new CaseBranch.UnsupportedCase("window assigner " + w.get("assigner") + " in SQL");
        }
        String window = "(rowtime, " + arguments + offset(w) + ")";
        return "SELECT k, " + function + "_START" + window + " AS window_start, " + function + "_END" + window
                + " AS window_end, " + function + "_ROWTIME" + window + " AS window_time, ARRAY_AGG(idx) AS idxs FROM "
                + table + " GROUP BY k, " + function + window;
    }

    private static String tableFunction(JsonNode w, String table) {
        String rowtime = "DESCRIPTOR(rowtime)";
        switch (w.get("assigner").asText()) {
            case "tumbling":
                return "TUMBLE(TABLE " + table + ", " + rowtime + ", " + interval(w.get("size").asLong())
                        + offset(w) + ")";
            case "sliding":
                return "HOP(TABLE " + table + ", " + rowtime + ", " + interval(w.get("slide").asLong()) + ", "
                        + interval(w.get("size").asLong()) + offset(w) + ")";
            case "cumulative":
                return "CUMULATE(TABLE " + table + ", " + rowtime + ", " + interval(w.get("step").asLong()) + ", "
                        + interval(w.get("size").asLong()) + offset(w) + ")";
            case "session":
                return "SESSION(TABLE " + table + " PARTITION BY k, " + rowtime + ", " + interval(w.get("gap").asLong())
                        + ")";
            default:
                throw new CaseBranch.UnsupportedCase("window assigner " + w.get("assigner") + " in SQL");
        }
    }

    private static String offset(JsonNode w) {
        long offset = w.path("offset").asLong(0);
        return offset == 0 ? "" : ", " + interval(offset);
    }

    /**
     * Milliseconds as a SQL day-time interval literal, {@code INTERVAL '[-]D HH:MM:SS.mmm' DAY(6) TO SECOND(3)}: the
     * widest interval Flink SQL has (six digits of days, milliseconds). A longer one is SQL's own error.
     */
    static String interval(long millis) {
        return interval(millis, 6);
    }

    /** Milliseconds as {@code INTERVAL '[-]D HH:MM:SS.mmm' DAY(dayPrecision) TO SECOND(3)}. */
    static String interval(long millis, int dayPrecision) {
        BigInteger ms = BigInteger.valueOf(millis);
        BigInteger[] days = ms.abs().divideAndRemainder(DAY);
        long rest = days[1].longValue();
        return String.format("INTERVAL '%s%s %02d:%02d:%02d.%03d' DAY(%d) TO SECOND(3)", ms.signum() < 0 ? "-" : "",
                days[0], rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000, dayPrecision);
    }
}

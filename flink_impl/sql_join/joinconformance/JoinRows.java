package joinconformance;

import java.io.Serializable;
import java.util.List;

import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * Reads the join's rows by the planner's types: each input's row holds the case's columns {@code k} and {@code v}
 * (and a window join's {@code window_start}, {@code window_end}) where the planner put them, and a joined row is the
 * left row then the right one ({@code JoinedRowData}; a semi or anti join emits the left row alone), the padded side's
 * columns null.
 */
final class JoinRows implements Serializable {
    private final int[][] columns;
    private final int leftArity;
    private final boolean leftOnly;

    /** {@code columns[input]}: the indexes of k, v, window_start, window_end (-1 where absent) in that input's rows. */
    JoinRows(RowType left, RowType right, RowType joined) {
        columns = new int[][] {indexes(left), indexes(right)};
        leftArity = left.getFieldCount();
        leftOnly = joined.getFieldCount() == leftArity;
    }

    private static int[] indexes(RowType type) {
        List<String> names = type.getFieldNames();
        return new int[] {names.indexOf("k"), names.indexOf("v"), names.indexOf("window_start"),
                names.indexOf("window_end")};
    }

    /**
     * {@code [at, key, watermark, left, right, window_start, window_end, timestamp]}: the padded side's value null, the
     * window's bounds null for a join whose rows have none, the timestamp null where the join erased it.
     */
    String json(int at, long watermark, StreamRecord<RowData> record) {
        RowData row = record.getValue();
        int[] l = columns[0];
        int[] r = columns[1];
        boolean leftNull = row.isNullAt(l[1]);
        boolean rightNull = leftOnly || row.isNullAt(leftArity + r[1]);
        int[] side = leftNull ? r : l;
        int offset = leftNull ? leftArity : 0;
        String window = side[2] < 0 ? "null,null"
                : row.getTimestamp(offset + side[2], 3).getMillisecond() + ","
                + row.getTimestamp(offset + side[3], 3).getMillisecond();
        return "[" + at + "," + JoinRun.quote(row.getString(offset + side[0]).toString()) + "," + watermark + ","
                + (leftNull ? "null" : String.valueOf(row.getLong(l[1]))) + ","
                + (rightNull ? "null" : String.valueOf(row.getLong(leftArity + r[1]))) + "," + window + ","
                + (record.hasTimestamp() ? String.valueOf(record.getTimestamp()) : "null") + "]";
    }

    /** {@code [at, input, key, value, ts]}: a row of an input the join dropped as late. */
    String dropped(int at, int input, StreamRecord<RowData> record) {
        RowData row = record.getValue();
        int[] c = columns[input];
        return "[" + at + "," + (input == 0 ? "\"left\"" : "\"right\"") + "," + JoinRun.quote(row.getString(c[0])
                .toString()) + "," + row.getLong(c[1]) + "," + record.getTimestamp() + "]";
    }
}

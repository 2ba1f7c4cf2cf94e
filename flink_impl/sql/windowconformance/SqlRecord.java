package windowconformance;

/**
 * A record as the SQL job's table sees it: its key {@code k}, its value {@code v} and {@code idx}, the index of its
 * event in the case, which the query aggregates so that a firing names the very records it holds (the adapter reads
 * their values from the case). Its timestamp travels in the StreamRecord and becomes the {@code rowtime} column.
 *
 * <p>A POJO (public fields, no-arg constructor) so that {@code fromDataStream} makes it three columns.
 */
public class SqlRecord {
    public String k;
    public long v;
    public int idx;

    public SqlRecord() {}

    SqlRecord(String k, long v, int idx) {
        this.k = k;
        this.v = v;
        this.idx = idx;
    }
}

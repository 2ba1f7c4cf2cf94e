package windowconformance;

/** What the window function emits for one call: where it happened, the window and its contents. */
public class FiringRecord {
    public int at;
    public String key;
    /** True for the GlobalWindow; then start and end are unused. */
    public boolean global;
    public long start;
    public long end;
    /** The window's contents, sorted. */
    public long[] values;
    /** The operator's current watermark when the function was called. */
    public long watermark;

    public FiringRecord() {}
}

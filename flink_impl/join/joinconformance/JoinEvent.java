package joinconformance;

/**
 * One event of a case as the job's one source emits it: every case's events in order, each followed by nothing
 * else, and {@link #END} after a case's last event. A POJO.
 */
public class JoinEvent {
    public static final int RECORD = 0;
    public static final int WATERMARK = 1;
    public static final int WATERMARK_STATUS = 2;
    public static final int END_OF_CHANNEL = 3;
    public static final int END = 4;

    public int caseId;
    /** The event's index in the case's events; their number for {@link #END}. */
    public int index;
    public int kind;
    /** 0 for the left input, 1 for the right. */
    public int input;
    public int channel;
    public String key = "";
    public long value;
    /** A record's timestamp, a watermark's time; 1 for idle in a status. */
    public long time;

    public JoinEvent() {}
}

package windowconformance;

/**
 * One event of a case as the job's source emits it: each case's events in order, then {@link #END}.
 *
 * <p>A POJO (public fields, no-arg constructor) so Flink serializes it with its PojoSerializer.
 */
public class ReplayEvent {
    public static final int RECORD = 0;
    public static final int WATERMARK = 1;
    public static final int PROCESSING_TIME = 2;
    /** After the last event; ends every open channel when the case has an end of input. */
    public static final int END = 3;
    /** {@link #value} 1 for idle, 0 for active. */
    public static final int WATERMARK_STATUS = 4;
    public static final int END_OF_CHANNEL = 5;

    /** The {@link CaseRun#id} of the case the event belongs to. */
    public int caseId;
    /** The event's index in the case's {@code events}; {@code events.length} for {@link #END}. */
    public int index;
    public int kind;
    /** The input channel of a record, watermark, status or channel end. */
    public int channel;
    public String key;
    public long value;
    /** The record's timestamp, or the watermark's / processing time's time. */
    public long time;

    public ReplayEvent() {}

    public ReplayEvent(int caseId, int index, int kind, String key, long value, long time) {
        this.caseId = caseId;
        this.index = index;
        this.kind = kind;
        this.key = key;
        this.value = value;
        this.time = time;
    }

    ReplayEvent onChannel(int channel) {
        this.channel = channel;
        return this;
    }
}

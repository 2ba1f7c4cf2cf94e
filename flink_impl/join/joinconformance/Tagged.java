package joinconformance;

/**
 * One event of an interval join case on its way from the replay to the join, in the case's order: a record of
 * either input, or what an input's valve lets out (a watermark, a status) for that input.
 *
 * <p>A POJO (public fields, no-arg constructor) so Flink serializes it with its PojoSerializer.
 */
public class Tagged {
    public static final int RECORD = 0;
    public static final int WATERMARK = 1;
    /** {@link #value} 1 for idle, 0 for active. */
    public static final int WATERMARK_STATUS = 2;

    public int kind;
    /** 0 for the left input, 1 for the right. */
    public int input;
    public String key = "";
    public long value;

    public Tagged() {}

    Tagged(int kind, int input, String key, long value) {
        this.kind = kind;
        this.input = input;
        this.key = key;
        this.value = value;
    }
}

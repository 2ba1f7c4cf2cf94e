package windowconformance;

/** A keyed record as the window operator sees it; its timestamp also travels in the StreamRecord. */
public class Element {
    public String key;
    public long value;
    public long ts;

    public Element() {}

    public Element(String key, long value, long ts) {
        this.key = key;
        this.value = value;
        this.ts = ts;
    }
}

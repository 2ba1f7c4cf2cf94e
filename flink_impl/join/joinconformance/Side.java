package joinconformance;

/** An element of one input of the join: its key and value (its timestamp is the record's). A POJO. */
public class Side {
    public String key = "";
    public long value;

    public Side() {}

    Side(String key, long value) {
        this.key = key;
        this.value = value;
    }
}

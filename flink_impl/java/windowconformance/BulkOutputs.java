package windowconformance;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;

/**
 * Where the bulk job's outputs go as they are produced: three tab-separated files, in the columns of the Spark
 * replay's outputs ({@code spark_impl.api.flink_windows}), which {@code flink_impl/bulk.py} turns into Parquet:
 * <ul>
 *   <li>{@code firings.tsv}: key, window_start, window_end, timestamp, values (comma-separated, in the order the
 *       window state holds them: arrival order), watermark, arrival, cause;</li>
 *   <li>{@code late.tsv} (the side output) and {@code dropped.tsv}: key, ts, payload, arrival, cause.</li>
 * </ul>
 * {@code arrival, cause}: the record during which the output happened ({@code record}), the watermark emitted after
 * that record ({@code watermark}), or the end of input (no arrival, {@code end_of_input}).
 *
 * <p>The job runs in this process's MiniCluster, every operator chained into one task thread, so the functions
 * find the writers and the position here (as a case's branch finds its {@link CaseRun}): one bulk job a process.
 */
final class BulkOutputs {
    static final String RECORD = "record";
    static final String WATERMARK = "watermark";
    private static final String END_OF_INPUT = "end_of_input";

    private static Writer firings;
    private static Writer late;
    private static Writer dropped;
    /** The arrival and cause of the event being replayed (an arrival of "" at the end of input). */
    private static String arrival = "";
    private static String cause = "";

    private BulkOutputs() {}

    static void open(Path folder) throws IOException {
        firings = writer(folder.resolve("firings.tsv"));
        late = writer(folder.resolve("late.tsv"));
        dropped = writer(folder.resolve("dropped.tsv"));
    }

    static void close() throws IOException {
        for (Writer w : new Writer[] {firings, late, dropped}) {
            w.close();
        }
    }

    private static Writer writer(Path file) throws IOException {
        return new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8), 1 << 16);
    }

    static void at(long recordArrival, String why) {
        arrival = Long.toString(recordArrival);
        cause = why;
    }

    static void atEnd() {
        arrival = "";
        cause = END_OF_INPUT;
    }

    private static void write(Writer out, StringBuilder line) {
        line.append('\t').append(arrival).append('\t').append(cause).append('\n');
        try {
            out.append(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The window function: one {@link FiringRecord} per call, its values in the window state's order. */
    static final class WindowContents extends ProcessWindowFunction<Element, FiringRecord, String, TimeWindow> {
        @Override
        public void process(String key, Context context, Iterable<Element> elements, Collector<FiringRecord> out) {
            FiringRecord f = new FiringRecord();
            f.key = key;
            f.start = context.window().getStart();
            f.end = context.window().getEnd();
            f.values = java.util.stream.StreamSupport.stream(elements.spliterator(), false)
                    .mapToLong(e -> e.value).toArray();
            f.watermark = context.currentWatermark();
            out.collect(f);
        }
    }

    /** Writes each firing with the timestamp of the record the window operator emitted for it. */
    static final class Firings extends ProcessFunction<FiringRecord, Void> {
        @Override
        public void processElement(FiringRecord f, Context ctx, Collector<Void> out) {
            StringBuilder line = new StringBuilder(f.key).append('\t').append(f.start).append('\t').append(f.end)
                    .append('\t').append(ctx.timestamp()).append('\t');
            for (int i = 0; i < f.values.length; i++) {
                line.append(i == 0 ? "" : ",").append(f.values[i]);
            }
            write(firings, line.append('\t').append(f.watermark));
        }
    }

    /**
     * Writes the late-data side output. Flink sends a late record there when the tag is set and otherwise drops it
     * under the same condition, so the tag is always set and {@code sideOutput} only says which file it goes to.
     */
    static final class LateRecords extends ProcessFunction<Element, Void> {
        private final boolean sideOutput;

        LateRecords(boolean sideOutput) {
            this.sideOutput = sideOutput;
        }

        @Override
        public void processElement(Element e, Context ctx, Collector<Void> out) {
            write(sideOutput ? late : dropped,
                    new StringBuilder(e.key).append('\t').append(e.ts).append('\t').append(e.value));
        }
    }
}

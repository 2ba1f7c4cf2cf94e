package windowconformance;

import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.streaming.api.windowing.windows.Window;
import org.apache.flink.util.Collector;

/** The functions at the end of a case's branch, which write what they see into its {@link CaseRun}. */
final class Recorders {
    private Recorders() {}

    private static CaseRun sameThreadRun(int caseId) {
        CaseRun run = CaseRun.get(caseId);
        if (run.replayThread != Thread.currentThread()) {
            // Without one thread per branch, `at` would not say which event caused an output.
            throw new IllegalStateException("case " + caseId + ": the branch is not chained into one thread");
        }
        return run;
    }

    /** The window function: one {@link FiringRecord} per call, with the contents sorted. */
    static final class WindowContents<W extends Window> extends ProcessWindowFunction<Element, FiringRecord, String, W> {
        private final int caseId;

        WindowContents(int caseId) {
            this.caseId = caseId;
        }

        @Override
        public void process(String key, Context context, Iterable<Element> elements, Collector<FiringRecord> out) {
            FiringRecord f = new FiringRecord();
            f.at = sameThreadRun(caseId).at;
            f.key = key;
            W window = context.window();
            if (window instanceof TimeWindow) {
                f.start = ((TimeWindow) window).getStart();
                f.end = ((TimeWindow) window).getEnd();
            } else {
                f.global = true;
            }
            f.values = java.util.stream.StreamSupport.stream(elements.spliterator(), false)
                    .mapToLong(e -> e.value).sorted().toArray();
            f.watermark = context.currentWatermark();
            out.collect(f);
        }
    }

    /** Records each firing with the timestamp of the record the window operator emitted for it. */
    static final class Firings extends ProcessFunction<FiringRecord, Void> {
        private final int caseId;

        Firings(int caseId) {
            this.caseId = caseId;
        }

        @Override
        public void processElement(FiringRecord f, Context ctx, Collector<Void> out) {
            Long timestamp = ctx.timestamp();
            if (timestamp == null) {
                throw new IllegalStateException("a window output without a timestamp");
            }
            sameThreadRun(caseId).fired(f, timestamp);
        }
    }

    /**
     * Records the late-data side output. Flink sends a late record there when the tag is set and
     * otherwise counts it in numLateRecordsDropped under the same condition, so the tag is always set
     * and the case's late_side_output only says which list the record goes to.
     */
    static final class LateRecords extends ProcessFunction<Element, Void> {
        private final int caseId;
        private final boolean sideOutput;

        LateRecords(int caseId, boolean sideOutput) {
            this.caseId = caseId;
            this.sideOutput = sideOutput;
        }

        @Override
        public void processElement(Element e, Context ctx, Collector<Void> out) {
            sameThreadRun(caseId).lateRecord(e, sideOutput);
        }
    }
}

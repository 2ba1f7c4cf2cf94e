package windowconformance;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.functions.AssignerWithPeriodicWatermarks;
import org.apache.flink.streaming.runtime.operators.util.AssignerWithPeriodicWatermarksAdapter;

/**
 * A legacy timestamp extractor as {@code assignTimestampsAndWatermarks} takes it: Flink 1.20's
 * {@code DataStream.assignTimestampsAndWatermarks(AssignerWithPeriodicWatermarks)} wraps it in this adapter.
 */
final class LegacyStrategy {
    private LegacyStrategy() {}

    static WatermarkStrategy<Element> of(AssignerWithPeriodicWatermarks<Element> extractor) {
        return new AssignerWithPeriodicWatermarksAdapter.Strategy<>(extractor);
    }
}

package windowconformance;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/** A legacy timestamp extractor as {@code assignTimestampsAndWatermarks} takes it: in Flink 2.x it is a strategy. */
final class LegacyStrategy {
    private LegacyStrategy() {}

    static WatermarkStrategy<Element> of(WatermarkStrategy<Element> extractor) {
        return extractor;
    }
}

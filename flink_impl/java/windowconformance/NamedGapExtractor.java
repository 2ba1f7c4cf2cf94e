package windowconformance;

import org.apache.flink.streaming.api.windowing.assigners.SessionWindowTimeGapExtractor;

/**
 * The gap extractors a case names (the format carries no code), for {@code withDynamicGap}:
 * {@code value} gives each record its own value as its session gap.
 */
final class NamedGapExtractor implements SessionWindowTimeGapExtractor<Element> {
    private static final long serialVersionUID = 1L;

    NamedGapExtractor(String name) {
        if (!name.equals("value")) {
            throw new CaseBranch.UnsupportedCase("gap extractor " + name);
        }
    }

    @Override
    public long extract(Element element) {
        return element.value;
    }
}

package windowconformance;

import org.apache.flink.streaming.api.functions.windowing.delta.DeltaFunction;

/**
 * The delta function a case names ({@code "delta_function"}), over two records' values as Java
 * computes it: each {@code long} converted to {@code double} first.
 * {@code absolute_difference} is {@code Math.abs((double) old - (double) new)},
 * {@code difference} is {@code (double) new - (double) old}.
 */
final class NamedDeltaFunction implements DeltaFunction<Element> {
    private static final long serialVersionUID = 1L;

    private final boolean absolute;

    private NamedDeltaFunction(boolean absolute) {
        this.absolute = absolute;
    }

    static NamedDeltaFunction of(String name) {
        switch (name) {
            case "absolute_difference":
                return new NamedDeltaFunction(true);
            case "difference":
                return new NamedDeltaFunction(false);
            default:
                throw new CaseBranch.UnsupportedCase("delta function " + name);
        }
    }

    @Override
    public double getDelta(Element oldDataPoint, Element newDataPoint) {
        double delta = (double) newDataPoint.value - (double) oldDataPoint.value;
        return absolute ? Math.abs(delta) : delta;
    }
}

package windowconformance;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What the runner takes from the contract instead of stating it again: its name and features for the
 * hello, the limits on what a case may cost, and the contract's messages for a case stopped by them.
 * The runner's one argument, built by flink_impl/command.py from window_contract/facts.py and
 * window_contract/features.py (see {@link Runner}).
 */
final class Contract {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final String name;
    private final JsonNode features;
    /** The API the cases' jobs are written in ({@link Api#named}); {@code datastream} when absent. */
    final String api;
    /** Cases per Flink job. */
    final int branchesPerJob;
    /** A job still running after this long is replaying a case that does not end. */
    final long jobTimeoutSeconds;
    /** The outputs one key may emit; its next one stops the case with {@link #tooManyOutputs}. */
    final int outputLimit;
    final String tooManyOutputs;
    /** The runtime error of a case stopped because it would never end. */
    final String neverEnds;
    /** The most windows one element's sliding assignment may yield, and the error beyond it. */
    final int windowsPerElementLimit;
    final String tooManyWindows;

    private Contract(JsonNode contract) {
        name = text(contract, "name");
        features = contract.get("features");
        if (features == null || !features.isArray()) {
            throw new IllegalArgumentException("'features' must be an array of feature names");
        }
        api = contract.has("api") ? text(contract, "api") : "datastream";
        JsonNode limits = contract.path("limits");
        branchesPerJob = positive(limits, "branches_per_job");
        jobTimeoutSeconds = positive(limits, "job_timeout_seconds");
        outputLimit = positive(limits, "output_limit");
        neverEnds = text(contract, "never_ends");
        tooManyOutputs = text(contract, "too_many_outputs");
        windowsPerElementLimit = positive(contract, "windows_per_element_limit");
        tooManyWindows = text(contract, "too_many_windows");
    }

    static Contract parse(String[] args) throws Exception {
        if (args.length != 1) {
            throw new IllegalArgumentException("expected one argument, got " + args.length);
        }
        return new Contract(MAPPER.readTree(args[0]));
    }

    /** The protocol's first line. */
    ObjectNode hello() {
        ObjectNode hello = MAPPER.createObjectNode()
                .put("type", "hello")
                .put("protocol", "window-process/1")
                .put("name", name);
        hello.set("features", features);
        return hello.put("position_free", false).put("costly_calls", true);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' must be a string");
        }
        return value.asText();
    }

    private static int positive(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.canConvertToInt() || value.asInt() <= 0) {
            throw new IllegalArgumentException("'" + field + "' must be a positive integer");
        }
        return value.asInt();
    }
}

package windowconformance.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What the suite's contract says beyond the formats, handed to the process by its launcher as one JSON argument
 * ({@code engines/jvm.py}, from {@code window_contract/facts.py}) rather than stated again here: an element whose window
 * assignment yields more than {@code windowsPerElementLimit} windows stops its case there, with the {@code runtime}
 * error {@code tooManyWindows} (docs/semantics.md, "Where the contract stops Flink").
 */
public record Contract(long windowsPerElementLimit, String tooManyWindows) {

    public static Contract fromJson(String argument) throws Exception {
        JsonNode doc = new ObjectMapper().readTree(argument);
        if (!doc.path("windows_per_element_limit").canConvertToLong() || !doc.path("too_many_windows").isTextual()) {
            throw new IllegalArgumentException("the contract argument needs windows_per_element_limit and "
                    + "too_many_windows: " + argument);
        }
        return new Contract(doc.get("windows_per_element_limit").asLong(), doc.get("too_many_windows").asText());
    }
}

package windowconformance.hazelcastjet;

import java.util.Set;
import windowconformance.protocol.WindowCase;

/**
 * What the Hazelcast Jet engine translates, checked on every case: the suite sends only cases within the declared
 * features, so a case beyond them is a fault of the request, never something to run differently.
 */
final class Translated {

    /** The features declared in the hello (names from {@code window_contract.features.FEATURES}). */
    static final Set<String> FEATURES = Set.of(
            "assigner.tumbling", "assigner.sliding", "assigner.session", "trigger.event_time", "negative_timestamps",
            "unbounded_input", "watermark.bounded_out_of_orderness", "watermark.monotonous",
            "watermark.legacy_ascending", "watermark.punctuated");

    private Translated() {}

    static void check(WindowCase c) {
        WindowCase.Window w = c.window();
        require(!"processing".equals(w.time()), "processing time");
        require(w.offset() == 0, "a window offset");
        require(c.hasDefaultTrigger() || "event_time".equals(c.trigger().path("type").asText()), "this trigger");
        require(c.evictor() == null || c.evictor().isNull(), "evictors");
        require(c.allowedLateness() == 0, "allowed lateness");
        require(!c.lateSideOutput(), "a late side output");
        require(c.channels() == 1, "several channels");
        require(c.generator() == null || c.generator().punctuated() && c.generator().idleness() == null,
                "periodic emission or idleness");
        for (WindowCase.Event e : c.events()) {
            require(!(e instanceof WindowCase.ChannelEvent), "channel events");
        }
    }

    private static void require(boolean translated, String what) {
        if (!translated) {
            throw new UnsupportedOperationException("hazelcast-jet does not declare " + what);
        }
    }
}

package windowconformance.protocol;

import java.util.Set;

/**
 * What an event-time engine of {@code engines/jvm} translates, checked on every case: the suite sends only cases
 * within the features the engine declares in its hello, so a case beyond them is a fault of the request, never
 * something to run differently. Such an engine translates one channel, event-time windows without an offset, the
 * event-time trigger, no evictor, no allowed lateness nor late side output, and punctuated generators without
 * idleness; negative timestamps only where it declares {@code negative_timestamps}.
 */
public record Translated(String engine, Set<String> features) {

    public Translated {
        features = Set.copyOf(features);
    }

    /** Throws {@code UnsupportedOperationException} naming what {@code c} needs that the engine does not declare. */
    public void check(WindowCase c) {
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
        boolean negative = features.contains("negative_timestamps");
        for (WindowCase.Event e : c.events()) {
            require(!(e instanceof WindowCase.ChannelEvent), "channel events");
            require(negative || !(e instanceof WindowCase.Record r) || r.ts() >= 0, "negative timestamps");
            require(negative || !(e instanceof WindowCase.Watermark m) || m.timestamp() >= 0, "negative watermarks");
        }
    }

    private void require(boolean translated, String what) {
        if (!translated) {
            throw new UnsupportedOperationException(engine + " does not declare " + what);
        }
    }
}

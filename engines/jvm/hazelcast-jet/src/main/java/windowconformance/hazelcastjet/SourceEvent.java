package windowconformance.hazelcastjet;

import java.io.Serializable;

/** What the case's source emits, in the case's order: its records and the watermarks it lists (in Jet's terms). Each
 * knows its position among the case's events, by which the adapter tells which records Jet took and where a case
 * stopped. */
sealed interface SourceEvent extends Serializable permits SourceEvent.Item, SourceEvent.Mark {

    int index();

    /** A record of the case. */
    record Item(int index, String key, long value, long ts) implements SourceEvent {}

    /** A watermark the source emits itself: Jet's {@code Watermark(timestamp)}. */
    record Mark(int index, long timestamp) implements SourceEvent {}
}

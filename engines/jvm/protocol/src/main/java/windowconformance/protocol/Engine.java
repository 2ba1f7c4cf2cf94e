package windowconformance.protocol;

import java.util.List;
import java.util.Set;

/** An engine under test as the suite sees it through {@code window-process/1} (docs/protocol.md). */
public interface Engine {

    /** The name shown in the report. */
    String name();

    /** The features it declares (names from {@code window_contract.features.FEATURES}): the suite sends no other cases. */
    Set<String> features();

    /** One observation per case, in order: a job the engine rejects is an {@code invalid_spec} observation in the
     * engine's words, a job that fails while it runs a {@code runtime} one. An exception means the engine could
     * not run the cases at all (the request is answered with an error). */
    List<Observation> run(List<WindowCase> cases) throws Exception;

    /** One join observation per join case, in order, as {@link #run}: the suite sends join cases only to an engine
     * that declares a join feature ({@code join.interval}, ...), and only of the joins it declares. */
    default List<JoinObservation> runJoins(List<JoinCase> cases) throws Exception {
        throw new UnsupportedOperationException(name() + " declares no join");
    }
}

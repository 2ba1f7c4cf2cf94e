package windowconformance.protocol;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The process side of {@code window-process/1} (docs/protocol.md): a hello with the engine's name and features
 * (position-free, costly calls: the suite sends each property's cases in a few large requests), then one answer per
 * run or run_joins request (docs/protocol.md), until stdin ends. Stdout carries only the protocol: whatever the engine
 * prints goes to stderr.
 */
public final class Server {

    public static final String PROTOCOL = "window-process/1";

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private final Engine engine;
    private final PrintStream out;

    private Server(Engine engine, PrintStream out) {
        this.engine = engine;
        this.out = out;
    }

    /** Serves {@code engine} over this process's stdin and stdout. */
    public static void serve(Engine engine) throws Exception {
        PrintStream protocol = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        new Server(engine, protocol).run(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    }

    private void run(BufferedReader in) throws Exception {
        send(hello());
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (!line.isBlank()) {
                send(answer(JSON.readTree(line)));
            }
        }
    }

    private ObjectNode hello() {
        ObjectNode hello = JSON.createObjectNode().put("type", "hello").put("protocol", PROTOCOL)
                .put("name", engine.name());
        ArrayNode features = hello.putArray("features");
        engine.features().stream().sorted().forEach(features::add);
        return hello.put("position_free", true).put("costly_calls", true);
    }

    /** The observations of one run (or run_joins) request, or an error when the cases could not be read or run. */
    private ObjectNode answer(JsonNode request) {
        JsonNode id = request.get("id");
        ObjectNode answer = JSON.createObjectNode();
        try {
            String type = request.path("type").asText();
            if (!("run".equals(type) || "run_joins".equals(type)) || !request.path("cases").isArray()) {
                throw new IllegalArgumentException("a request must be {type: run or run_joins, id, cases: [...]}");
            }
            List<ObjectNode> observations = "run".equals(type) ? runs(request.get("cases")) : joins(request.get("cases"));
            answer.put("type", "observations").set("id", id);
            answer.putArray("observations").addAll(observations);
        } catch (Exception | StackOverflowError e) {
            e.printStackTrace();
            answer.removeAll();
            answer.put("type", "error").set("id", id);
            answer.put("message", engine.name() + " could not run the cases: " + e);
        }
        return answer;
    }

    private List<ObjectNode> runs(JsonNode docs) throws Exception {
        List<WindowCase> cases = new ArrayList<>();
        docs.forEach(doc -> cases.add(WindowCase.fromJson(doc)));
        return engine.run(cases).stream().map(Observation::toJson).toList();
    }

    private List<ObjectNode> joins(JsonNode docs) throws Exception {
        List<JoinCase> cases = new ArrayList<>();
        docs.forEach(doc -> cases.add(JoinCase.fromJson(doc)));
        return engine.runJoins(cases).stream().map(JoinObservation::toJson).toList();
    }

    private void send(ObjectNode message) throws Exception {
        out.println(JSON.writeValueAsString(message));
        out.flush();
        if (out.checkError()) {
            throw new IllegalStateException("stdout is closed");
        }
    }
}

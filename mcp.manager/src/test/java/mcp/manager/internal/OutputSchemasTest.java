package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class OutputSchemasTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    @Test
    void structuredContentIsCheckedWithJsonSchema2020Keywords() {
        OutputSchemas schema = OutputSchemas.of(json("""
                {"type": "object",
                 "$defs": {"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}],
                                     "items": false}},
                 "properties": {"at": {"$ref": "#/$defs/point"}, "label": {"type": "string", "minLength": 1}},
                 "required": ["at"],
                 "unevaluatedProperties": false}
                """));
        assertEquals(Optional.empty(), schema.problem(json("{\"at\": [1, 2], \"label\": \"x\"}")));
        String tooLong = schema.problem(json("{\"at\": [1, 2, 3]}")).orElseThrow();
        assertTrue(tooLong.contains("/at"), tooLong);
        String extra = schema.problem(json("{\"at\": [1, 2], \"other\": true}")).orElseThrow();
        assertTrue(extra.contains("other"), extra);
        String missing = schema.problem(json("{\"label\": \"\"}")).orElseThrow();
        assertTrue(missing.contains("at") && missing.contains("label"), missing);
    }

    @Test
    void aReferenceToTheNetworkIsNeverFollowed() throws Exception {
        AtomicInteger fetched = new AtomicInteger();
        try (ServerSocket canary = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!canary.isClosed()) {
                    try (Socket connection = canary.accept()) {
                        fetched.incrementAndGet();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String url = "http://127.0.0.1:" + canary.getLocalPort() + "/profile.json";
            OutputSchemas schema;
            Optional<String> problem;
            try {
                schema = OutputSchemas.of(json("{\"type\": \"object\", \"properties\": {\"p\": {\"$ref\": \"" + url + "\"}}}"));
                problem = schema.problem(json("{\"p\": {}}"));
            } catch (RuntimeException e) {
                problem = Optional.of(e.getMessage());
            }
            assertEquals(0, fetched.get(), "the validator fetched " + url);
            assertTrue(problem.isPresent(), "a reference that cannot be followed cannot pass");
        }
    }
}

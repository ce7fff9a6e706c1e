package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The ready elicitation and sampling handlers. */
class ElicitationHandlersTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    /** The form of the conformance suite's SEP-1034 scenario. */
    private static final String FORM = """
            {"message": "please accept with defaults", "requestedSchema": {"type": "object", "properties": {
              "name": {"type": "string", "default": "John Doe"},
              "age": {"type": "integer", "default": 30},
              "score": {"type": "number", "default": 95.5},
              "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
              "verified": {"type": "boolean", "default": true},
              "nickname": {"type": "string"}
            }, "required": []}}""";

    @Test
    void acceptDefaultsAnswersWithEveryDefaultAndTheirTypes() throws Exception {
        JsonNode answer = ElicitationHandlers.acceptDefaults().handle(json(FORM));
        assertEquals(json("""
                {"action": "accept", "content": {"name": "John Doe", "age": 30, "score": 95.5, "status": "active",
                 "verified": true}}"""), answer);
    }

    @Test
    void aRequiredFieldWithoutDefaultOrAUrlRequestIsDeclined() throws Exception {
        JsonNode required = json("""
                {"message": "m", "requestedSchema": {"type": "object", "properties": {"email": {"type": "string"}},
                 "required": ["email"]}}""");
        assertEquals(json("{\"action\": \"decline\"}"), ElicitationHandlers.acceptDefaults().handle(required));
        assertEquals(json("{\"action\": \"decline\"}"), ElicitationHandlers.acceptDefaults()
                .handle(json("{\"mode\": \"url\", \"message\": \"m\", \"url\": \"https://example.invalid\", \"elicitationId\": \"1\"}")));
        assertEquals(json("{\"action\": \"decline\"}"), ElicitationHandlers.decline().handle(json(FORM)));
    }

    @Test
    void acceptingKeepsWhatTheAnswerGaveAndFillsTheRest() throws Exception {
        JsonNode answer = ElicitationHandlers.accepting(params -> json("{\"name\": \"Ada\", \"nickname\": \"a\"}"))
                .handle(json(FORM));
        assertEquals("Ada", answer.path("content").path("name").asString());
        assertEquals("a", answer.path("content").path("nickname").asString());
        assertEquals(30, answer.path("content").path("age").asInt());
        assertEquals(json("{\"action\": \"decline\"}"), ElicitationHandlers.accepting(params -> null).handle(json(FORM)));
    }

    @Test
    void applyDefaultsCopies() {
        JsonNode content = json("{\"age\": 41}");
        JsonNode filled = ElicitationHandlers.applyDefaults(json(FORM).get("requestedSchema"), content);
        assertEquals(41, filled.path("age").asInt());
        assertEquals("John Doe", filled.path("name").asString());
        assertEquals(json("{\"age\": 41}"), content);
        assertEquals(McpJson.object(), ElicitationHandlers.applyDefaults(null, null));
    }

    @Test
    void samplingHandlersAnswerOrReject() throws Exception {
        JsonNode result = SamplingHandlers.text("test-model", params -> "hello " + params.path("maxTokens").asInt())
                .handle(json("{\"messages\": [], \"maxTokens\": 5}"));
        assertEquals(json("""
                {"role": "assistant", "content": {"type": "text", "text": "hello 5"}, "model": "test-model",
                 "stopReason": "endTurn"}"""), result);
        McpProtocolException rejected = assertThrows(McpProtocolException.class,
                () -> SamplingHandlers.text("m", params -> null).handle(json("{}")));
        assertEquals(-1, rejected.code());
        assertEquals(-1, assertThrows(McpProtocolException.class, () -> SamplingHandlers.reject().handle(null)).code());
    }
}

package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import mcp.api.McpJson;
import mcp.api.spi.ElicitationUi;
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

    /** A UI that answers from a script and records what it was shown. */
    private static final class ScriptedUi implements ElicitationUi {
        final List<Object> shown = new CopyOnWriteArrayList<>();
        ElicitationUi.Response answer;

        @Override
        public String id() {
            return "scripted";
        }

        @Override
        public Response form(FormRequest request) {
            shown.add(request);
            return answer;
        }

        @Override
        public Response url(UrlRequest request) {
            shown.add(request);
            return answer;
        }
    }

    @Test
    void forUiAsksTheUiAndChecksAndCompletesItsAnswer() throws Exception {
        ScriptedUi ui = new ScriptedUi();
        ElicitationHandler handler = ElicitationHandlers.forUi("kit", ui);
        assertEquals(Set.of(ElicitationUi.Mode.FORM, ElicitationUi.Mode.URL), handler.modes());
        ui.answer = ElicitationUi.Response.accept(McpJson.object().put("name", "Ada"));
        JsonNode accepted = handler.handle(json(FORM));
        assertEquals("Ada", accepted.path("content").path("name").asString());
        assertEquals(30, accepted.path("content").path("age").asInt(), "the defaults complete the answer");
        ElicitationUi.FormRequest asked = (ElicitationUi.FormRequest) ui.shown.get(0);
        assertEquals("kit", asked.serverName());
        assertEquals("please accept with defaults", asked.message());

        ui.answer = ElicitationUi.Response.accept(McpJson.object().put("age", "not a number"));
        assertEquals(json("{\"action\": \"decline\"}"), handler.handle(json(FORM)), "an answer that does not fit");
        ui.answer = ElicitationUi.Response.cancel();
        assertEquals(json("{\"action\": \"cancel\"}"), handler.handle(json(FORM)));
    }

    @Test
    void forUiShowsOnlyHttpUrlsAndAnswersWithoutContent() throws Exception {
        ScriptedUi ui = new ScriptedUi();
        ElicitationHandler handler = ElicitationHandlers.forUi("kit", ui);
        ui.answer = ElicitationUi.Response.accept();
        assertEquals(json("{\"action\": \"accept\"}"), handler.handle(json("""
                {"mode": "url", "message": "Sign in", "url": "https://login.example/x?token=t", "elicitationId": "e1"}""")));
        ElicitationUi.UrlRequest asked = (ElicitationUi.UrlRequest) ui.shown.get(0);
        assertEquals(URI.create("https://login.example/x?token=t"), asked.url());
        assertEquals("e1", asked.elicitationId());
        assertTrue(!asked.toString().contains("token"), asked.toString());
        assertEquals(json("{\"action\": \"decline\"}"), handler.handle(json("""
                {"mode": "url", "message": "m", "url": "javascript:alert(1)", "elicitationId": "e2"}""")));
        assertEquals(1, ui.shown.size(), "a URL that is not http(s) never reaches the user");
    }

    @Test
    void withoutUiDeclaresNothingAndDeclinesEveryMode() throws Exception {
        ElicitationHandler handler = ElicitationHandlers.withoutUi("kit");
        assertEquals(Set.of(), handler.modes());
        assertEquals(json("{\"action\": \"decline\"}"), handler.handle(json(FORM)));
        assertEquals(json("{\"action\": \"decline\"}"), handler.handle(json(
                "{\"mode\": \"url\", \"message\": \"m\", \"url\": \"https://a.example\", \"elicitationId\": \"1\"}")));
    }
}

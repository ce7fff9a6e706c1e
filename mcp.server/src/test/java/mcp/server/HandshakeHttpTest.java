package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Optional;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.protocol.SseEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The handshake era over HTTP: the server's own requests during a call, the GET stream, and resuming a stream. */
class HandshakeHttpTest {

    private static final ToolDefinition RECONNECT = ToolDefinition.of("reconnect", "Closes its stream, then answers",
            McpJson.object().put("type", "object"));
    private static final ToolHandler CLOSES_ITS_STREAM = (arguments, context) -> ToolResult.text("closed: "
            + context.closeStream());

    private McpServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private URI start() throws Exception {
        server = Fixtures.server(ServerLimits.DEFAULT);
        return server.serveHttp(HttpOptions.LOOPBACK).uri();
    }

    private static String answer(JsonNode request) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + request.path("id") + ",\"result\":{\"action\":\"accept\",\"content\":"
                + "{\"name\":\"Ada\"}}}";
    }

    @Test
    void aCallsRequestIsSentOnItsStreamAndItsAnswerRoutedBack() throws Exception {
        URI uri = start();
        String session = Wire.initialize(uri, "{\"elicitation\":{}}");
        try (EventStream call = EventStream.post(uri, Wire.request(5, "tools/call", Wire.json(
                "{\"name\":\"ask\",\"arguments\":{}}")), Wire.session(session))) {
            assertEquals(200, call.status);
            JsonNode request = call.nextWithMethod("elicitation/create");
            assertEquals("Name?", request.path("params").path("message").asString());
            Wire.Reply accepted = Wire.post(uri, answer(request), Wire.session(session));
            assertEquals(202, accepted.status());
            JsonNode result = call.nextMessage();
            assertEquals(5, result.path("id").asInt());
            assertEquals("Hello, Ada", result.path("result").path("content").path(0).path("text").asString());
            assertTrue(call.endsWithin(10_000), "the stream ends with the answer");
        }
    }

    @Test
    void aClientWithoutTheCapabilityIsNotAsked() throws Exception {
        URI uri = start();
        String session = Wire.initialize(uri, "{}");
        Wire.Reply reply = Wire.post(uri, Wire.request(6, "tools/call", Wire.json("{\"name\":\"ask\"}")),
                Wire.session(session));
        assertEquals(-32021, reply.last().path("error").path("code").asInt(), reply.body());
    }

    @Test
    void aBrokenStreamIsResumedWithLastEventId() throws Exception {
        URI uri = start();
        String session = Wire.initialize(uri, "{\"elicitation\":{}}");
        String lastId;
        JsonNode request;
        try (EventStream call = EventStream.post(uri, Wire.request(8, "tools/call", Wire.json(
                "{\"name\":\"ask\",\"arguments\":{}}")), Wire.session(session))) {
            SseEvent event = call.next();
            request = Wire.json(event.text());
            lastId = event.lastEventId();
            assertNotNull(lastId, "resumable events carry ids");
        }
        // The stream is gone; in this era that is no cancellation: the call waits, and its answer is kept.
        assertEquals(202, Wire.post(uri, answer(request), Wire.session(session)).status());
        assertResumedWithAnswer(uri, session, lastId, 8, "Hello, Ada");
    }

    @Test
    void aStreamItsToolClosesIsResumedAndCarriesTheAnswer() throws Exception {
        server = Fixtures.builder(ServerLimits.DEFAULT).tool(RECONNECT, CLOSES_ITS_STREAM).build();
        URI uri = server.serveHttp(HttpOptions.LOOPBACK).uri();
        String session = Wire.initialize(uri, "{}");
        String lastId;
        try (EventStream call = EventStream.post(uri, Wire.request(11, "tools/call", Wire.json(
                "{\"name\":\"reconnect\",\"arguments\":{}}")), Wire.session(session))) {
            assertEquals(200, call.status);
            assertTrue(call.endsWithin(10_000), "the server closed the stream");
            assertFalse(call.anyEvent(), "nothing but the priming event before the close");
            lastId = call.lastEventId();
            assertNotNull(lastId, "the priming event gives an id to resume from");
        }
        assertResumedWithAnswer(uri, session, lastId, 11, "closed: true");
    }

    /** Resumes the session's stream after {@code lastId}: the call's answer comes, and the stream ends with it. */
    private static void assertResumedWithAnswer(URI uri, String session, String lastId, int id, String text)
            throws Exception {
        java.util.Map<String, String> headers = new java.util.HashMap<>(Wire.session(session));
        headers.put("Last-Event-ID", lastId);
        try (EventStream resumed = EventStream.get(uri, headers)) {
            assertEquals(200, resumed.status);
            JsonNode result = resumed.nextMessage();
            assertEquals(id, result.path("id").asInt(), result.toString());
            assertEquals(text, result.path("result").path("content").path(0).path("text").asString());
            assertTrue(resumed.endsWithin(10_000), "the resumed stream ends with the answer");
        }
    }

    @Test
    void noStreamIsClosedThatTheClientCouldNotResume() throws Exception {
        // A session that keeps no events for a resume.
        server = Fixtures.builder(new ServerLimits(4L << 20, 10, java.time.Duration.ofMinutes(1), 16, 16, 100, 0, 16,
                java.time.Duration.ofMinutes(1), 1_000, java.time.Duration.ofSeconds(30)))
                .tool(RECONNECT, CLOSES_ITS_STREAM).build();
        URI uri = server.serveHttp(HttpOptions.LOOPBACK).uri();
        String session = Wire.initialize(uri, "{}");
        Wire.Reply kept = Wire.post(uri, Wire.request(12, "tools/call", Wire.json(
                "{\"name\":\"reconnect\",\"arguments\":{}}")), Wire.session(session));
        assertEquals("closed: false", kept.last().path("result").path("content").path(0).path("text").asString(),
                kept.toString());
        // The stateless revision: a request's stream that breaks is its cancellation, never resumed.
        Wire.Reply stateless = Wire.post(uri, Wire.request(13, "tools/call", Wire.stateless(
                "{\"name\":\"reconnect\",\"arguments\":{}}", "{}")), Wire.statelessHeaders("tools/call",
                "reconnect"));
        assertEquals("closed: false", stateless.last().path("result").path("content").path(0).path("text")
                .asString(), stateless.toString());
    }

    @Test
    void theGetStreamCarriesListChangesAndSubscribedUpdates() throws Exception {
        URI uri = start();
        String session = Wire.initialize(uri, "{}");
        try (EventStream stream = EventStream.get(uri, Wire.session(session))) {
            assertEquals(200, stream.status);
            Wire.Reply second = Wire.send(java.net.http.HttpRequest.newBuilder(uri).header("Accept",
                    "text/event-stream").header("Mcp-Session-Id", session).GET().build());
            assertEquals(409, second.status(), "one GET stream per session");
            server.features().orElseThrow().tool(ToolDefinition.of("late", "Added later", McpJson.object()),
                    (arguments, context) -> ToolResult.text("late"));
            assertEquals("notifications/tools/list_changed", stream.nextMessage().path("method").asString());
            server.resourceUpdated("test://not-subscribed");
            server.toolsChanged();
            assertEquals("notifications/tools/list_changed", stream.nextMessage().path("method").asString(),
                    "no update of a resource the session did not subscribe to");
        }
    }

    @Test
    void aCancelledCallIsNotAnswered() throws Exception {
        URI uri = start();
        String session = Wire.initialize(uri, "{}");
        java.util.concurrent.CompletableFuture<Wire.Reply> slow = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return Wire.post(uri, Wire.request(9, "tools/call", Wire.json(
                                "{\"name\":\"slow\",\"arguments\":{\"ms\":30000}}")), Wire.session(session));
                    } catch (Exception e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                });
        Thread.sleep(500);
        assertEquals(202, Wire.post(uri, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
                + "{\"requestId\":9,\"reason\":\"no longer needed\"}}", Wire.session(session)).status());
        Wire.Reply reply = slow.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(reply.status() == 202 || reply.messages().stream().noneMatch(m -> m.has("result")),
                "no result for a cancelled call: " + reply);
        Optional<JsonNode> answered = reply.messages().stream().filter(m -> m.has("id")).findFirst();
        assertTrue(answered.isEmpty(), reply.toString());
    }
}

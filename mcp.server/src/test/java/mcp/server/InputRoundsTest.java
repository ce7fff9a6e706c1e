package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import mcp.api.McpJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Multi round-trip requests of the stateless revision: the requestState is the server's, sealed, bound to its
 * request and round, and expires; what the client sends back with it is checked before any handler sees it.
 */
class InputRoundsTest {

    private McpServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private URI start(ServerLimits limits) throws Exception {
        server = Fixtures.server(limits);
        return server.serveHttp(HttpOptions.LOOPBACK).uri();
    }

    private static Wire.Reply call(URI uri, String tool, String extra) throws Exception {
        ObjectNode params = Wire.stateless("{\"name\":\"" + tool + "\",\"arguments\":{}" + extra + "}",
                "{\"elicitation\":{},\"roots\":{}}");
        return Wire.post(uri, Wire.request(7, "tools/call", params), Wire.statelessHeaders("tools/call", tool));
    }

    private static String answer(String state) {
        return ",\"inputResponses\":{\"user_name\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}},"
                + "\"requestState\":" + McpJson.mapper().getNodeFactory().stringNode(state);
    }

    private static JsonNode result(Wire.Reply reply) {
        return reply.last().path("result");
    }

    @Test
    void aRoundIsAnsweredWithTheStateItGave() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        Wire.Reply first = call(uri, "ask", "");
        JsonNode round = result(first);
        assertEquals("input_required", round.path("resultType").asString(), first.body());
        assertEquals("elicitation/create", round.path("inputRequests").path("user_name").path("method").asString());
        String state = round.path("requestState").asString();
        Wire.Reply done = call(uri, "ask", answer(state));
        assertEquals("complete", result(done).path("resultType").asString(), done.body());
        assertEquals("Hello, Ada", result(done).path("content").path(0).path("text").asString());
        Wire.Reply again = call(uri, "ask", answer(state));
        assertEquals(-32602, again.last().path("error").path("code").asInt(), "a state is good for one retry: "
                + again.body());
    }

    @Test
    void aTamperedStateIsRefused() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        String state = result(call(uri, "ask", "")).path("requestState").asString();
        for (String tampered : new String[] {state + "-TAMPERED", "x" + state.substring(1),
                state.substring(0, state.indexOf('.')) + ".AAAA", "not-a-state", ""}) {
            Wire.Reply reply = call(uri, "ask", answer(tampered));
            assertEquals(400, reply.status(), tampered);
            assertEquals(-32602, reply.last().path("error").path("code").asInt(), reply.body());
            assertTrue(reply.last().path("error").path("message").asString().contains("requestState"), reply.body());
        }
        Wire.Reply done = call(uri, "ask", answer(state));
        assertEquals("Hello, Ada", result(done).path("content").path(0).path("text").asString(),
                "the refusals left the waiting call alone: " + done.body());
    }

    @Test
    void aStateIsBoundToItsRequestAndItsRound() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        String state = result(call(uri, "ask", "")).path("requestState").asString();
        Wire.Reply elsewhere = call(uri, "ask_twice", answer(state));
        assertEquals(-32602, elsewhere.last().path("error").path("code").asInt(), elsewhere.body());
        assertTrue(elsewhere.last().path("error").path("message").asString().contains("another request"));

        JsonNode first = result(call(uri, "ask_twice", ""));
        String state1 = first.path("requestState").asString();
        String roots = ",\"inputResponses\":{\"a\":{\"roots\":[]},\"b\":{\"roots\":[]}},\"requestState\":";
        JsonNode second = result(call(uri, "ask_twice", roots + "\"" + state1 + "\""));
        assertEquals("input_required", second.path("resultType").asString(), second.toString());
        String state2 = second.path("requestState").asString();
        assertNotEquals(state1, state2);
        Wire.Reply stale = call(uri, "ask_twice", roots + "\"" + state1 + "\"");
        assertEquals(-32602, stale.last().path("error").path("code").asInt(), stale.body());
        Wire.Reply done = call(uri, "ask_twice", roots + "\"" + state2 + "\"");
        assertEquals("[a][b]", result(done).path("content").path(0).path("text").asString(), done.body());
    }

    @Test
    void missingAnswersAreAskedAgainAndMalformedOnesRefused() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        String state = result(call(uri, "ask", "")).path("requestState").asString();
        JsonNode again = result(call(uri, "ask", ",\"inputResponses\":{\"other\":{}},\"requestState\":\"" + state
                + "\""));
        assertEquals("input_required", again.path("resultType").asString(), again.toString());
        assertTrue(again.path("inputRequests").has("user_name"));
        for (String bad : new String[] {",\"inputResponses\":null", ",\"inputResponses\":{\"user_name\":5}",
                ",\"inputResponses\":[]", ",\"requestState\":5"}) {
            Wire.Reply reply = call(uri, "ask", bad);
            assertEquals(-32602, reply.last().path("error").path("code").asInt(), bad + ": " + reply.body());
        }
        Wire.Reply direct = call(uri, "ask", ",\"inputResponses\":{\"user_name\":{\"action\":\"accept\","
                + "\"content\":{\"name\":\"Bo\"}},\"extra\":{}}");
        assertEquals("Hello, Bo", result(direct).path("content").path(0).path("text").asString(),
                "answers sent with a first request are taken at once: " + direct.body());
    }

    @Test
    void aCallNobodyAnswersExpiresAndTheBoundHolds() throws Exception {
        URI uri = start(ServerLimits.DEFAULT.withInputs(2, Duration.ofMillis(600)));
        String state = result(call(uri, "ask", "")).path("requestState").asString();
        result(call(uri, "ask", ""));
        Wire.Reply busy = call(uri, "ask", "");
        assertTrue(busy.last().path("error").path("message").asString().contains("busy"), busy.body());
        Thread.sleep(1500);
        Wire.Reply late = call(uri, "ask", answer(state));
        assertEquals(-32602, late.last().path("error").path("code").asInt(), late.body());
        assertEquals("input_required", result(call(uri, "ask", "")).path("resultType").asString(),
                "expired calls free their places");
    }

    @Test
    void manyCallsWaitingForInputAtOnceAreAllServed() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        int calls = 120;
        java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(32);
        try {
            List<java.util.concurrent.Future<String>> states = new java.util.ArrayList<>();
            for (int i = 0; i < calls; i++) {
                states.add(clients.submit(() -> result(call(uri, "ask", "")).path("requestState").asString()));
            }
            List<java.util.concurrent.Future<String>> answers = new java.util.ArrayList<>();
            for (java.util.concurrent.Future<String> state : states) {
                String token = state.get(60, java.util.concurrent.TimeUnit.SECONDS);
                answers.add(clients.submit(() -> result(call(uri, "ask", answer(token))).path("content").path(0)
                        .path("text").asString()));
            }
            for (java.util.concurrent.Future<String> answer : answers) {
                assertEquals("Hello, Ada", answer.get(60, java.util.concurrent.TimeUnit.SECONDS),
                        "every handler blocked in its ask was answered");
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void aCapabilityTheClientDidNotDeclareIsMissing() throws Exception {
        URI uri = start(ServerLimits.DEFAULT);
        ObjectNode params = Wire.stateless("{\"name\":\"ask\",\"arguments\":{}}", "{}");
        Wire.Reply reply = Wire.post(uri, Wire.request(3, "tools/call", params), Wire.statelessHeaders("tools/call",
                "ask"));
        assertEquals(400, reply.status());
        assertEquals(-32021, reply.last().path("error").path("code").asInt(), reply.body());
        assertTrue(reply.last().path("error").path("data").path("requiredCapabilities").path("elicitation").isObject());
    }
}

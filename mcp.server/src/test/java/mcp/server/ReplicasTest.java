package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Servers that share {@link ReplicaKeys}, as replicas behind a balancer without affinity: a session of the handshake
 * era started on one is served by another that never saw its {@code initialize}; a request state of one is retried on
 * another, which runs the request again with the answers; what is per process fails clearly; keys rotate.
 */
class ReplicasTest {

    private final List<McpServer> servers = new ArrayList<>();

    @AfterEach
    void close() {
        servers.forEach(McpServer::close);
    }

    private static String key(String id) {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return id + ":" + Base64.getEncoder().encodeToString(bytes);
    }

    private URI start(ReplicaKeys keys) throws Exception {
        McpServer server = (keys == null ? Fixtures.builder(ServerLimits.DEFAULT)
                : Fixtures.builder(ServerLimits.DEFAULT).replicaKeys(keys)).build();
        servers.add(server);
        return server.serveHttp(HttpOptions.LOOPBACK).uri();
    }

    private static Wire.Reply echo(URI uri, String session, String text) throws Exception {
        return Wire.post(uri, Wire.request(3, "tools/call", Wire.json("{\"name\":\"echo\",\"arguments\":{\"text\":\""
                + text + "\"}}")), Wire.session(session));
    }

    private static String text(Wire.Reply reply) {
        return reply.last().path("result").path("content").path(0).path("text").asString();
    }

    @Test
    void aSessionStartedOnOneReplicaIsServedByAnother() throws Exception {
        ReplicaKeys keys = ReplicaKeys.parse(key("k1"), "test");
        URI a = start(keys);
        URI b = start(keys);
        String session = Wire.initialize(a, "{\"elicitation\":{}}");
        assertTrue(session.startsWith("s1.k1."), session);
        Wire.Reply onB = echo(b, session, "hi");
        assertEquals(200, onB.status(), onB.body());
        assertEquals("hi", text(onB));
        assertEquals("hi again", text(echo(a, session, "hi again")));

        // The session's own client capabilities came with the id: B asks for elicitation in the session's era.
        // A server's request is answered to the replica that made it: elsewhere the answer is refused, clearly.
        Wire.Reply stray = Wire.post(b, "{\"jsonrpc\":\"2.0\",\"id\":\"other-1\",\"result\":{\"action\":\"decline\"}}",
                Wire.session(session));
        assertEquals(400, stray.status(), stray.body());
        assertTrue(stray.body().contains("not waiting"), stray.body());

        // A request's stream that ran on another replica does not resume here: 404, the request is lost.
        HttpRequest resume = HttpRequest.newBuilder(b).timeout(Wire.TIMEOUT).GET().header("Accept",
                "text/event-stream").header("Mcp-Session-Id", session).header("Last-Event-ID", "elsewhere-r1.4").build();
        Wire.Reply lost = Wire.send(resume);
        assertEquals(404, lost.status(), lost.body());
        assertTrue(lost.body().contains("resumes only on the replica that ran it"), lost.body());

        // Altered, or sealed with other keys: not a session of these replicas.
        char last = session.charAt(session.length() - 2);
        String altered = session.substring(0, session.length() - 2) + (last == 'A' ? 'B' : 'A')
                + session.charAt(session.length() - 1);
        assertEquals(404, echo(b, altered, "x").status());
        URI stranger = start(ReplicaKeys.parse(key("k1"), "test"));
        assertEquals(404, echo(stranger, session, "x").status(), "same key id, other key");

        // DELETE ends it on the replica that gets it: that one refuses it from then on.
        HttpRequest delete = HttpRequest.newBuilder(b).timeout(Wire.TIMEOUT).DELETE()
                .header("Mcp-Session-Id", session).build();
        assertEquals(200, Wire.send(delete).status());
        assertEquals(404, echo(b, session, "x").status(), "ended here");
        HttpRequest get = HttpRequest.newBuilder(b).timeout(Wire.TIMEOUT).GET().header("Accept", "text/event-stream")
                .header("Mcp-Session-Id", session).build();
        assertEquals(404, Wire.send(get).status());
    }

    @Test
    void aSealedSessionAnswersOnlyWhoOpenedItOnEveryReplica() throws Exception {
        // Tokens named after their holders: the replicas know the caller, never the token, from the authenticator.
        HttpAuthenticator named = (method, path, header) -> header.apply("Authorization")
                .filter(value -> value.startsWith("Bearer ")).<HttpAuthenticator.Outcome>map(value ->
                        new HttpAuthenticator.Allowed(new Caller(value.substring(7), java.util.Optional.empty(),
                                java.util.Set.of(), java.util.Set.of(), mcp.api.McpJson.object())))
                .orElse(new HttpAuthenticator.Refused(401, "Unauthorized", java.util.Map.of()));
        ReplicaKeys keys = ReplicaKeys.parse(key("k1"), "test");
        List<URI> replicas = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            McpServer server = Fixtures.builder(ServerLimits.DEFAULT).replicaKeys(keys).build();
            servers.add(server);
            replicas.add(server.serveHttp(HttpOptions.LOOPBACK.withAuthenticator(named)).uri());
        }
        Wire.Reply opened = Wire.post(replicas.get(0), Wire.request(0, "initialize", Wire.json("{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}")),
                Wire.headers("Authorization", "Bearer alice"));
        String session = opened.header("Mcp-Session-Id");
        assertTrue(session != null && session.startsWith("s1.k1."), opened.toString());
        String call = Wire.request(3, "tools/call", Wire.json("{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}"));
        java.util.Map<String, String> asBob = new java.util.HashMap<>(Wire.session(session));
        asBob.put("Authorization", "Bearer bob");
        assertEquals(404, Wire.post(replicas.get(1), call, asBob).status(), "another caller's session names nothing");
        java.util.Map<String, String> asAlice = new java.util.HashMap<>(Wire.session(session));
        asAlice.put("Authorization", "Bearer alice");
        assertEquals("hi", text(Wire.post(replicas.get(1), call, asAlice)), "its owner is served by any replica");
        HttpRequest.Builder delete = HttpRequest.newBuilder(replicas.get(1)).timeout(Wire.TIMEOUT).DELETE()
                .header("Mcp-Session-Id", session);
        assertEquals(404, Wire.send(delete.copy().header("Authorization", "Bearer bob").build()).status(),
                "nor can another caller end it");
        assertEquals("hi", text(Wire.post(replicas.get(1), call, asAlice)));
    }

    @Test
    void withoutSharedKeysSessionIdsAreRandomAndStayInTheirProcess() throws Exception {
        URI a = start(null);
        URI b = start(null);
        String session = Wire.initialize(a, "{}");
        assertFalse(session.startsWith("s1."), session);
        assertEquals("hi", text(echo(a, session, "hi")));
        assertEquals(404, echo(b, session, "hi").status());
    }

    @Test
    void aRotatedRingOpensWhatTheOldKeySealed() throws Exception {
        String old = key("old");
        String fresh = key("new");
        URI before = start(ReplicaKeys.parse(old, "test"));
        URI after = start(ReplicaKeys.parse(fresh + "\n" + old, "test"));
        URI retired = start(ReplicaKeys.parse(fresh, "test"));
        String session = Wire.initialize(before, "{}");
        assertEquals("rotated", text(echo(after, session, "rotated")));
        assertEquals(404, echo(retired, session, "x").status(), "a key dropped from the ring opens nothing");
        assertTrue(Wire.initialize(after, "{}").startsWith("s1.new."), "the first key seals");
    }

    @Test
    void aRoundRetriedOnAnotherReplicaRunsTheRequestAgainWithTheAnswers() throws Exception {
        ReplicaKeys keys = ReplicaKeys.parse(key("k1"), "test");
        URI a = start(keys);
        URI b = start(keys);
        JsonNode first = call(a, "ask_twice", "").last().path("result");
        assertEquals("input_required", first.path("resultType").asString(), first.toString());
        String roots = ",\"inputResponses\":{\"a\":{\"roots\":[]}},\"requestState\":";
        JsonNode second = call(b, "ask_twice", roots + "\"" + first.path("requestState").asString() + "\"").last()
                .path("result");
        assertEquals("input_required", second.path("resultType").asString(), second.toString());
        assertTrue(second.path("inputRequests").has("b") && !second.path("inputRequests").has("a"),
                "B ran it again, a answered from the retry: " + second);
        // Round two back on A, whose own call still waits on round one: the state is B's, so A runs it again too,
        // with a carried in the state and b from this retry.
        String both = ",\"inputResponses\":{\"b\":{\"roots\":[]}},\"requestState\":";
        Wire.Reply done = call(a, "ask_twice", both + "\"" + second.path("requestState").asString() + "\"");
        assertEquals("[a][b]", text(done), done.body());

        // A state of other keys is refused as before.
        URI stranger = start(ReplicaKeys.parse(key("k1"), "test"));
        Wire.Reply refused = call(stranger, "ask_twice", roots + "\"" + first.path("requestState").asString() + "\"");
        assertEquals(-32602, refused.last().path("error").path("code").asInt(), refused.body());
        assertNotEquals(200, refused.status());
    }

    @Test
    void healthAndReadinessAnswerWithoutTokenOrHost() throws Exception {
        McpServer server = Fixtures.builder(ServerLimits.DEFAULT).build();
        servers.add(server);
        URI uri = server.serveHttp(HttpOptions.LOOPBACK.withBearerToken("secret-token")).uri();
        for (String path : new String[] {"/healthz", "/readyz"}) {
            HttpRequest probe = HttpRequest.newBuilder(uri.resolve(path)).timeout(Wire.TIMEOUT).GET().build();
            Wire.Reply reply = Wire.send(probe);
            assertEquals(200, reply.status(), path);
            assertEquals("ok\n", reply.body());
        }
        assertEquals(401, Wire.post(uri, Wire.request(1, "ping", McpJson.object()), Map.of()).status(),
                "the endpoint itself still needs the token");
        server.drain(java.time.Duration.ofSeconds(5));
        assertEquals(503, Wire.send(HttpRequest.newBuilder(uri.resolve("/readyz")).timeout(Wire.TIMEOUT).GET().build())
                .status(), "a draining replica takes no new work");
        assertEquals(200, Wire.send(HttpRequest.newBuilder(uri.resolve("/healthz")).timeout(Wire.TIMEOUT).GET()
                .build()).status(), "but is alive");
    }

    private static Wire.Reply call(URI uri, String tool, String extra) throws Exception {
        ObjectNode params = Wire.stateless("{\"name\":\"" + tool + "\",\"arguments\":{}" + extra + "}",
                "{\"elicitation\":{},\"roots\":{}}");
        return Wire.post(uri, Wire.request(7, "tools/call", params), Wire.statelessHeaders("tools/call", tool));
    }
}

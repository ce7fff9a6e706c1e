package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the HTTP endpoint refuses, and how: every refusal is a clear status with a JSON-RPC error body, and a request
 * right after it is served as usual.
 */
class HttpSecurityTest {

    private McpServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private URI start(HttpOptions options, ServerLimits limits) throws Exception {
        server = Fixtures.server(limits);
        return server.serveHttp(options).uri();
    }

    private static String echo() {
        return Wire.request(1, "tools/call", Wire.stateless("{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}",
                "{}"));
    }

    private static Map<String, String> echoHeaders() {
        return Wire.statelessHeaders("tools/call", "echo");
    }

    private static void assertServed(URI uri) throws Exception {
        Wire.Reply reply = Wire.post(uri, echo(), echoHeaders());
        assertEquals(200, reply.status(), reply.toString());
        assertEquals("hi", reply.last().path("result").path("content").path(0).path("text").asString());
    }

    @Test
    void malformedJsonIsAParseError() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK, ServerLimits.DEFAULT);
        Wire.Reply reply = Wire.post(uri, "{\"jsonrpc\":\"2.0\",\"id\":1,", Map.of());
        assertEquals(400, reply.status());
        assertEquals(-32700, reply.last().path("error").path("code").asInt(), reply.body());
        assertTrue(reply.last().path("id").isNull());
        reply = Wire.post(uri, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", Map.of());
        assertEquals(400, reply.status());
        assertEquals(-32600, reply.last().path("error").path("code").asInt(), "a batch: " + reply.body());
        assertServed(uri);
    }

    @Test
    void aBodyThatIsNotJsonIsUnsupported() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK, ServerLimits.DEFAULT);
        Wire.Reply reply = Wire.post(uri, echo(), Wire.headers("Content-Type", "text/plain"));
        assertEquals(415, reply.status());
        assertTrue(reply.last().path("error").path("message").asString().contains("Unsupported Media Type"));
        reply = Wire.post(uri, echo(), Wire.headers("Content-Type", "application/json; charset=utf-8",
                "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo"));
        assertEquals(200, reply.status(), "a charset parameter is fine: " + reply);
    }

    @Test
    void aBodyOverTheLimitIsTooLarge() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK, ServerLimits.DEFAULT.withMaxBodyBytes(4096));
        String big = Wire.request(1, "tools/call", Wire.stateless("{\"name\":\"echo\",\"arguments\":{\"text\":\""
                + "y".repeat(10_000) + "\"}}", "{}"));
        Wire.Reply reply = Wire.post(uri, big, echoHeaders());
        assertEquals(413, reply.status());
        // The same without a declared length (chunked): the bounded read finds out.
        HttpRequest chunked = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
                        big.getBytes(java.nio.charset.StandardCharsets.UTF_8)))).build();
        assertEquals(413, Wire.send(chunked).status());
        assertServed(uri);
    }

    @Test
    void anUnknownSessionIsNotFound() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK, ServerLimits.DEFAULT);
        Wire.Reply reply = Wire.post(uri, Wire.request(1, "tools/list", null), Wire.session("no-such-session"));
        assertEquals(404, reply.status());
        assertNotNull(reply.last().path("error").path("code"));
        String session = Wire.initialize(uri, "{}");
        assertEquals(200, Wire.post(uri, Wire.request(2, "tools/list", null), Wire.session(session)).status());
        HttpRequest delete = HttpRequest.newBuilder(uri).header("Mcp-Session-Id", session).DELETE().build();
        assertEquals(200, Wire.send(delete).status());
        assertEquals(404, Wire.post(uri, Wire.request(3, "tools/list", null), Wire.session(session)).status(),
                "a deleted session is gone");
        assertEquals(404, Wire.send(delete).status());
    }

    @Test
    void aForeignHostOrOriginIsForbidden() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK, ServerLimits.DEFAULT);
        Map<String, String> headers = new java.util.HashMap<>(echoHeaders());
        headers.put("Origin", "http://evil.example.com");
        Wire.Reply reply = Wire.post(uri, echo(), headers);
        assertEquals(403, reply.status());
        assertTrue(reply.last().path("error").path("message").asString().contains("Origin"));
        // java.net.http sets Host itself; a raw request says what a rebinding browser would send.
        try (java.net.Socket socket = new java.net.Socket(uri.getHost(), uri.getPort())) {
            String body = echo();
            String request = "POST /mcp HTTP/1.1\r\nHost: evil.example.com:" + uri.getPort() + "\r\nContent-Type: "
                    + "application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
                    + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n"
                    + body;
            socket.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            socket.setSoTimeout(10_000);
            String status = new String(socket.getInputStream().readNBytes(12), java.nio.charset.StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 403", status);
        }
        headers.put("Origin", "http://localhost:" + uri.getPort());
        assertEquals(200, Wire.post(uri, echo(), headers).status(), "the server's own origin is fine");
    }

    @Test
    void aMissingOrWrongTokenIsUnauthorized() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK.withBearerToken("s3cret-token"), ServerLimits.DEFAULT);
        Wire.Reply reply = Wire.post(uri, echo(), echoHeaders());
        assertEquals(401, reply.status());
        assertEquals("Bearer realm=\"mcp\"", reply.header("WWW-Authenticate"));
        Map<String, String> wrong = new java.util.HashMap<>(echoHeaders());
        wrong.put("Authorization", "Bearer nope");
        reply = Wire.post(uri, echo(), wrong);
        assertEquals(401, reply.status());
        assertTrue(reply.header("WWW-Authenticate").contains("invalid_token"));
        Map<String, String> right = new java.util.HashMap<>(echoHeaders());
        right.put("Authorization", "Bearer s3cret-token");
        assertEquals(200, Wire.post(uri, echo(), right).status());
    }

    /** Tokens named after their holders, as a test's stand-in for an OAuth resource server. */
    private static final HttpAuthenticator NAMED_TOKENS = new HttpAuthenticator() {
        @Override
        public Outcome authenticate(String method, String path,
                java.util.function.Function<String, java.util.Optional<String>> header) {
            java.util.Optional<String> token = header.apply("Authorization").filter(v -> v.startsWith("Bearer "))
                    .map(v -> v.substring(7));
            if (token.isEmpty() || !java.util.List.of("alice", "bob", "throw").contains(token.get())) {
                return new Refused(401, "Unauthorized", Map.of("WWW-Authenticate",
                        "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\""));
            }
            if (token.get().equals("throw")) {
                throw new IllegalStateException("the key server is down; token was " + token.get());
            }
            return new Allowed(new Caller(token.get(), java.util.Optional.of("cli"), java.util.Set.of(token.get()
                    + "-team"), java.util.Set.of("mcp"), mcp.api.McpJson.object().put("sub", token.get())));
        }

        @Override
        public java.util.Optional<tools.jackson.databind.JsonNode> document(String path) {
            return path.equals("/.well-known/oauth-protected-resource/mcp")
                    ? java.util.Optional.of(Wire.json("{\"resource\":\"http://127.0.0.1/mcp\"}"))
                    : java.util.Optional.empty();
        }
    };

    private static Map<String, String> as(String token, Map<String, String> headers) {
        Map<String, String> all = new java.util.HashMap<>(headers);
        all.put("Authorization", "Bearer " + token);
        return all;
    }

    @Test
    void anAuthenticatorSaysWhoCallsAndASessionAnswersOnlyItsOwner() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK.withAuthenticator(NAMED_TOKENS), ServerLimits.DEFAULT);
        // Its metadata is read without a token; anything else is refused as it says.
        Wire.Reply metadata = Wire.send(HttpRequest.newBuilder(uri.resolve("/.well-known/oauth-protected-resource/mcp"))
                .GET().build());
        assertEquals(200, metadata.status(), metadata.toString());
        assertEquals("http://127.0.0.1/mcp", metadata.last().path("resource").asString());
        Wire.Reply refused = Wire.post(uri, echo(), echoHeaders());
        assertEquals(401, refused.status());
        assertTrue(refused.header("WWW-Authenticate").contains("resource_metadata="));
        // Refused with its body unread: the connection is not kept, and the answer says so.
        assertEquals("close", refused.header("Connection"), refused.toString());
        // An authenticator that fails is a 503, and its message (which may hold the credential) stays inside.
        Wire.Reply failed = Wire.post(uri, echo(), as("throw", echoHeaders()));
        assertEquals(503, failed.status());
        assertTrue(!failed.body().contains("throw"), failed.body());

        String whoami = Wire.request(1, "tools/call", Wire.stateless("{\"name\":\"whoami\",\"arguments\":{}}", "{}"));
        Wire.Reply stateless = Wire.post(uri, whoami, as("alice", Wire.statelessHeaders("tools/call", "whoami")));
        assertEquals("alice [alice-team]", stateless.last().path("result").path("content").path(0).path("text")
                .asString(), stateless.toString());

        // A handshake-era session is bound to who opened it: to anybody else its id names nothing.
        Wire.Reply opened = Wire.post(uri, Wire.request(0, "initialize", Wire.json("{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}")),
                as("bob", Map.of()));
        String session = opened.header("Mcp-Session-Id");
        assertNotNull(session, opened.toString());
        String call = Wire.request(2, "tools/call", Wire.json("{\"name\":\"whoami\",\"arguments\":{}}"));
        assertEquals(404, Wire.post(uri, call, as("alice", Wire.session(session))).status());
        Wire.Reply own = Wire.post(uri, call, as("bob", Wire.session(session)));
        assertEquals("bob [bob-team]", own.last().path("result").path("content").path(0).path("text").asString(),
                own.toString());
        HttpRequest.Builder delete = HttpRequest.newBuilder(uri).header("Mcp-Session-Id", session).DELETE();
        assertEquals(404, Wire.send(delete.copy().header("Authorization", "Bearer alice").build()).status());
        assertEquals(200, Wire.send(delete.copy().header("Authorization", "Bearer bob").build()).status());
    }

    @Test
    void statelessHeadersMustMatchTheBody() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK, ServerLimits.DEFAULT);
        for (Map<String, String> headers : java.util.List.of(Wire.statelessHeaders("tools/list", "echo"),
                Wire.statelessHeaders("tools/call", "other"), Wire.statelessHeaders("tools/call", null),
                Wire.headers("Mcp-Method", "tools/call", "Mcp-Name", "echo"))) {
            Wire.Reply reply = Wire.post(uri, echo(), headers);
            assertEquals(400, reply.status(), headers.toString());
            assertEquals(-32020, reply.last().path("error").path("code").asInt(), reply.body());
            assertEquals(1, reply.last().path("id").asInt(), "the error names the request");
        }
        assertEquals(200, Wire.post(uri, echo(), Wire.statelessHeaders("tools/call", "  echo ")).status(),
                "spaces around a header value do not count");
        assertEquals(200, Wire.post(uri, echo(), Wire.statelessHeaders("tools/call", "=?base64?ZWNobw==?=")).status(),
                "the Base64 form of a header value");
    }

    @Test
    void aSessionBeyondTheBoundIsRefusedAndIdleOnesExpire() throws Exception {
        URI uri = start(HttpOptions.LOOPBACK, ServerLimits.DEFAULT.withSessions(20, java.time.Duration.ofSeconds(2)));
        for (int i = 0; i < 20; i++) {
            Wire.initialize(uri, "{}");
        }
        Wire.Reply refused = Wire.post(uri, Wire.request(0, "initialize", Wire.json("{\"protocolVersion\":"
                + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}")), Map.of());
        assertEquals(503, refused.status());
        assertServed(uri);
        long deadline = System.nanoTime() + 20_000_000_000L;
        String fresh = null;
        while (fresh == null && System.nanoTime() < deadline) {
            Thread.sleep(500);
            try {
                fresh = Wire.initialize(uri, "{}");
            } catch (java.io.IOException stillFull) {
                // the abandoned sessions have not expired yet
            }
        }
        assertNotNull(fresh, "abandoned sessions expire and make room");
    }
}

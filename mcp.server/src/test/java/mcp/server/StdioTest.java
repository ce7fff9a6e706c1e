package mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The server over stdio, in both eras: the first message of the client decides. */
class StdioTest {

    private McpServer server;
    private OutputStream toServer;
    private BufferedReader fromServer;
    private ServerEndpoint endpoint;

    @BeforeEach
    void start() throws Exception {
        server = Fixtures.server(ServerLimits.DEFAULT.withMaxBodyBytes(64 * 1024));
        PipedInputStream serverIn = new PipedInputStream(1 << 20);
        toServer = new PipedOutputStream(serverIn);
        PipedInputStream clientIn = new PipedInputStream(1 << 20);
        PipedOutputStream serverOut = new PipedOutputStream(clientIn);
        fromServer = new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8));
        endpoint = server.serveStdio(serverIn, serverOut);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void send(String line) throws Exception {
        toServer.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        toServer.flush();
    }

    private JsonNode receive() throws Exception {
        String line = fromServer.readLine();
        assertTrue(line != null, "the server ended its output");
        return Wire.json(line);
    }

    @Test
    void theHandshakeEraWithAServerRequestDuringACall() throws Exception {
        send(Wire.request(1, "initialize", Wire.json("{\"protocolVersion\":\"2025-06-18\",\"capabilities\":"
                + "{\"elicitation\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}")));
        JsonNode init = receive();
        assertEquals("2025-06-18", init.path("result").path("protocolVersion").asString(), "the version asked for");
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        send(Wire.request(2, "tools/call", Wire.json("{\"name\":\"ask\"}")));
        JsonNode request = receive();
        assertEquals("elicitation/create", request.path("method").asString());
        send("{\"jsonrpc\":\"2.0\",\"id\":" + request.path("id") + ",\"result\":{\"action\":\"accept\",\"content\":"
                + "{\"name\":\"Ada\"}}}");
        JsonNode result = receive();
        assertEquals(2, result.path("id").asInt());
        assertEquals("Hello, Ada", result.path("result").path("content").path(0).path("text").asString());
        assertTrue(result.path("result").path("resultType").isMissingNode(), "no resultType in this era");
        send(Wire.request(3, "server/discover", null));
        assertEquals(-32601, receive().path("error").path("code").asInt(), "server/discover is not of this era");
    }

    @Test
    void theStatelessEraWithAnInputRound() throws Exception {
        send(Wire.request(1, "server/discover", Wire.stateless("{}", "{}")));
        JsonNode discover = receive().path("result");
        assertEquals("2026-07-28", discover.path("supportedVersions").path(0).asString());
        assertEquals("test-server", discover.path("_meta").path("io.modelcontextprotocol/serverInfo").path("name")
                .asString());
        send(Wire.request(2, "tools/call", Wire.stateless("{\"name\":\"ask\"}", "{\"elicitation\":{}}")));
        JsonNode round = receive().path("result");
        assertEquals("input_required", round.path("resultType").asString(), round.toString());
        send(Wire.request(3, "tools/call", Wire.stateless("{\"name\":\"ask\",\"inputResponses\":{\"user_name\":"
                + "{\"action\":\"accept\",\"content\":{\"name\":\"Bo\"}}},\"requestState\":\""
                + round.path("requestState").asString() + "\"}", "{\"elicitation\":{}}")));
        JsonNode done = receive();
        assertEquals(3, done.path("id").asInt());
        assertEquals("Hello, Bo", done.path("result").path("content").path(0).path("text").asString());
        send(Wire.request(4, "ping", Wire.stateless("{}", "{}")));
        assertEquals(-32601, receive().path("error").path("code").asInt(), "ping was removed in this revision");
        send(Wire.request(5, "tools/list", Wire.json("{}")));
        assertEquals(-32602, receive().path("error").path("code").asInt(), "no envelope, no handshake");
    }

    @Test
    void junkLinesAreAnsweredAndTheConnectionGoesOn() throws Exception {
        send("this is not json");
        assertEquals(-32700, receive().path("error").path("code").asInt());
        send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"x\":\"" + "y".repeat(100_000) + "\"}}");
        JsonNode tooLong = receive();
        assertEquals(-32600, tooLong.path("error").path("code").asInt(), tooLong.toString());
        send(Wire.request(2, "tools/call", Wire.stateless("{\"name\":\"echo\",\"arguments\":{\"text\":\"ok\"}}", "{}")));
        assertEquals("ok", receive().path("result").path("content").path(0).path("text").asString());
        toServer.close();
        assertTrue(endpoint.awaitClosed(Duration.ofSeconds(10)), "the endpoint ends with its input");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void aHandlerThatNeverBlocksIsCalledOnTheReadingThreadAndOneThatMayOnAWorker(boolean blocks) throws Exception {
        java.util.concurrent.atomic.AtomicReference<String> calledOn = new java.util.concurrent.atomic.AtomicReference<>();
        RequestHandler handler = new RequestHandler() {
            @Override
            public Capabilities capabilities() {
                return new Capabilities(true, false, false, false, false, false, false, false, mcp.api.McpJson.object());
            }

            @Override
            public java.util.concurrent.CompletableFuture<JsonNode> handle(Request request, RequestContext context) {
                calledOn.set(Thread.currentThread().getName());
                tools.jackson.databind.node.ObjectNode result = mcp.api.McpJson.object();
                result.putArray("content").addObject().put("type", "text").put("text", "ok");
                return java.util.concurrent.CompletableFuture.completedFuture(result);
            }

            @Override
            public boolean blocks() {
                return blocks;
            }
        };
        server.close();
        server = McpServer.builder("threads", "1").handler(handler).build();
        PipedInputStream serverIn = new PipedInputStream(1 << 20);
        toServer = new PipedOutputStream(serverIn);
        PipedInputStream clientIn = new PipedInputStream(1 << 20);
        PipedOutputStream serverOut = new PipedOutputStream(clientIn);
        fromServer = new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8));
        server.serveStdio(serverIn, serverOut);
        send(Wire.request(1, "initialize", Wire.json("{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}")));
        receive();
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        send(Wire.request(2, "tools/call", Wire.json("{\"name\":\"any\"}")));
        assertEquals("ok", receive().path("result").path("content").path(0).path("text").asString());
        assertEquals(blocks, calledOn.get().contains("-worker-"), "called on " + calledOn.get());
    }
}

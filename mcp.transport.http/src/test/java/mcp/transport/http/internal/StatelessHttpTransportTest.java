package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ToolDefinition;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcError;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Streamable HTTP transport carrying the stateless 2026-07-28 revision (messages with the envelope in
 * {@code _meta}), against test servers on 127.0.0.1; and the client's era probe over it.
 */
class StatelessHttpTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration CLOSE_STEP = Duration.ofMillis(500);
    private static final String MODERN = "2026-07-28";

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private TestHttpServer server(TestHttpServer.Handler handler) throws IOException {
        TestHttpServer server = TestHttpServer.start(handler);
        resources.add(server);
        return server;
    }

    private StreamableHttpTransport open(TestHttpServer server, Duration timeout) {
        HttpServerConfig config = new HttpServerConfig(server.url("/mcp"), Map.of(), timeout, true, Optional.empty(),
                Optional.empty(), List.of());
        StreamableHttpTransport transport = (StreamableHttpTransport) new StreamableHttpTransportProvider().open(
                TransportRequest.of("t", config, Path.of(".")).withCloseStepTimeout(CLOSE_STEP));
        resources.add(transport);
        return transport;
    }

    /** A request of the stateless revision: {@code params} with the envelope. */
    private static JsonRpcRequest modern(long id, String method, ObjectNode params) {
        ObjectNode meta = params.putObject("_meta");
        meta.put("io.modelcontextprotocol/protocolVersion", MODERN);
        meta.putObject("io.modelcontextprotocol/clientCapabilities");
        meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "test").put("version", "1");
        return new JsonRpcRequest(RequestId.of(id), method, params);
    }

    private static String success(RequestId id, ObjectNode result) {
        return JsonRpcCodec.standard().encodeToString(new JsonRpcSuccess(id, result.put("resultType", "complete")));
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Throwable failure(CompletableFuture<?> future) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT.toMillis(),
                TimeUnit.MILLISECONDS));
        return e.getCause();
    }

    /** Answers every POST with an empty complete result as JSON, offering a session id the client must ignore. */
    private static TestHttpServer.Handler answering() {
        return call -> {
            if (!call.method().equals("POST")) {
                call.status(405);
                return;
            }
            JsonRpcRequest request = (JsonRpcRequest) call.message();
            call.json(200, success(request.id(), McpJson.object()), Map.of("Mcp-Session-Id", "offered"));
        };
    }

    @Test
    void everyPostCarriesTheStandardHeadersAndNoSession() throws Exception {
        TestHttpServer server = server(answering());
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        assertTrue(transport.carriesModernEra());
        Recorder recorder = new Recorder();
        transport.start(recorder);

        await(transport.send(modern(1, "server/discover", McpJson.object())));
        TestHttpServer.Recorded discover = server.next(WAIT);
        assertEquals("POST", discover.method());
        assertEquals("application/json, text/event-stream", discover.header("Accept"));
        assertEquals("application/json", discover.header("Content-Type"));
        assertEquals(MODERN, discover.header("MCP-Protocol-Version"));
        assertEquals("server/discover", discover.header("Mcp-Method"));
        assertNull(discover.header("Mcp-Name"));
        assertInstanceOf(JsonRpcSuccess.class, recorder.next(WAIT));
        // The client found the version: no GET stream in this revision.
        transport.protocolVersion(MODERN);

        await(transport.send(modern(2, "tools/call", McpJson.object().put("name", "my-hyphenated-tool"))));
        await(transport.send(modern(3, "resources/read", McpJson.object().put("uri",
                "file:///path/to/file%20name.txt"))));
        await(transport.send(modern(4, "prompts/get", McpJson.object().put("name", "https://example.com/p?id=1"))));
        await(transport.send(modern(5, "tools/call", McpJson.object().put("name", "Hello, 世界"))));
        await(transport.send(modern(6, "tools/call", McpJson.object().put("name", " padded "))));
        await(transport.send(modern(7, "tools/list", McpJson.object())));
        // The tasks extension: its requests name their task.
        await(transport.send(modern(8, "tasks/get", McpJson.object().put("taskId", "786512e2-9e0d"))));
        await(transport.send(modern(9, "tasks/cancel", McpJson.object().put("taskId", "786512e2-9e0d"))));
        List<TestHttpServer.Recorded> posts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            posts.add(server.next(WAIT));
        }
        posts.sort((a, b) -> Long.compare(a.json().path("id").asLong(), b.json().path("id").asLong()));
        assertEquals("my-hyphenated-tool", posts.get(0).header("Mcp-Name"));
        assertEquals("tools/call", posts.get(0).header("Mcp-Method"));
        assertEquals("file:///path/to/file%20name.txt", posts.get(1).header("Mcp-Name"));
        assertEquals("resources/read", posts.get(1).header("Mcp-Method"));
        assertEquals("https://example.com/p?id=1", posts.get(2).header("Mcp-Name"));
        assertEquals("=?base64?SGVsbG8sIOS4lueVjA==?=", posts.get(3).header("Mcp-Name"));
        assertEquals("=?base64?IHBhZGRlZCA=?=", posts.get(4).header("Mcp-Name"));
        assertNull(posts.get(5).header("Mcp-Name"));
        assertEquals("tools/list", posts.get(5).header("Mcp-Method"));
        assertEquals("786512e2-9e0d", posts.get(6).header("Mcp-Name"));
        assertEquals("tasks/get", posts.get(6).header("Mcp-Method"));
        assertEquals("786512e2-9e0d", posts.get(7).header("Mcp-Name"));
        for (TestHttpServer.Recorded post : posts) {
            assertEquals("POST", post.method());
            assertEquals(MODERN, post.header("MCP-Protocol-Version"));
            assertNull(post.header("Mcp-Session-Id"), "the session id the server offered is not echoed");
        }

        transport.close();
        recorder.awaitClose(WAIT);
        Thread.sleep(300);
        assertTrue(server.all.stream().allMatch(r -> r.method().equals("POST")),
                "neither a GET stream nor a DELETE: " + server.all.stream().map(r -> r.method()).toList());
    }

    @Test
    void aJsonRpcErrorIn400IsTheAnswerToTheRequestEvenWithIdNull() throws Exception {
        TestHttpServer server = server(call -> {
            JsonRpcRequest request = (JsonRpcRequest) call.message();
            if (request.method().equals("server/discover")) {
                // What a 2025 SDK server answers to a request before initialize.
                call.json(400, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: Server not "
                        + "initialized\"},\"id\":null}", Map.of());
            } else if (request.method().equals("ping")) {
                call.json(404, "{\"jsonrpc\":\"2.0\",\"id\":" + request.id() + ",\"error\":{\"code\":-32601,"
                        + "\"message\":\"Method not found\",\"data\":\"ping\"}}", Map.of());
            } else {
                call.status(400, "<html>bad</html>", Map.of("Content-Type", "text/html"));
            }
        });
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        Recorder recorder = new Recorder();
        transport.start(recorder);

        await(transport.send(modern(1, "server/discover", McpJson.object())));
        JsonRpcError error = assertInstanceOf(JsonRpcError.class, recorder.next(WAIT));
        assertEquals(RequestId.of(1), error.id());
        assertEquals(-32000, error.code());
        assertEquals("Bad Request: Server not initialized", error.message());

        await(transport.send(modern(2, "ping", McpJson.object())));
        JsonRpcError notFound = assertInstanceOf(JsonRpcError.class, recorder.next(WAIT));
        assertEquals(RequestId.of(2), notFound.id());
        assertEquals(-32601, notFound.code());
        assertEquals("ping", notFound.data().asString());

        Throwable plain = failure(transport.send(modern(3, "tools/list", McpJson.object())));
        assertTrue(plain.getMessage().contains("answered HTTP 400 Bad Request; body: <html>bad</html>"),
                plain.getMessage());
        assertEquals(0, transport.exchangesInFlight());
    }

    @Test
    void aListenStreamDeliversNotificationsPastTheTimeoutAndEndsWithTheTransport() throws Exception {
        CountDownLatch serverSawClose = new CountDownLatch(1);
        TestHttpServer server = server(call -> {
            JsonRpcRequest request = (JsonRpcRequest) call.message();
            TestHttpServer.Sse sse = call.sse(Map.of());
            sse.event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":"
                    + "{\"io.modelcontextprotocol/subscriptionId\":" + request.id() + "},\"notifications\":"
                    + "{\"toolsListChanged\":true}}}");
            // Longer than the transport's timeout (and its response backstop) before anything else comes.
            Thread.sleep(1500);
            sse.event("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{\"_meta\":"
                    + "{\"io.modelcontextprotocol/subscriptionId\":" + request.id() + "}}}");
            try {
                for (int i = 0; i < 300; i++) {
                    Thread.sleep(50);
                    sse.raw(":\n\n");
                }
            } catch (IOException e) {
                serverSawClose.countDown();
            }
        });
        StreamableHttpTransport transport = open(server, Duration.ofMillis(100));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        ObjectNode params = McpJson.object();
        params.putObject("notifications").put("toolsListChanged", true);
        CompletableFuture<Void> listen = transport.send(modern(9, "subscriptions/listen", params));

        JsonRpcNotification ack = assertInstanceOf(JsonRpcNotification.class, recorder.next(WAIT));
        assertEquals("notifications/subscriptions/acknowledged", ack.method());
        JsonRpcNotification changed = assertInstanceOf(JsonRpcNotification.class, recorder.next(WAIT));
        assertEquals("notifications/tools/list_changed", changed.method());
        assertFalse(listen.isDone(), "the listen request is still open");
        assertEquals(1, transport.exchangesInFlight());

        transport.close();
        assertInstanceOf(TransportClosedException.class, failure(listen));
        assertTrue(serverSawClose.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the listen stream was closed");
    }

    @Test
    void cancellingARequestClosesItsStreamAndSendsNothing() throws Exception {
        CountDownLatch serverSawClose = new CountDownLatch(1);
        TestHttpServer server = server(call -> {
            TestHttpServer.Sse sse = call.sse(Map.of());
            try {
                for (int i = 0; i < 300; i++) {
                    sse.raw(":\n\n");
                    Thread.sleep(50);
                }
            } catch (IOException e) {
                serverSawClose.countDown();
            }
        });
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        transport.start(new Recorder());
        CompletableFuture<Void> call = transport.send(modern(1, "tools/call", McpJson.object().put("name", "slow")));
        server.next(WAIT);
        ObjectNode cancel = McpJson.object().put("requestId", 1).put("reason", "gave up");
        await(transport.send(new JsonRpcNotification("notifications/cancelled", cancel)));
        assertTrue(failure(call).getMessage().contains("request 1 cancelled"));
        assertTrue(serverSawClose.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the request's stream was closed");
        Thread.sleep(200);
        assertEquals(1, server.all.size(), "notifications/cancelled is not POSTed");
        assertEquals(0, transport.exchangesInFlight());
    }

    @Test
    void aBrokenStreamFailsTheRequestWithoutResuming() throws Exception {
        TestHttpServer server = server(call -> {
            JsonRpcRequest request = (JsonRpcRequest) call.message();
            call.sse(Map.of()).priming("e-1", 10L).event("e-2", "{\"jsonrpc\":\"2.0\",\"method\":"
                    + "\"notifications/progress\",\"params\":{\"progressToken\":" + request.id() + ",\"progress\":1}}");
        });
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        Recorder recorder = new Recorder();
        transport.start(recorder);
        Throwable error = failure(transport.send(modern(1, "tools/call", McpJson.object().put("name", "x"))));
        assertTrue(error.getMessage().contains("the server closed the SSE stream of request 1 (tools/call) before "
                + "answering; protocol version 2026-07-28 resumes no stream"), error.getMessage());
        assertInstanceOf(mcp.api.McpStreamLostException.class, error, "the client can tell it and send it again");
        assertEquals("notifications/progress", ((JsonRpcNotification) recorder.next(WAIT)).method());
        Thread.sleep(300);
        assertEquals(1, server.all.size(), "no GET with Last-Event-ID");
    }

    @Test
    void afterInitializeNothingOfTheStatelessRevisionIsSent() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        transport.start(new Recorder());
        ObjectNode init = McpJson.object().put("protocolVersion", "2025-11-25");
        init.putObject("capabilities");
        init.putObject("clientInfo").put("name", "test").put("version", "1");
        await(transport.send(new JsonRpcRequest(RequestId.of(1), "initialize", init)));
        server.next(WAIT);
        Throwable refused = failure(transport.send(modern(2, "tools/list", McpJson.object())));
        assertInstanceOf(McpException.class, refused);
        assertTrue(refused.getMessage().contains("on a connection that initialized a 2025 session"), refused.getMessage());
        Thread.sleep(200);
        assertEquals(1, server.all.size());
    }

    // ------------------------------------------------------------------------------------------ the client's probe

    @Test
    void theClientFallsBackFromTheProbeToTheHandshakeOnTheSameTransport() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(call -> {
            if (call.method().equals("POST") && call.message() instanceof JsonRpcRequest request
                    && request.method().equals("server/discover")) {
                call.json(400, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: Server not "
                        + "initialized\"},\"id\":null}", Map.of());
                return;
            }
            stub.handle(call);
        });
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        McpClient client = McpClient.connectBlocking(transport, ClientOptions.builder("t").build());
        resources.add(client);
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals(List.of("echo"), client.listToolsBlocking().stream().map(ToolDefinition::name).toList());

        List<TestHttpServer.Recorded> seen = new ArrayList<>(server.all);
        assertEquals("server/discover", seen.get(0).json().path("method").asString());
        assertEquals("server/discover", seen.get(0).header("Mcp-Method"));
        assertEquals("initialize", seen.get(1).json().path("method").asString());
        for (TestHttpServer.Recorded later : seen.subList(1, seen.size())) {
            assertNull(later.header("Mcp-Method"), "nothing of the stateless revision after the fallback");
            if (later.method().equals("POST")) {
                assertTrue(later.json().path("params").path("_meta").path("io.modelcontextprotocol/protocolVersion")
                        .isMissingNode(), later.text());
            }
        }
        assertTrue(seen.stream().anyMatch(r -> "s1".equals(r.header("Mcp-Session-Id"))), "the 2025 session is used");
    }

    @Test
    void theClientSpeaksTheStatelessRevisionToAServerThatAnswersTheProbe() throws Exception {
        TestHttpServer server = server(call -> {
            if (!call.method().equals("POST")) {
                call.status(405);
                return;
            }
            JsonRpcMessage message = call.message();
            JsonRpcRequest request = (JsonRpcRequest) message;
            ObjectNode result = McpJson.object();
            switch (request.method()) {
                case "server/discover" -> {
                    result.putArray("supportedVersions").add(MODERN);
                    result.putObject("capabilities").putObject("tools");
                    result.putObject("_meta").putObject("io.modelcontextprotocol/serverInfo").put("name", "modern")
                            .put("version", "1");
                }
                case "tools/list" -> result.putArray("tools").addObject().put("name", "m").putObject("inputSchema")
                        .put("type", "object");
                case "tools/call" -> result.putArray("content").addObject().put("type", "text").put("text", "called "
                        + call.header("Mcp-Name"));
                default -> {
                }
            }
            call.json(200, success(request.id(), result), Map.of());
        });
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        McpClient client = McpClient.connectBlocking(transport, ClientOptions.builder("t").build());
        resources.add(client);
        assertEquals(MODERN, client.initializeResult().protocolVersion());
        assertEquals(List.of("m"), client.listToolsBlocking().stream().map(ToolDefinition::name).toList());
        assertEquals("called m", ((mcp.api.Content.Text) client.callToolBlocking("m", McpJson.object()).content()
                .get(0)).text());
        client.close();
        Thread.sleep(200);
        for (TestHttpServer.Recorded seen : server.all) {
            assertEquals("POST", seen.method());
            assertEquals(MODERN, seen.header("MCP-Protocol-Version"));
            assertEquals(seen.json().path("method").asString(), seen.header("Mcp-Method"));
            assertNull(seen.header("Mcp-Session-Id"));
        }
    }

    @Test
    void theClientSendsARequestWhoseStreamBrokeAgainAsANewRequestOnce() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        TestHttpServer server = server(call -> {
            if (!call.method().equals("POST")) {
                call.status(405);
                return;
            }
            JsonRpcRequest request = (JsonRpcRequest) call.message();
            ObjectNode result = McpJson.object();
            switch (request.method()) {
                case "server/discover" -> {
                    result.putArray("supportedVersions").add(MODERN);
                    result.putObject("capabilities").putObject("tools");
                }
                case "tools/call" -> {
                    String tool = call.json().path("params").path("name").asString();
                    int n = calls.incrementAndGet();
                    if (tool.equals("flaky") && n == 1 || tool.equals("broken")) {
                        // The stream ends before the answer: the request is lost.
                        call.sse(Map.of()).priming("e-1", 10L);
                        return;
                    }
                    result.putArray("content").addObject().put("type", "text").put("text", "answered " + request.id());
                }
                default -> {
                }
            }
            call.json(200, success(request.id(), result), Map.of());
        });
        StreamableHttpTransport transport = open(server, Duration.ofSeconds(5));
        McpClient client = McpClient.connectBlocking(transport, ClientOptions.builder("t").build());
        resources.add(client);
        assertEquals(MODERN, client.initializeResult().protocolVersion());
        String text = ((mcp.api.Content.Text) client.callToolBlocking("flaky", McpJson.object()).content().get(0))
                .text();
        List<JsonNode> posted = server.all.stream().map(TestHttpServer.Recorded::json)
                .filter(json -> json.path("method").asString().equals("tools/call")).toList();
        assertEquals(2, posted.size(), "sent once more");
        assertNotEquals(posted.get(0).get("id"), posted.get(1).get("id"), "with a new id");
        assertEquals(posted.get(0).path("params").path("arguments"), posted.get(1).path("params").path("arguments"));
        assertEquals("answered " + posted.get(1).get("id"), text);

        Throwable lost = assertThrows(java.util.concurrent.CompletionException.class,
                () -> client.callTool("broken", McpJson.object()).join()).getCause();
        assertInstanceOf(mcp.api.McpStreamLostException.class, lost, "once only: " + lost);
        assertEquals(4, server.all.stream().filter(r -> r.json().path("method").asString().equals("tools/call"))
                .count());
    }
}

package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongPredicate;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.McpHttpException;
import mcp.api.McpJson;
import mcp.api.McpTimeoutException;
import mcp.api.ToolDefinition;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcCodec;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.jsonrpc.RequestId;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The Streamable HTTP transport against a test server on 127.0.0.1 that behaves and misbehaves on request. */
class StreamableHttpTransportTest {

    /** Generous: these bounds catch hangs, not slowness. */
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration CLOSE_STEP = Duration.ofMillis(500);

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

    private StreamableHttpTransport open(TestHttpServer server, Map<String, String> headers, Duration timeout,
            long maxBytes) {
        HttpServerConfig config = new HttpServerConfig(server.url("/mcp"), headers, timeout, true, Optional.empty(),
                Optional.empty(), List.of());
        StreamableHttpTransport transport = (StreamableHttpTransport) new StreamableHttpTransportProvider().open(
                TransportRequest.of("t", config, Path.of(".")).withCloseStepTimeout(CLOSE_STEP)
                        .withMaxMessageBytes(maxBytes));
        resources.add(transport);
        return transport;
    }

    private StreamableHttpTransport open(TestHttpServer server) {
        return open(server, Map.of(), Duration.ofSeconds(5), TransportRequest.DEFAULT_MAX_MESSAGE_BYTES);
    }

    private McpClient connect(StreamableHttpTransport transport, Duration timeout) {
        McpClient client = McpClient.connectBlocking(transport, ClientOptions.builder("t").initializeTimeout(timeout)
                .requestTimeout(timeout).build());
        resources.add(client);
        return client;
    }

    private static JsonRpcRequest initialize(long id) {
        ObjectNode params = McpJson.object().put("protocolVersion", "2025-11-25");
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "test").put("version", "1");
        return new JsonRpcRequest(RequestId.of(id), "initialize", params);
    }

    private static String response(RequestId id, ObjectNode result) {
        return JsonRpcCodec.standard().encodeToString(new JsonRpcSuccess(id, result));
    }

    private static <T> T await(CompletableFuture<T> future) throws Exception {
        return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Throwable failure(CompletableFuture<?> future) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT.toMillis(),
                TimeUnit.MILLISECONDS));
        return e.getCause();
    }

    // ------------------------------------------------------------------------------------------ the happy path

    @Test
    void handshakeCarriesSessionProtocolVersionAndConfigHeadersOnEveryRequest() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        StreamableHttpTransport transport = open(server, Map.of("X-Api-Key", "k-123"), Duration.ofSeconds(5),
                TransportRequest.DEFAULT_MAX_MESSAGE_BYTES);
        Recorder recorder = new Recorder();
        transport.start(recorder);

        await(transport.send(initialize(1)));
        TestHttpServer.Recorded init = server.next("POST", WAIT);
        assertEquals("application/json, text/event-stream", init.header("Accept"));
        assertEquals("application/json", init.header("Content-Type"));
        assertEquals("k-123", init.header("X-Api-Key"));
        assertNull(init.header("Mcp-Session-Id"));
        assertNull(init.header("MCP-Protocol-Version"));
        assertInstanceOf(JsonRpcSuccess.class, recorder.next(WAIT));

        transport.protocolVersion("2025-11-25");
        // The GET stream is asked for before initialized is sent, so nothing the server sends then is lost.
        TestHttpServer.Recorded get = server.next(WAIT);
        assertEquals("GET", get.method());
        assertEquals("text/event-stream", get.header("Accept"));
        assertEquals("s1", get.header("Mcp-Session-Id"));
        assertEquals("2025-11-25", get.header("MCP-Protocol-Version"));
        assertEquals("k-123", get.header("X-Api-Key"));

        await(transport.send(new JsonRpcNotification("notifications/initialized", null)));
        TestHttpServer.Recorded initialized = server.next("POST", WAIT);
        assertEquals("notifications/initialized", initialized.json().path("method").asString());
        assertEquals("s1", initialized.header("Mcp-Session-Id"));
        assertEquals("2025-11-25", initialized.header("MCP-Protocol-Version"));
        assertEquals("k-123", initialized.header("X-Api-Key"));

        await(transport.send(new JsonRpcRequest(RequestId.of(2), "tools/list", null)));
        JsonRpcSuccess tools = (JsonRpcSuccess) recorder.next(WAIT);
        assertEquals(RequestId.of(2), tools.id());
        assertEquals("echo", tools.result().path("tools").path(0).path("name").asString());

        transport.close();
        TestHttpServer.Recorded delete = server.next("DELETE", WAIT);
        assertEquals("s1", delete.header("Mcp-Session-Id"));
        assertEquals("k-123", delete.header("X-Api-Key"));
        assertEquals("Transport closed: closed by client", recorder.awaitClose(WAIT).getMessage());
        transport.close();
        assertEquals(1, recorder.closeCalls.get());
        assertInstanceOf(TransportClosedException.class, failure(transport.send(new JsonRpcNotification("x", null))));
    }

    @Test
    void anSseReplyDeliversInterleavedNotificationsAndServerRequestsBeforeTheResponse() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("tools/call", (call, request) -> call.sse(Map.of())
                .priming("0", null)
                .event("1", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":1}}")
                .event("2", "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"elicitation/create\",\"params\":{}}")
                .event("3", response(request.id(), McpJson.object().put("done", true))));
        TestHttpServer server = server(stub);
        StreamableHttpTransport transport = open(server);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        await(transport.send(initialize(1)));
        recorder.next(WAIT);

        CompletableFuture<Void> sent = transport.send(new JsonRpcRequest(RequestId.of(2), "tools/call", McpJson.object()));
        assertEquals("notifications/progress", ((JsonRpcNotification) recorder.next(WAIT)).method());
        JsonRpcRequest serverRequest = (JsonRpcRequest) recorder.next(WAIT);
        assertEquals("elicitation/create", serverRequest.method());
        // It came on the stream of request 2: it is asked in the course of that call, for that call's caller.
        assertEquals(RequestId.of(2), recorder.during.get(serverRequest));
        assertEquals(RequestId.of(2), ((JsonRpcSuccess) recorder.next(WAIT)).id());
        await(sent);
        assertEquals(0, transport.exchangesInFlight());

        // The answer to the server's request is a POST of its own, accepted with 202.
        await(transport.send(new JsonRpcSuccess(serverRequest.id(), McpJson.object().put("action", "decline"))));
    }

    @Test
    void theGetStreamDeliversWhatTheServerSendsOutsideRequests() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        stub.get = call -> {
            call.sse(Map.of()).priming("g0", null)
                    .event("g1", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
            server.hang();
        };
        StreamableHttpTransport transport = open(server);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        await(transport.send(initialize(1)));
        recorder.next(WAIT);
        transport.protocolVersion("2025-06-18");
        JsonRpcNotification changed = (JsonRpcNotification) recorder.next(WAIT);
        assertEquals("notifications/tools/list_changed", changed.method());
        assertEquals(null, recorder.during.get(changed), "the GET stream belongs to no request");
    }

    @Test
    void anEndedGetStreamIsReopenedWithLastEventIdAfterTheServersRetry() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        AtomicInteger gets = new AtomicInteger();
        stub.get = call -> {
            if (gets.incrementAndGet() == 1) {
                call.sse(Map.of()).priming("g1", 100L)
                        .event("g2", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":1}}");
                return;
            }
            call.sse(Map.of()).event("g3", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":2}}");
            server.hang();
        };
        Recorder recorder = initializedWithGetStream(server);
        assertEquals(1, ((JsonRpcNotification) recorder.next(WAIT)).params().path("n").asInt());
        assertEquals(2, ((JsonRpcNotification) recorder.next(WAIT)).params().path("n").asInt());
        List<TestHttpServer.Recorded> getRequests = server.all.stream().filter(r -> r.method().equals("GET")).toList();
        assertEquals(2, getRequests.size());
        assertNull(getRequests.get(0).header("Last-Event-ID"));
        assertEquals("g2", getRequests.get(1).header("Last-Event-ID"));
        assertEquals("s1", getRequests.get(1).header("Mcp-Session-Id"));
    }

    @Test
    void theClientWorksEndToEndWithSseReplies() throws Exception {
        McpStub stub = new McpStub();
        stub.sseReplies = true;
        StreamableHttpTransport transport = open(server(stub));
        McpClient client = connect(transport, Duration.ofSeconds(5));
        assertEquals(List.of("echo"), client.listToolsBlocking().stream().map(ToolDefinition::name).toList());
        assertEquals("Echo: hi", ((mcp.api.Content.Text) client.callToolBlocking("echo",
                McpJson.object().put("message", "hi")).content().get(0)).text());
    }

    // ------------------------------------------------------------------------------------------ session expiry

    @Test
    void a404ForTheSessionMakesTheClientInitializeANewOneAndResendTheRequest() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        McpClient client = connect(open(server), Duration.ofSeconds(5));
        assertEquals(1, client.listToolsBlocking().size());
        server.requests.clear();

        stub.expireAll();
        assertEquals(1, client.listToolsBlocking().size());
        assertTrue(client.isOpen());
        assertEquals(2, stub.sessions.get());

        List<String> seen = new ArrayList<>();
        for (TestHttpServer.Recorded r : new ArrayList<>(server.all)) {
            if (r.method().equals("POST")) {
                seen.add(r.json().path("method").asString() + "@" + r.header("Mcp-Session-Id"));
            }
        }
        int refused = seen.lastIndexOf("tools/list@s1");
        assertTrue(refused >= 0, seen.toString());
        assertEquals(List.of("tools/list@s1", "initialize@null", "notifications/initialized@s2", "tools/list@s2"),
                seen.subList(refused, seen.size()), seen.toString());
    }

    @Test
    void aNewSessionRefusedAtOnceClosesTheTransport() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        McpClient client = connect(open(server), Duration.ofSeconds(5));
        stub.overrides.put("initialize", (call, request) -> {
            // Hands out a session it does not keep.
            ObjectNode result = McpJson.object().put("protocolVersion", "2025-11-25");
            result.putObject("capabilities");
            result.putObject("serverInfo").put("name", "forgetful").put("version", "1");
            stub.reply(call, request, result, Map.of("Mcp-Session-Id", "gone"));
        });
        stub.expireAll();
        McpException error = assertThrows(McpException.class, client::listToolsBlocking);
        assertTrue(error.getMessage().contains("the server ended the new session at once"), error.getMessage());
        TransportClosedException reason = waitForClose(client);
        assertTrue(reason.getMessage().contains("answered HTTP 404 Not Found"), reason.getMessage());
    }

    @Test
    void aListenerThatCannotInitializeAgainGetsTheTransportClosed() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        StreamableHttpTransport transport = open(server);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        await(transport.send(initialize(1)));
        recorder.next(WAIT);
        stub.expireAll();
        Throwable error = failure(transport.send(new JsonRpcRequest(RequestId.of(2), "tools/list", null)));
        assertInstanceOf(TransportClosedException.class, error);
        String reason = recorder.awaitClose(WAIT).getMessage();
        assertTrue(reason.contains("the server ended the session (POST http://127.0.0.1:"), reason);
        assertTrue(reason.contains("cannot initialize a new session"), reason);
        assertEquals(1, recorder.expiries.size());
    }

    // ------------------------------------------------------------------------------------------ the server goes away

    /** A transport with a session of 2025-11-25 and its GET stream asked for; its listener. */
    private Recorder initializedWithGetStream(TestHttpServer server) throws Exception {
        StreamableHttpTransport transport = open(server);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        await(transport.send(initialize(1)));
        recorder.next(WAIT);
        transport.protocolVersion("2025-11-25");
        return recorder;
    }

    @Test
    void aServerThatStopsUnderItsOpenGetStreamClosesTheTransportWithTheReason() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        CountDownLatch streaming = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        stub.get = call -> {
            call.sse(Map.of()).priming("g0", 50L);
            streaming.countDown();
            // Not server.hang(): the stream must break with the server, not end before its listener closes (a
            // reopening that then reached the dying server would wait for its response timeout instead).
            never.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        };
        Recorder recorder = initializedWithGetStream(server);
        assertTrue(streaming.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertFalse(recorder.closed.isDone());
        server.close();
        String reason = recorder.awaitClose(WAIT).getMessage();
        assertTrue(reason.contains("the server stopped answering: its GET stream ended and GET http://127.0.0.1:"),
                reason);
        assertTrue(reason.contains("could not connect"), reason);
        assertEquals(1, recorder.closeCalls.get());
    }

    @Test
    void aRequestThatFindsNoServerFailsWithTheReasonAndTheTransportCloses() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        McpClient client = connect(open(server), WAIT);
        assertEquals(1, client.listToolsBlocking().size());
        server.close();
        McpException error = assertThrows(McpException.class, client::listToolsBlocking);
        assertTrue(error.getMessage().contains("POST http://127.0.0.1:") && error.getMessage().contains("could not connect"),
                error.getMessage());
        TransportClosedException reason = waitForClose(client);
        assertTrue(reason.getMessage().contains("the server stopped answering: POST http://127.0.0.1:"),
                reason.getMessage());
    }

    @Test
    void aGetStreamWhoseSessionDiedWithARestartClosesTheTransport() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        CountDownLatch end = new CountDownLatch(1);
        AtomicInteger gets = new AtomicInteger();
        stub.get = call -> {
            gets.incrementAndGet();
            if (!stub.live.contains(call.header("Mcp-Session-Id"))) {
                call.status(404, "{\"error\":\"unknown session\"}", Map.of("Content-Type", "application/json"));
                return;
            }
            call.sse(Map.of()).priming("g0", 50L);
            end.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        };
        Recorder recorder = initializedWithGetStream(server);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (gets.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // What a restarted server looks like from here: the stream ends, and the session is unknown.
        stub.expireAll();
        end.countDown();
        String reason = recorder.awaitClose(WAIT).getMessage();
        assertTrue(reason.contains("the server no longer knows the session") && reason.contains("HTTP 404"), reason);
        assertEquals(2, gets.get(), "one reopening, then no more");
    }

    private static TransportClosedException waitForClose(McpClient client) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (client.isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return client.closeReason().orElseThrow();
    }

    // ------------------------------------------------------------------------------------------ resuming streams

    @Test
    void aDroppedStreamIsResumedWithLastEventIdAfterTheServersRetry() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        AtomicReference<RequestId> pending = new AtomicReference<>();
        AtomicLong droppedAt = new AtomicLong();
        stub.overrides.put("tools/call", (call, request) -> {
            pending.set(request.id());
            call.sse(Map.of()).priming("e1", 300L);
            droppedAt.set(System.nanoTime());
            // returning ends the stream before the answer
        });
        stub.get = call -> {
            if (call.header("Last-Event-ID") == null) {
                call.status(405);
                return;
            }
            ObjectNode result = McpJson.object();
            result.putArray("content").addObject().put("type", "text").put("text", "resumed");
            call.sse(Map.of()).priming("e2", null).event("e3", response(pending.get(), result));
            server.hang();
        };
        McpClient client = connect(open(server), Duration.ofSeconds(5));
        server.requests.clear();

        assertEquals("resumed", ((mcp.api.Content.Text) client.callToolBlocking("echo", null).content().get(0)).text());
        TestHttpServer.Recorded resume = server.all.stream()
                .filter(r -> r.method().equals("GET") && r.header("Last-Event-ID") != null).findFirst().orElseThrow();
        assertEquals("e1", resume.header("Last-Event-ID"));
        assertEquals("s1", resume.header("Mcp-Session-Id"));
        long waited = TimeUnit.NANOSECONDS.toMillis(resume.nanos() - droppedAt.get());
        assertTrue(waited >= 250, "resumed after " + waited + " ms, before the server's retry of 300 ms");
    }

    @Test
    void aStreamThatEndsWithoutAnEventIdFailsItsRequestAtOnce() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("tools/call", (call, request) -> call.sse(Map.of()).raw(": nothing\n\n"));
        McpClient client = connect(open(server(stub)), Duration.ofSeconds(5));
        McpException error = assertThrows(McpException.class, () -> client.callToolBlocking("echo", null));
        assertTrue(error.getMessage().contains("the server closed the SSE stream of request")
                && error.getMessage().contains("before answering, and sent no event id to resume from"),
                error.getMessage());
        assertTrue(client.isOpen());
    }

    @Test
    void aResumeThatTheServerRefusesFailsTheRequestWithTheStatus() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("tools/call", (call, request) -> call.sse(Map.of()).priming("e1", 50L));
        McpClient client = connect(open(server(stub)), Duration.ofSeconds(5));
        McpException error = assertThrows(McpException.class, () -> client.callToolBlocking("echo", null));
        assertTrue(error.getMessage().contains("cannot be resumed: GET http://127.0.0.1:")
                && error.getMessage().contains("answered HTTP 405 Method Not Allowed"), error.getMessage());
    }

    // ------------------------------------------------------------------------------------------ failures

    @Test
    void a500FailsThatRequestWithStatusAndBodyAndTheTransportGoesOn() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("tools/call", (call, request) -> call.status(500, "boom: database down\n", Map.of()));
        McpClient client = connect(open(server(stub)), Duration.ofSeconds(5));
        McpException error = assertThrows(McpException.class, () -> client.callToolBlocking("echo", null));
        assertTrue(error.getMessage().matches("MCP server \"t\": POST http://127\\.0\\.0\\.1:\\d+/mcp answered HTTP 500 "
                + "Internal Server Error; body: boom: database down"), error.getMessage());
        assertEquals(500, assertInstanceOf(McpHttpException.class, error).status());
        assertEquals(1, client.listToolsBlocking().size());
    }

    @Test
    void anInitializeAnswered503Or401FailsTheConnectWithTheStatusInItsCauses() throws Exception {
        for (int code : new int[] {503, 429, 401}) {
            McpStub stub = new McpStub();
            stub.overrides.put("initialize", (call, request) -> call.status(code, "not now", Map.of()));
            McpException error = assertThrows(McpException.class, () -> connect(open(server(stub)),
                    Duration.ofSeconds(5)));
            McpHttpException status = null;
            for (Throwable cause = error; cause != null && status == null; cause = cause.getCause()) {
                status = cause instanceof McpHttpException http ? http : null;
            }
            assertNotNull(status, "the status is among the causes of " + error);
            assertEquals(code, status.status());
            assertEquals(code != 401, status.isTransient(), "busy or failing for now, but not a refusal: " + code);
        }
    }

    @Test
    void aSlowDripIsBoundedByTheRequestTimeoutAndItsExchangeIsAbandoned() throws Exception {
        McpStub stub = new McpStub();
        CountDownLatch dripStopped = new CountDownLatch(1);
        stub.overrides.put("tools/call", (call, request) -> {
            call.exchange.getResponseHeaders().set("Content-Type", "application/json");
            call.exchange.sendResponseHeaders(200, 0);
            OutputStream out = call.exchange.getResponseBody();
            try {
                for (int i = 0; i < 600; i++) {
                    out.write(i == 0 ? '{' : ' ');
                    out.flush();
                    Thread.sleep(100);
                }
            } catch (IOException e) {
                dripStopped.countDown();
            }
        });
        StreamableHttpTransport transport = open(server(stub));
        McpClient client = connect(transport, Duration.ofMillis(800));
        long start = System.nanoTime();
        McpException error = assertThrows(McpException.class, () -> client.callToolBlocking("echo", null));
        assertInstanceOf(McpTimeoutException.class, error, error.getMessage());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 5000);
        // The client sent notifications/cancelled; the transport dropped the dripping connection.
        assertTrue(dripStopped.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the drip went on");
        assertEquals(0, transport.exchangesInFlight());
        assertTrue(client.isOpen());
    }

    @Test
    void anOversizedJsonReplyClosesTheTransportWithTheLimit() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("tools/list", (call, request) -> call.json(response(request.id(),
                McpJson.object().put("padding", "x".repeat(10_000)))));
        StreamableHttpTransport transport = open(server(stub), Map.of(), Duration.ofSeconds(5), 4096);
        McpClient client = connect(transport, Duration.ofSeconds(5));
        assertThrows(McpException.class, client::listToolsBlocking);
        assertEquals("Transport closed: message from server exceeds the limit of 4096 bytes",
                waitForClose(client).getMessage());
    }

    @Test
    void anOversizedSseEventClosesTheTransportWithTheLimit() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("tools/list", (call, request) -> call.sse(Map.of()).event("1", response(request.id(),
                McpJson.object().put("padding", "x".repeat(10_000)))));
        McpClient client = connect(open(server(stub), Map.of(), Duration.ofSeconds(5), 4096), Duration.ofSeconds(5));
        assertThrows(McpException.class, client::listToolsBlocking);
        assertEquals("Transport closed: message from server exceeds the limit of 4096 bytes",
                waitForClose(client).getMessage());
    }

    @Test
    void aServerThatNeverAnswersIsBoundedEverywhere() throws Exception {
        TestHttpServer[] holder = new TestHttpServer[1];
        TestHttpServer server = server(call -> holder[0].hang());
        holder[0] = server;
        // A notification's POST is bounded by the config's timeout.
        StreamableHttpTransport raw = open(server, Map.of(), Duration.ofMillis(500), TransportRequest.DEFAULT_MAX_MESSAGE_BYTES);
        raw.start(new Recorder());
        Throwable error = failure(raw.send(new JsonRpcNotification("notifications/initialized", null)));
        assertTrue(error.getMessage().matches("MCP server \"t\": POST http://127\\.0\\.0\\.1:\\d+/mcp failed: no response "
                + "within 500 ms"), error.getMessage());

        // The handshake is bounded by the client's timeout, and so is the close after it.
        long start = System.nanoTime();
        McpException connect = assertThrows(McpException.class, () -> connect(open(server), Duration.ofMillis(500)));
        assertTrue(connect.getMessage().contains("Request timeout after 500ms"), connect.getMessage());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 5000);
    }

    @Test
    void a401SaysWhatTheServerWantsAndDoesNotFallBack() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("initialize", (call, request) -> call.status(401, "{\"error\":\"invalid_token\"}",
                Map.of("Content-Type", "application/json", "WWW-Authenticate",
                        "Bearer realm=\"mcp\", resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\"")));
        TestHttpServer server = server(stub);
        McpException error = assertThrows(McpException.class, () -> connect(open(server), Duration.ofSeconds(5)));
        assertTrue(error.getMessage().matches("Failed to connect to MCP server \"t\": MCP server \"t\": POST "
                + "http://127\\.0\\.0\\.1:\\d+/mcp answered HTTP 401 Unauthorized \\(WWW-Authenticate: Bearer realm=\"mcp\", "
                + "resource_metadata=\"http://127\\.0\\.0\\.1/\\.well-known/oauth-protected-resource\"\\); body: "
                + "\\{\"error\":\"invalid_token\"\\}; the server wants credentials: .*"), error.getMessage());
        assertTrue(server.all.stream().noneMatch(r -> r.method().equals("GET")), "fell back to SSE on a 401");
    }

    @Test
    void closeEndsTheSessionWithDeleteAndFailsWhatIsInFlight() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        stub.overrides.put("tools/call", (call, request) -> {
            call.sse(Map.of()).priming("c0", null);
            server.hang();
        });
        StreamableHttpTransport transport = open(server);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        await(transport.send(initialize(1)));
        recorder.next(WAIT);
        CompletableFuture<Void> call = transport.send(new JsonRpcRequest(RequestId.of(2), "tools/call", null));
        server.next("POST", WAIT);
        server.next("POST", WAIT);
        long start = System.nanoTime();
        transport.close();
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < CLOSE_STEP.toMillis() + 2000);
        assertEquals("s1", server.next("DELETE", WAIT).header("Mcp-Session-Id"));
        assertInstanceOf(TransportClosedException.class, failure(call));
        assertEquals("Transport closed: closed by client", recorder.awaitClose(WAIT).getMessage());
        assertEquals(0, recorder.messagesAfterClose.get());
        assertEquals(0, transport.exchangesInFlight());
    }

    @Test
    void aDeleteThatTheServerRefusesOrNeverAnswersStillClosesInTime() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        TestHttpServer.Handler normal = stub;
        server.handler(call -> {
            if (call.method().equals("DELETE")) {
                server.hang();
            } else {
                normal.handle(call);
            }
        });
        StreamableHttpTransport transport = open(server);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        await(transport.send(initialize(1)));
        long start = System.nanoTime();
        transport.close();
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took < CLOSE_STEP.toMillis() + 2000, "close took " + took + " ms");
        recorder.awaitClose(WAIT);
    }

    // ------------------------------------------------------------------------------------------ fallback

    @Test
    void aServerThatIsNotStreamableHttpIsReachedOverLegacySse() throws Exception {
        LegacyStub legacy = new LegacyStub();
        legacy.ssePath = "/mcp";
        TestHttpServer server = server(legacy);
        McpClient client = connect(open(server, Map.of("X-Api-Key", "k"), Duration.ofSeconds(5),
                TransportRequest.DEFAULT_MAX_MESSAGE_BYTES), Duration.ofSeconds(5));
        assertEquals("2024-11-05", client.initializeResult().protocolVersion());
        assertEquals(List.of("legacy-echo"), client.listToolsBlocking().stream().map(ToolDefinition::name).toList());
        List<TestHttpServer.Recorded> seen = new ArrayList<>(server.all);
        assertEquals("POST /mcp", seen.get(0).method() + " " + seen.get(0).path());
        assertEquals("GET /mcp", seen.get(1).method() + " " + seen.get(1).path());
        assertTrue(seen.stream().allMatch(r -> "k".equals(r.header("X-Api-Key"))), "config headers on every request");
        assertTrue(seen.stream().anyMatch(r -> r.path().equals("/messages")));
    }

    @Test
    void aFailedFallbackSaysWhatBothAttemptsGot() throws Exception {
        TestHttpServer server = server(call -> call.status(404, "no such route", Map.of()));
        McpException error = assertThrows(McpException.class, () -> connect(open(server), Duration.ofSeconds(5)));
        assertTrue(error.getMessage().matches(".*POST http://127\\.0\\.0\\.1:\\d+/mcp answered HTTP 404 Not Found; body: no "
                + "such route, so mcp-host tried the legacy HTTP\\+SSE transport, which failed: GET http://127\\.0\\.0\\.1:\\d+"
                + "/mcp answered HTTP 404 Not Found; body: no such route"), error.getMessage());
    }

    @Test
    void initializeRefusedWithUnsupportedProtocolVersionIsTheAnswerNotAFallback() throws Exception {
        McpStub stub = new McpStub();
        // As the TypeScript SDK v2 answers a 2025 opening when it serves 2026-07-28 alone.
        stub.overrides.put("initialize", (call, request) -> call.status(400, "{\"jsonrpc\":\"2.0\",\"id\":"
                + request.id() + ",\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version: 2025-11-25\","
                + "\"data\":{\"supported\":[\"2026-07-28\"],\"requested\":\"2025-11-25\"}}}",
                Map.of("Content-Type", "application/json")));
        TestHttpServer server = server(stub);
        McpException error = assertThrows(McpException.class, () -> McpClient.connectBlocking(open(server),
                ClientOptions.builder("t").protocolVersion("2025-11-25").initializeTimeout(Duration.ofSeconds(5))
                        .build()));
        assertTrue(error.getMessage().contains("refused protocol version 2025-11-25 and supports [\"2026-07-28\"]"),
                error.getMessage());
        assertEquals(List.of("POST"), server.all.stream().map(TestHttpServer.Recorded::method).toList(),
                "no GET of the legacy HTTP+SSE transport");
    }

    // ------------------------------------------------------------------------------------------ misc

    @Test
    void aBatchReplyIsDeliveredMessageByMessage() throws Exception {
        McpStub stub = new McpStub();
        stub.overrides.put("tools/list", (call, request) -> call.json("[{\"jsonrpc\":\"2.0\",\"method\":"
                + "\"notifications/message\",\"params\":{}}, " + response(request.id(), listOf("b")) + "]"));
        McpClient client = connect(open(server(stub)), Duration.ofSeconds(5));
        assertEquals(List.of("b"), client.listToolsBlocking().stream().map(ToolDefinition::name).toList());
    }

    private static ObjectNode listOf(String name) {
        ObjectNode result = McpJson.object();
        result.putArray("tools").addObject().put("name", name).putObject("inputSchema").put("type", "object");
        return result;
    }

    @Test
    void errorsShowTheUrlWithoutItsQuery() throws Exception {
        TestHttpServer server = server(call -> call.status(500));
        HttpServerConfig config = HttpServerConfig.of(server.url("/mcp?apiKey=secret-123"));
        StreamableHttpTransport transport = (StreamableHttpTransport) new StreamableHttpTransportProvider()
                .open(TransportRequest.of("t", config, Path.of(".")));
        resources.add(transport);
        transport.start(new Recorder());
        Throwable error = failure(transport.send(initialize(1)));
        assertTrue(error.getMessage().contains("/mcp?... answered HTTP 500"), error.getMessage());
        assertFalse(error.getMessage().contains("secret-123"), error.getMessage());
        assertTrue(server.next(WAIT).query().contains("apiKey=secret-123"), "the query itself is sent");
    }

    @Test
    void aBadUrlFailsOpenClearly() {
        McpException error = assertThrows(McpException.class, () -> new StreamableHttpTransportProvider()
                .open(TransportRequest.of("t", HttpServerConfig.of("ftp://example.invalid/x"), Path.of("."))));
        assertEquals("MCP server \"t\": the url must be an absolute http:// or https:// URL, not ftp://example.invalid/x",
                error.getMessage());
    }

    @Test
    void notificationsCancelledAbandonsTheExchange() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        stub.overrides.put("tools/call", (call, request) -> {
            call.sse(Map.of()).priming("a0", null);
            server.hang();
        });
        StreamableHttpTransport transport = open(server);
        Recorder recorder = new Recorder();
        transport.start(recorder);
        await(transport.send(initialize(1)));
        CompletableFuture<Void> call = transport.send(new JsonRpcRequest(RequestId.of(9), "tools/call", null));
        server.next("POST", WAIT);
        server.next("POST", WAIT);
        await(transport.send(new JsonRpcNotification("notifications/cancelled", McpJson.object().put("requestId", 9))));
        assertTrue(failure(call).getMessage().contains("request 9 cancelled"));
        assertEquals(0, transport.exchangesInFlight());
    }

    @Test
    void aCancelledPostWhoseAnswerNeverStartedFreesItsThread() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        stub.overrides.put("tools/call", (call, request) -> server.hang()); // no status line, no headers, ever
        StreamableHttpTransport transport = open(server);
        transport.start(new Recorder());
        await(transport.send(initialize(1)));
        CompletableFuture<Void> call = transport.send(new JsonRpcRequest(RequestId.of(9), "tools/call", null));
        server.next("POST", WAIT);
        server.next("POST", WAIT);
        // The request is written ahead on the sending thread: the thread that waits for its answer may start after
        // the server has read it.
        assertTrue(awaitSendingThreads(count -> count > 0) > 0, "the POST waits on a thread of the transport");
        await(transport.send(new JsonRpcNotification("notifications/cancelled", McpJson.object().put("requestId", 9))));
        assertTrue(failure(call).getMessage().contains("request 9 cancelled"));
        assertEquals(0, transport.exchangesInFlight());
        // The thread that waited for the answer is interrupted, not left waiting for the response timeout.
        assertEquals(0, awaitSendingThreads(count -> count == 0));
    }

    @Test
    void aPostWhoseAnswerNeverStartsFailsAtTheResponseTimeoutAndFreesItsThread() throws Exception {
        McpStub stub = new McpStub();
        TestHttpServer server = server(stub);
        stub.overrides.put("tools/call", (call, request) -> server.hang());
        // The backstop of a request is ten times the config's timeout: 1 s here.
        StreamableHttpTransport transport = open(server, Map.of(), Duration.ofMillis(100),
                TransportRequest.DEFAULT_MAX_MESSAGE_BYTES);
        transport.start(new Recorder());
        await(transport.send(initialize(1)));
        long start = System.nanoTime();
        CompletableFuture<Void> call = transport.send(new JsonRpcRequest(RequestId.of(9), "tools/call", null));
        String message = failure(call).getMessage();
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(message.contains("failed: no response within 1000 ms"), message);
        assertTrue(millis >= 900, "gave up after " + millis + " ms");
        assertEquals(0, transport.exchangesInFlight());
        assertEquals(0, awaitSendingThreads(count -> count == 0));
    }

    /** @return {@link #sendingThreads()} once it passes {@code settled}, or as it is after {@link #WAIT} */
    private static long awaitSendingThreads(LongPredicate settled) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        long count = sendingThreads();
        while (!settled.test(count) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            count = sendingThreads();
        }
        return count;
    }

    /** @return the threads of a transport of server "t" waiting in HttpClient.send */
    private static long sendingThreads() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getName().startsWith("mcp-http-t-"))
                .filter(entry -> java.util.Arrays.stream(entry.getValue())
                        .anyMatch(frame -> frame.getMethodName().equals("send") && (frame.getClassName().endsWith(
                                "HttpClientImpl") || frame.getClassName().endsWith("PlainHttp"))))
                .count();
    }
}

package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import mcp.api.McpException;
import mcp.api.McpHttpException;
import mcp.api.SseServerConfig;
import mcp.api.ToolDefinition;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportRequest;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The legacy HTTP+SSE transport against a test server on 127.0.0.1. */
class LegacySseTransportTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private TestHttpServer server(LegacyStub stub) throws IOException {
        TestHttpServer server = TestHttpServer.start(stub);
        resources.add(server);
        resources.add(stub::endStream);
        return server;
    }

    private Transport open(TestHttpServer server, Map<String, String> headers, Duration timeout) {
        SseServerConfig config = new SseServerConfig(server.url("/sse"), headers, timeout, true, Optional.empty(),
                Optional.empty(), List.of());
        Transport transport = new LegacySseTransportProvider().open(TransportRequest.of("legacy", config, Path.of("."))
                .withCloseStepTimeout(Duration.ofMillis(500)));
        resources.add(transport);
        return transport;
    }

    private McpClient connect(Transport transport) {
        McpClient client = McpClient.connectBlocking(transport, ClientOptions.builder("legacy")
                .initializeTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(5)).build());
        resources.add(client);
        return client;
    }

    @Test
    void getsTheEndpointPostsThereAndReadsRepliesFromTheStream() throws Exception {
        LegacyStub stub = new LegacyStub();
        TestHttpServer server = server(stub);
        McpClient client = connect(open(server, Map.of("Authorization", "Bearer t0ken"), Duration.ofSeconds(5)));
        assertEquals("2024-11-05", client.initializeResult().protocolVersion());
        assertEquals(List.of("legacy-echo"), client.listToolsBlocking().stream().map(ToolDefinition::name).toList());

        List<TestHttpServer.Recorded> seen = new ArrayList<>(server.all);
        assertEquals("GET /sse", seen.get(0).method() + " " + seen.get(0).path());
        assertEquals("text/event-stream", seen.get(0).header("Accept"));
        TestHttpServer.Recorded post = seen.stream().filter(r -> r.method().equals("POST")).findFirst().orElseThrow();
        assertEquals("/messages", post.path());
        assertEquals("sessionId=abc", post.query());
        assertEquals("application/json", post.header("Content-Type"));
        assertTrue(seen.stream().allMatch(r -> "Bearer t0ken".equals(r.header("Authorization"))),
                "config headers on every request");
        TestHttpServer.Recorded later = seen.get(seen.size() - 1);
        assertEquals("2024-11-05", later.header("MCP-Protocol-Version"));
    }

    @Test
    void theEndOfTheStreamClosesTheTransport() throws Exception {
        LegacyStub stub = new LegacyStub();
        TestHttpServer server = server(stub);
        McpClient client = connect(open(server, Map.of(), Duration.ofSeconds(5)));
        stub.endStream();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (client.isOpen() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(client.closeReason().orElseThrow().getMessage().matches(
                "Transport closed: the server closed the SSE stream of GET http://127\\.0\\.0\\.1:\\d+/sse"),
                client.closeReason().toString());
    }

    @Test
    void noEndpointEventInTimeFailsTheConnect() throws Exception {
        LegacyStub stub = new LegacyStub();
        stub.sendEndpoint = false;
        TestHttpServer server = server(stub);
        McpException error = assertThrows(McpException.class,
                () -> connect(open(server, Map.of(), Duration.ofMillis(400))));
        assertTrue(error.getMessage().matches(".*no \"endpoint\" event on the SSE stream of GET http://127\\.0\\.0\\.1:\\d+/sse "
                + "within 400 ms.*"), error.getMessage());
    }

    @Test
    void anEndpointOfAnotherOriginIsRefused() throws Exception {
        LegacyStub stub = new LegacyStub();
        stub.endpoint = "http://127.0.0.2:9/steal";
        TestHttpServer server = server(stub);
        McpException error = assertThrows(McpException.class,
                () -> connect(open(server, Map.of("Authorization", "Bearer t0ken"), Duration.ofSeconds(5))));
        assertTrue(error.getMessage().contains("the \"endpoint\" event names another origin (http://127.0.0.2:9/steal)"),
                error.getMessage());
    }

    @Test
    void aStreamUrlThatIsNotSseFailsWithTheStatus() throws Exception {
        LegacyStub stub = new LegacyStub();
        stub.ssePath = "/elsewhere";
        stub.otherwise = call -> call.status(404, "Cannot GET /sse", Map.of());
        TestHttpServer server = server(stub);
        McpException error = assertThrows(McpException.class,
                () -> connect(open(server, Map.of(), Duration.ofSeconds(5))));
        assertTrue(error.getMessage().matches(".*GET http://127\\.0\\.0\\.1:\\d+/sse answered HTTP 404 Not Found; body: "
                + "Cannot GET /sse"), error.getMessage());
        McpHttpException status = httpCause(error);
        assertEquals(404, status.status(), "the status travels with the close, for whoever decides on a retry");
        assertFalse(status.isTransient());
    }

    @Test
    void aStreamRefusedWith503SaysTheStatusIsTransient() throws Exception {
        LegacyStub stub = new LegacyStub();
        stub.ssePath = "/elsewhere";
        stub.otherwise = call -> call.status(503, "restarting", Map.of());
        McpException error = assertThrows(McpException.class,
                () -> connect(open(server(stub), Map.of(), Duration.ofSeconds(5))));
        McpHttpException status = httpCause(error);
        assertEquals(503, status.status());
        assertTrue(status.isTransient());
    }

    private static McpHttpException httpCause(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof McpHttpException http) {
                return http;
            }
        }
        throw new AssertionError("no McpHttpException in the causes of " + error, error);
    }
}

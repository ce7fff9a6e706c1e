package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.spi.Transport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client's side of a lost session ({@link Transport.Listener#onSessionExpired}), over an in-memory
 * transport: it runs the handshake again with the same capabilities and completes once
 * {@code notifications/initialized} was sent.
 */
class SessionExpiryTest {

    /** Answers initialize at once (with {@link #version}); records everything sent. */
    private static final class ScriptedTransport implements Transport {
        final List<JsonRpcMessage> sent = new CopyOnWriteArrayList<>();
        final List<String> versions = new CopyOnWriteArrayList<>();
        volatile String version = "2025-11-25";
        volatile CompletableFuture<Void> initializedSent = CompletableFuture.completedFuture(null);
        volatile Listener listener;

        @Override
        public void start(Listener value) {
            listener = value;
        }

        @Override
        public CompletableFuture<Void> send(JsonRpcMessage message) {
            sent.add(message);
            if (message instanceof JsonRpcRequest request && request.method().equals("initialize")) {
                ObjectNode result = McpJson.object().put("protocolVersion", version);
                result.putObject("capabilities");
                result.putObject("serverInfo").put("name", "scripted").put("version", "1");
                CompletableFuture.runAsync(() -> listener.onMessage(new JsonRpcSuccess(request.id(), result)));
            }
            if (message instanceof JsonRpcNotification notification
                    && notification.method().equals("notifications/initialized")) {
                return initializedSent;
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void protocolVersion(String value) {
            versions.add(value);
        }

        @Override
        public void close() {
            Listener target = listener;
            if (target != null) {
                target.onClose(new TransportClosedException("closed by client"));
            }
        }

        long count(String method) {
            return sent.stream().filter(m -> m instanceof JsonRpcRequest r && r.method().equals(method)
                    || m instanceof JsonRpcNotification n && n.method().equals(method)).count();
        }
    }

    private static ClientOptions options() {
        return ClientOptions.builder("scripted").initializeTimeout(Duration.ofSeconds(5))
                .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.acceptDefaults()).build();
    }

    @Test
    void theClientInitializesANewSessionWithTheSameCapabilities() throws Exception {
        ScriptedTransport transport = new ScriptedTransport();
        try (McpClient client = McpClient.connectBlocking(transport, options())) {
            CompletableFuture<Void> initializedLater = new CompletableFuture<>();
            transport.initializedSent = initializedLater;
            CompletableFuture<Void> done = transport.listener.onSessionExpired("the server ended the session").toCompletableFuture();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (transport.count("notifications/initialized") < 2 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(2, transport.count("initialize"));
            assertEquals(2, transport.count("notifications/initialized"));
            // Done only once the transport has sent initialized.
            Thread.sleep(50);
            assertFalse(done.isDone());
            initializedLater.complete(null);
            done.get(5, TimeUnit.SECONDS);
            JsonRpcRequest second = (JsonRpcRequest) transport.sent.stream()
                    .filter(m -> m instanceof JsonRpcRequest r && r.method().equals("initialize")).skip(1).findFirst()
                    .orElseThrow();
            assertTrue(second.params().path("capabilities").has("elicitation"), second.params().toString());
            assertEquals(List.of("2025-11-25", "2025-11-25"), transport.versions);
            assertTrue(client.isOpen());
        }
    }

    @Test
    void aNewSessionOfAnUnsupportedVersionFailsTheStage() throws Exception {
        ScriptedTransport transport = new ScriptedTransport();
        try (McpClient client = McpClient.connectBlocking(transport, options())) {
            transport.version = "1999-01-01";
            ExecutionException error = assertThrows(ExecutionException.class, () -> transport.listener
                    .onSessionExpired("gone").toCompletableFuture().get(5, TimeUnit.SECONDS));
            assertTrue(error.getCause().getMessage().contains("1999-01-01"), error.getCause().getMessage());
            assertEquals("scripted", client.serverName());
        }
    }

    @Test
    void aClosedClientDoesNotInitializeAgain() throws Exception {
        ScriptedTransport transport = new ScriptedTransport();
        McpClient client = McpClient.connectBlocking(transport, options());
        client.close();
        ExecutionException error = assertThrows(ExecutionException.class, () -> transport.listener
                .onSessionExpired("gone").toCompletableFuture().get(5, TimeUnit.SECONDS));
        assertInstanceOf(TransportClosedException.class, error.getCause());
        assertEquals(1, transport.count("initialize"));
    }
}

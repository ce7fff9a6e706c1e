package mcp.manager;

import static mcp.manager.TestServerProcesses.assertDeadSoon;
import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.McpTimeoutException;
import mcp.api.ToolDefinition;
import mcp.api.ToolResult;
import mcp.api.TransportClosedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The client protocol against the testkit server, a real child process over the real stdio transport. */
class McpClientTest {

    private final List<McpClient> clients = new ArrayList<>();

    private McpClient track(McpClient client) {
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        clients.forEach(McpClient::close);
        assertNoChildProcessLeft();
    }

    private static JsonNode args(String json) {
        return McpJson.mapper().readTree(json);
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    @Test
    void handshakeOffersTheLatestVersionAndReportsTheServer() {
        McpClient client = track(connect("kit"));
        assertEquals("2025-11-25", client.initializeResult().protocolVersion());
        assertEquals("mcp-testkit", client.initializeResult().serverName());
        assertTrue(client.initializeResult().hasTools());
    }

    @Test
    void acceptsAnOlderSupportedVersion() {
        McpClient client = track(connect("old", "--protocol-version", "2024-11-05"));
        assertEquals("2024-11-05", client.initializeResult().protocolVersion());
    }

    @Test
    void refusesAnUnknownVersionNamingBoth() throws InterruptedException {
        McpException error = assertThrows(McpException.class,
                () -> connect("future", "--protocol-version", "2099-01-01"));
        assertTrue(error.getMessage().contains("\"2099-01-01\""), error.getMessage());
        assertTrue(error.getMessage().contains("2025-11-25"), error.getMessage());
        assertTrue(error.getMessage().startsWith("Failed to connect to MCP server \"future\""), error.getMessage());
    }

    @Test
    void listsEveryPage() {
        McpClient client = track(connect("many", "--tools", "250", "--page-size", "100"));
        List<ToolDefinition> tools = client.listToolsBlocking();
        assertEquals(261, tools.size());
        assertEquals(261, new HashSet<>(tools.stream().map(ToolDefinition::name).toList()).size());
        assertEquals("tool_249", tools.get(tools.size() - 1).name());
        assertEquals("object", tools.get(0).inputSchema().path("type").asString());
    }

    @Test
    void aRepeatedCursorEndsTheListingInsteadOfLooping() {
        McpClient client = track(connect("loop", "--tools", "20", "--page-size", "5", "--fault", "repeat-cursor"));
        List<ToolDefinition> tools = client.listToolsBlocking();
        assertEquals(5, tools.size(), "page one, once: " + tools.stream().map(ToolDefinition::name).toList());
    }

    @Test
    void thePageCapEndsAnEndlessListing() {
        McpClient client = track(connect("capped", ClientOptions.builder("capped").maxListPages(3),
                "--tools", "100", "--page-size", "10"));
        assertEquals(30, client.listToolsBlocking().size());
    }

    @Test
    void callsToolsAndKeepsErrorsApart() {
        McpClient client = track(connect("kit"));
        assertEquals("hi", text(client.callToolBlocking("echo", args("{\"message\":\"hi\"}"))));

        ToolResult sum = client.callToolBlocking("add", args("{\"a\":2,\"b\":3}"));
        assertEquals("5", text(sum));
        assertEquals(5, sum.structuredContent().orElseThrow().path("sum").asInt());

        ToolResult failed = client.callToolBlocking("fail", null);
        assertTrue(failed.isError());

        McpProtocolException error = assertThrows(McpProtocolException.class,
                () -> client.callToolBlocking("error", null));
        assertEquals("MCP error -32603: internal failure on purpose", error.getMessage());
    }

    @Test
    void readsEveryContentKind() {
        McpClient client = track(connect("kit"));
        ToolResult result = client.callToolBlocking("content", null);
        List<Class<?>> kinds = result.content().stream().<Class<?>>map(Object::getClass).toList();
        assertEquals(List.of(Content.Text.class, Content.Image.class, Content.Audio.class,
                Content.EmbeddedResource.class, Content.ResourceLink.class), kinds);
        Content.EmbeddedResource resource = (Content.EmbeddedResource) result.content().get(3);
        assertEquals("resource text", resource.resource().text().orElseThrow());
        assertTrue(result.structuredContent().orElseThrow().path("ok").asBoolean());
    }

    @Test
    void deliversProgressInOrder() {
        McpClient client = track(connect("kit"));
        List<ProgressUpdate> updates = new CopyOnWriteArrayList<>();
        ToolResult result = McpClient.await(client.callTool("slow", args("{\"ms\":200,\"steps\":4}"),
                CallOptions.DEFAULT.withProgress(updates::add)));
        assertEquals("done", text(result));
        assertEquals(List.of(1.0, 2.0, 3.0, 4.0), updates.stream().map(ProgressUpdate::progress).toList());
        assertEquals(4.0, updates.get(0).total().orElseThrow());
    }

    @Test
    void timesOutAndStaysUsable() {
        McpClient client = track(connect("kit"));
        McpTimeoutException timeout = assertThrows(McpTimeoutException.class, () -> McpClient.await(
                client.callTool("slow", args("{\"ms\":10000}"), CallOptions.DEFAULT.withTimeout(Duration.ofMillis(300)))));
        assertEquals("MCP server \"kit\": tool \"slow\" did not answer within its timeout of 300 ms (timeout)",
                timeout.getMessage());
        assertEquals(McpTimeoutException.Bound.TIMEOUT, timeout.bound());
        assertEquals("hi", text(client.callToolBlocking("echo", args("{\"message\":\"hi\"}"))));
    }

    @Test
    void toolCallsHaveTheirOwnTimeoutApartFromOtherRequests() {
        McpClient client = track(connect("kit", ClientOptions.builder("kit").requestTimeout(Duration.ofSeconds(20))
                .toolCallTimeout(Duration.ofMillis(300))));
        McpTimeoutException timeout = assertThrows(McpTimeoutException.class, () -> McpClient.await(
                client.callTool("slow", args("{\"ms\":10000}"), CallOptions.DEFAULT)));
        assertEquals("MCP server \"kit\": tool \"slow\" did not answer within its timeout of 300 ms (timeout)",
                timeout.getMessage());
        assertEquals(McpTimeoutException.Bound.TIMEOUT, timeout.bound());
        assertEquals("done", text(McpClient.await(client.callTool("slow", args("{\"ms\":100}"),
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(5))))), "a call's own timeout still wins");
    }

    @Test
    void progressCanKeepACallAlive() {
        McpClient client = track(connect("kit"));
        CallOptions options = CallOptions.DEFAULT.withTimeout(Duration.ofMillis(600))
                .withResetTimeoutOnProgress(Duration.ofSeconds(20)).withProgress(update -> { });
        // 2 s in total, a progress step every 200 ms: only the resets keep it within the 600 ms timeout.
        ToolResult result = McpClient.await(client.callTool("slow", args("{\"ms\":2000,\"steps\":10}"), options));
        assertEquals("done", text(result));
    }

    @Test
    void cancellingAFutureCancelsTheCall() throws Exception {
        McpClient client = track(connect("kit"));
        CompletableFuture<ToolResult> call = client.callTool("slow", args("{\"ms\":10000}"));
        Thread.sleep(200);
        assertTrue(call.cancel(true));
        assertThrows(CancellationException.class, call::join);
        assertEquals("after", text(client.callToolBlocking("echo", args("{\"message\":\"after\"}"))));
    }

    @Test
    void reportsListChanged() throws Exception {
        CountDownLatch changed = new CountDownLatch(1);
        McpClient client = track(connect("kit", ClientOptions.builder("kit").listener(new ClientListener() {
            @Override
            public void onToolsListChanged() {
                changed.countDown();
            }
        })));
        int before = client.listToolsBlocking().size();
        client.callToolBlocking("change_tools", null);
        assertTrue(changed.await(5, TimeUnit.SECONDS));
        assertEquals(before + 1, client.listToolsBlocking().size());
    }

    @Test
    void answersRootsWhenRootsAreGiven() {
        Path dir = Path.of("").toAbsolutePath();
        McpClient client = track(connect("kit", ClientOptions.builder("kit").roots(List.of(Root.of(dir)))));
        ToolResult result = client.callToolBlocking("roots", null);
        assertFalse(result.isError(), text(result));
        assertTrue(text(result).contains(dir.toUri().toString()), text(result));
    }

    @Test
    void answersEveryServerRequest() throws Exception {
        McpClient client = track(connect("kit", "--fault", "server-requests"));
        JsonNode responses = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            responses = McpJson.mapper().readTree(text(client.callToolBlocking("server_requests", null)));
            if (responses.size() == 3) {
                break;
            }
            Thread.sleep(50);
        }
        assertEquals(3, responses.size(), String.valueOf(responses));
        for (JsonNode response : responses) {
            switch (response.path("id").asString()) {
                case "s-1" -> assertTrue(response.path("result").isObject(), response.toString());
                case "s-2", "s-3" -> assertEquals(-32601, response.path("error").path("code").asInt(), response.toString());
                default -> throw new AssertionError(response.toString());
            }
        }
    }

    @Test
    void thousandCallsInFlightAllGetTheirOwnAnswer() {
        McpClient client = track(connect("kit"));
        List<CompletableFuture<ToolResult>> calls = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            calls.add(client.callTool("echo", args("{\"message\":\"m" + i + "\"}")));
        }
        for (int i = 0; i < 1000; i++) {
            assertEquals("m" + i, text(McpClient.await(calls.get(i))));
        }
    }

    /**
     * Over stdio a response completes its future on the delivering thread (no hand-off), yet code
     * chained there may block, even on another call to the same server: the transport reads on.
     */
    @Test
    void chainedCodeMayBlockOnTheSameServerWithoutStallingIt() throws Exception {
        McpClient client = track(connect("nested"));
        List<String> threads = new CopyOnWriteArrayList<>();
        List<CompletableFuture<String>> chains = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String message = "outer" + i;
            chains.add(client.callTool("echo", args("{\"message\":\"" + message + "\"}")).thenApply(outer -> {
                threads.add(Thread.currentThread().getName());
                ToolResult inner = client.callToolBlocking("echo", args("{\"message\":\"inner\"}"));
                return text(outer) + "+" + text(inner);
            }));
        }
        for (int i = 0; i < 20; i++) {
            assertEquals("outer" + i + "+inner", chains.get(i).get(30, TimeUnit.SECONDS));
        }
        // Every continuation ran where the response was read, not on a worker; or, for a response that came
        // before its continuation was chained (the first calls, on a fast machine), on the chaining thread.
        assertEquals(20, threads.size());
        String caller = Thread.currentThread().getName();
        assertTrue(threads.stream().allMatch(name -> name.equals("mcp-stdio-nested-stdout") || name.equals(caller)),
                threads.toString());
        assertTrue(threads.stream().filter(name -> name.equals("mcp-stdio-nested-stdout")).count() >= 10, threads.toString());
        assertEquals("still", text(client.callToolBlocking("echo", args("{\"message\":\"still\"}"))));
    }

    /**
     * A continuation that waits with {@code join()} on another call's future (not through the client's
     * blocking API) still tells the transport first, so that the reading moves on at once instead of
     * after the watchdog's tick; a wait outside any continuation tells it nothing.
     */
    @Test
    void aContinuationThatJoinsAnotherCallTellsTheTransportFirst() throws Exception {
        HintCountingTransport transport = new HintCountingTransport(TestServerProcesses.open("joins"));
        McpClient client = track(McpClient.connectBlocking(transport, ClientOptions.builder("joins").build()));
        int count = 10;
        List<CompletableFuture<String>> chains = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String message = "outer" + i;
            chains.add(client.callTool("echo", args("{\"message\":\"" + message + "\"}")).thenApply(outer ->
                    text(outer) + "+" + text(client.callTool("echo", args("{\"message\":\"inner\"}")).join())));
        }
        for (int i = 0; i < count; i++) {
            assertEquals("outer" + i + "+inner", chains.get(i).get(30, TimeUnit.SECONDS));
        }
        // Each join found its inner call not yet answered (only another thread could read that answer), unless
        // a watchdog hand-over beat it there on a very busy machine: so not necessarily all ten.
        assertTrue(transport.hints.get() >= count / 2, "hints: " + transport.hints.get());
        int before = transport.hints.get();
        assertEquals("outside", text(client.callTool("echo", args("{\"message\":\"outside\"}")).join()));
        assertEquals(before, transport.hints.get(), "a wait on the test's own thread is no listener blocking");
    }

    /** A real transport, with the listener's blocking hints counted. */
    private static final class HintCountingTransport implements mcp.api.spi.Transport {
        final mcp.api.spi.Transport delegate;
        final java.util.concurrent.atomic.AtomicInteger hints = new java.util.concurrent.atomic.AtomicInteger();

        HintCountingTransport(mcp.api.spi.Transport delegate) {
            this.delegate = delegate;
        }

        @Override
        public void start(Listener listener) {
            delegate.start(listener);
        }

        @Override
        public CompletableFuture<Void> send(mcp.api.jsonrpc.JsonRpcMessage message) {
            return delegate.send(message);
        }

        @Override
        public void protocolVersion(String version) {
            delegate.protocolVersion(version);
        }

        @Override
        public boolean listenerMayBlock() {
            return delegate.listenerMayBlock();
        }

        @Override
        public void listenerBlocking() {
            hints.incrementAndGet();
            delegate.listenerBlocking();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    // ------------------------------------------------------------------ faults

    @Test
    void aServerThatExitsAtStartFailsTheConnectAtOnce() {
        long start = System.nanoTime();
        McpException error = assertThrows(McpException.class, () -> connect("dies", "--fault", "exit-at-start"));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(error.getMessage().contains("code 3"), error.getMessage());
        assertTrue(error.getMessage().contains("fatal: exit at start on purpose"), error.getMessage());
        // Far below the 30 s connect timeout: the exit is noticed, not waited out.
        assertTrue(millis < 10_000, "took " + millis + " ms");
    }

    @Test
    void aServerThatExitsDuringACallFailsTheCallWithTheReason() {
        McpClient client = track(connect("crash", "--fault", "exit-during-call"));
        McpException error = assertThrows(McpException.class,
                () -> client.callToolBlocking("echo", args("{\"message\":\"x\"}")));
        assertInstanceOf(TransportClosedException.class, error);
        assertTrue(error.getMessage().contains("code 4"), error.getMessage());
        assertTrue(error.getMessage().contains("exit during call on purpose"), error.getMessage());
        assertFalse(client.isOpen());
        assertThrows(TransportClosedException.class, () -> client.callToolBlocking("echo", null));
    }

    @Test
    void garbageOnStdoutIsSkipped() {
        McpClient client = track(connect("noisy", "--fault", "garbage-stdout", "--tools", "30", "--page-size", "7"));
        assertEquals(41, client.listToolsBlocking().size());
        assertEquals("ok", text(client.callToolBlocking("echo", args("{\"message\":\"ok\"}"))));
    }

    @Test
    void aServerThatNeverAnswersInitializeTimesOutWithItsStderr() {
        McpException error = assertThrows(McpException.class, () -> connect("mute",
                ClientOptions.builder("mute").initializeTimeout(Duration.ofMillis(1500)),
                "--fault", "no-initialize", "--stderr", "waiting forever"));
        assertTrue(error.getMessage().contains("Request timeout after 1500ms"), error.getMessage());
        assertTrue(error.getMessage().contains("waiting forever"), error.getMessage());
    }

    @Test
    void anOversizedMessageClosesTheConnectionClearly() {
        McpClient client = track(connect("huge", "--fault", "oversized"));
        McpException error = assertThrows(McpException.class, client::listToolsBlocking);
        assertTrue(error.getMessage().contains("exceeds the limit of 16777216 bytes"), error.getMessage());
        assertFalse(client.isOpen());
    }

    @Test
    void closingEndsTheWholeProcessTree() throws InterruptedException {
        McpClient client = connect("tree", "--fault", "grandchild");
        JsonNode pids = client.callToolBlocking("pid", null).structuredContent().orElseThrow();
        long server = pids.path("pid").asLong();
        long grandchild = pids.path("grandchildPid").asLong();
        assertTrue(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive).orElse(false));
        client.close();
        assertDeadSoon(server);
        assertDeadSoon(grandchild);
    }
}

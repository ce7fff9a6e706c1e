package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.McpTimeoutException;
import mcp.api.StdioServerConfig;
import mcp.api.ToolResult;
import mcp.manager.CallOptions;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.manager.ProgressUpdate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long calls against the MCP Python SDK ({@code mcp} 2.3.0): {@code interop/python/tasks_server.py} runs a tool as a
 * task of the 2026-07-28 tasks extension on the SDK's own extension API (it declares the extension in
 * {@code server/discover} and refuses a request that does not declare it, -32021). mcp-host declares it, polls the
 * task at its {@code pollIntervalMs}, reports its status as progress, takes its result, and cancels it with
 * {@code tasks/cancel} when the call is cancelled or a bound ends it.
 */
class PythonTasksIT {

    private static final EraPeer PEER = EraPeer.python();

    private final List<McpClient> clients = new ArrayList<>();

    @TempDir
    Path temp;

    @BeforeAll
    static void installed() {
        PEER.assertInstalled();
    }

    @AfterEach
    void closeAll() throws InterruptedException {
        EraPeer.closeAndAssertNoChildLeft(clients);
    }

    private McpClient connect() {
        StdioServerConfig config = StdioServerConfig.of(PEER.runtime().toString(),
                List.of(EraPeer.INTEROP.resolve("python/tasks_server.py").toString()));
        McpClient client = EraPeer.connect("pytasks", config, ClientOptions.builder("pytasks"), temp, clients);
        assertEquals("2026-07-28", client.initializeResult().protocolVersion());
        assertTrue(client.initializeResult().capabilities().path("extensions").has("io.modelcontextprotocol/tasks"),
                client.initializeResult().capabilities().toString());
        return client;
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    @Test
    void aTaskIsPolledToItsResultWithItsStatusAsProgress() {
        McpClient client = connect();
        List<ProgressUpdate> updates = new CopyOnWriteArrayList<>();
        ToolResult result = McpClient.await(client.callTool("crunch", McpJson.mapper().readTree(
                "{\"steps\":4,\"ms\":150}"), CallOptions.DEFAULT.withProgress(updates::add)));
        assertEquals("crunched 4", text(result));
        List<String> messages = updates.stream().map(u -> u.message().orElse("")).toList();
        assertEquals("queued", messages.get(0), messages.toString());
        assertTrue(messages.stream().anyMatch(m -> m.startsWith("step ")), messages.toString());
    }

    @Test
    void cancellingTheCallCancelsTheTaskInThePythonServer() throws Exception {
        McpClient client = connect();
        CountDownLatch stepped = new CountDownLatch(1);
        CompletableFuture<ToolResult> call = client.callTool("crunch", McpJson.mapper().readTree(
                "{\"steps\":1000,\"ms\":50}"), CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(60))
                .withProgress(update -> {
                    if (update.message().orElse("").startsWith("step ")) {
                        stepped.countDown();
                    }
                }));
        assertTrue(stepped.await(10, TimeUnit.SECONDS), "the task made a step");
        call.cancel(false);
        assertThrows(CancellationException.class, call::join);
        assertFalse(awaitCancelled(client).isEmpty());
    }

    @Test
    void theIdleTimeoutEndsATaskThatStopsMovingAndCancelsIt() throws Exception {
        McpClient client = connect();
        // One step of 20 s: after "queued" its status stays as it is, and only the idle bound can end it soon.
        McpTimeoutException timeout = assertThrows(McpTimeoutException.class, () -> McpClient.await(client.callTool(
                "crunch", McpJson.mapper().readTree("{\"steps\":1,\"ms\":20000}"), CallOptions.DEFAULT
                        .withTimeout(Duration.ofSeconds(60)).withIdleTimeout(Duration.ofMillis(800)))));
        assertEquals(McpTimeoutException.Bound.IDLE_TIMEOUT, timeout.bound(), timeout.getMessage());
        assertTrue(timeout.getMessage().contains("MCP server \"pytasks\": tool \"crunch\""), timeout.getMessage());
        assertFalse(awaitCancelled(client).isEmpty());
    }

    /** @return the ids the server says tasks/cancel stopped, once there is one (within 10 s) */
    private static String awaitCancelled(McpClient client) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String stopped = "";
        while (stopped.isEmpty() && System.nanoTime() < deadline) {
            stopped = text(client.callToolBlocking("cancelled", null));
            Thread.sleep(50);
        }
        return stopped;
    }
}

package mcp.manager;

import static mcp.manager.ReconnectTest.await;
import static mcp.manager.ReconnectTest.call;
import static mcp.manager.ReconnectTest.tool;
import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.api.ReconnectPolicy;
import mcp.api.StdioServerConfig;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The counts of {@link McpManager#activity}, over real testkit server processes. */
class ServerActivityTest {

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private McpManager manager(ReconnectPolicy policy) {
        McpManager manager = McpManager.builder().workingDirectory(temp).reconnect(policy).build();
        managers.add(manager);
        return manager;
    }

    @Test
    void callsAreCountedByHowTheyEnded() throws Exception {
        McpManager manager = manager(ReconnectTest.QUICK);
        manager.connectServers(Map.of("kit", TestServerProcesses.config()), Map.of());
        assertEquals(ServerActivity.NONE, manager.activity("nobody"), "a server never started has nothing");
        ServerActivity fresh = manager.activity("kit");
        assertEquals(0, fresh.calls(), "connecting and listing are not calls");
        assertTrue(fresh.lastError().isEmpty() && fresh.lastCallError().isEmpty(), fresh.toString());

        for (int i = 0; i < 3; i++) {
            assertEquals("hi", call(tool(manager, "mcp_kit_echo"), "{\"message\":\"hi\"}").text());
        }
        assertTrue(call(tool(manager, "mcp_kit_fail"), null).isError());
        Instant before = Instant.now();
        assertTrue(call(tool(manager, "mcp_kit_error"), null).isError());

        ServerActivity activity = manager.activity("kit");
        assertEquals(5, activity.calls(), activity.toString());
        assertEquals(1, activity.toolErrors(), "the isError result");
        assertEquals(1, activity.callErrors(), "the JSON-RPC error");
        assertEquals(2, activity.failedCalls());
        ServerActivity.ErrorAt last = activity.lastCallError().orElseThrow();
        assertTrue(last.message().startsWith("tools/call error: "), last.message());
        assertFalse(last.at().isBefore(before) || last.at().isAfter(Instant.now()), last.at().toString());
        assertTrue(activity.lastError().isEmpty(), "a failed call is not the server failing: " + activity);
        assertEquals(0, activity.drops() + activity.reconnectAttempts());
        assertEquals("5 calls, 2 failed", activity.summary());

        // A call its caller cancels is sent, and counts as neither a result nor a failure.
        CompletableFuture<ToolOutput> slow = tool(manager, "mcp_kit_slow")
                .call(McpJson.mapper().readTree("{\"ms\":10000}"));
        await("the slow call is sent", () -> manager.activity("kit").calls() == 6);
        slow.cancel(true);
        assertThrows(CancellationException.class, slow::join);
        assertEquals("x", call(tool(manager, "mcp_kit_echo"), "{\"message\":\"x\"}").text());
        ServerActivity after = manager.activity("kit");
        assertEquals(7, after.calls());
        assertEquals(2, after.failedCalls(), after.toString());
        assertEquals(Map.of("kit", after), manager.activities());
    }

    @Test
    void aDropAndItsReconnectAreCountedAndTheCountsOutliveTheConnection() throws Exception {
        McpManager manager = manager(ReconnectTest.QUICK);
        manager.connectServers(Map.of("kit", TestServerProcesses.config()), Map.of());
        call(tool(manager, "mcp_kit_echo"), "{\"message\":\"a\"}");
        Instant before = Instant.now();
        assertTrue(call(tool(manager, "mcp_kit_crash"), null).isError());
        await("kit is connected again", () -> manager.status("kit").state() == ServerStatus.State.CONNECTED
                && manager.toolsOf("kit").stream().noneMatch(BridgedTool::deferred));
        call(tool(manager, "mcp_kit_echo"), "{\"message\":\"b\"}");

        ServerActivity activity = manager.activity("kit");
        assertEquals(3, activity.calls(), "one count across both connections: " + activity);
        assertEquals(1, activity.callErrors(), "the call the crash cut off");
        assertEquals(1, activity.drops());
        assertEquals(1, activity.reconnectAttempts());
        assertEquals(1, activity.reconnects());
        ServerActivity.ErrorAt last = activity.lastError().orElseThrow();
        assertTrue(last.message().contains("code 5"), last.message());
        assertFalse(last.at().isBefore(before), last.at().toString());
        assertEquals("3 calls, 1 failed, 1 reconnect", activity.summary());
    }

    @Test
    void reconnectAttemptsThatFailAreCountedAndTheEndOfTheRunIsTheLastError() throws Exception {
        ReconnectPolicy three = new ReconnectPolicy(3, Duration.ofMillis(50), Duration.ofMillis(200), 0.2,
                Duration.ofSeconds(10));
        McpManager manager = manager(three);
        manager.connectServers(Map.of("loop", laterFailing("loop")), Map.of());
        call(tool(manager, "mcp_loop_crash"), null);
        await("loop has failed", () -> manager.status("loop").state() == ServerStatus.State.FAILED);

        ServerActivity activity = manager.activity("loop");
        assertEquals(1, activity.drops());
        assertEquals(3, activity.reconnectAttempts(), activity.toString());
        assertEquals(0, activity.reconnects());
        String last = activity.lastError().orElseThrow().message();
        assertEquals(manager.status("loop").error().orElseThrow(), last, "the status's error, as it ended");
        assertTrue(last.startsWith("MCP server \"loop\" failed: no reconnect after 3 attempts"), last);
    }

    @Test
    void concurrentCallsAreAllCounted() throws Exception {
        McpManager manager = manager(ReconnectTest.QUICK);
        manager.connectServers(Map.of("kit", TestServerProcesses.config()), Map.of());
        BridgedTool echo = tool(manager, "mcp_kit_echo");
        BridgedTool fail = tool(manager, "mcp_kit_fail");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int thread = 0; thread < 8; thread++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        call(i % 5 == 0 ? fail : echo, "{\"message\":\"m\"}");
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get();
            }
        } finally {
            pool.shutdownNow();
        }
        ServerActivity activity = manager.activity("kit");
        assertEquals(200, activity.calls());
        assertEquals(40, activity.toolErrors());
        assertEquals(0, activity.callErrors());
    }

    /** A testkit server whose every start after the first exits at once. */
    private StdioServerConfig laterFailing(String name) {
        String starts = quote(temp.resolve(name + ".starts").toString());
        String kit = TestServers.command().stream().map(ServerActivityTest::quote).collect(Collectors.joining(" "));
        String script = "if [ -e " + starts + " ]; then exec " + kit + " --fault exit-at-start; fi; echo >> " + starts
                + "; exec " + kit;
        return StdioServerConfig.of("sh", List.of("-c", script));
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}

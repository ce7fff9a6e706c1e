package mcp.manager;

import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mcp.api.CallLimits;
import mcp.api.Content;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.McpProtocolException;
import mcp.api.McpTimeoutException;
import mcp.api.McpTimeoutException.Bound;
import mcp.api.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Long calls (issue 17, item 3) against the testkit server, a real child process: the timeout, the idle timeout
 * and the absolute cap, and tool calls the server runs as tasks of the 2026-07-28 tasks extension.
 */
class LongCallsTest {

    private final List<McpClient> clients = new ArrayList<>();
    private final List<McpManager> managers = new ArrayList<>();

    private McpClient track(McpClient client) {
        clients.add(client);
        return client;
    }

    @AfterEach
    void closeEverything() throws InterruptedException {
        clients.forEach(McpClient::close);
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private static JsonNode args(String json) {
        return McpJson.mapper().readTree(json);
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    private static McpTimeoutException timesOut(McpClient client, String tool, String arguments, CallOptions options) {
        return assertThrows(McpTimeoutException.class, () -> McpClient.await(client.callTool(tool, args(arguments),
                options)));
    }

    /** Polls a tool of the server until its text satisfies the condition, for up to 5 s. */
    private static String eventually(McpClient client, String tool, java.util.function.Predicate<String> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        String last;
        do {
            last = text(client.callToolBlocking(tool, null));
            if (condition.test(last)) {
                return last;
            }
            Thread.sleep(20);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(tool + " never satisfied the condition; last: " + last);
    }

    // ---------------------------------------------------------------- bounds

    @Test
    void defaultsFillWhatACallLeavesUnset() {
        Duration second = Duration.ofSeconds(1);
        CallOptions plain = CallOptions.DEFAULT.withDefaults(second, CallLimits.NONE);
        assertEquals(Optional.of(second), plain.timeout());
        assertEquals(Optional.of(second), plain.maxTotalTimeout(), "without reset the cap is the timeout");
        assertEquals(Optional.empty(), plain.idleTimeout());
        assertFalse(plain.resetTimeoutOnProgress());

        CallLimits server = new CallLimits(Optional.of(Duration.ofMillis(300)), Optional.empty(), Optional.of(true));
        CallOptions reset = CallOptions.DEFAULT.withDefaults(second, server);
        assertTrue(reset.resetTimeoutOnProgress());
        assertEquals(Optional.of(Duration.ofSeconds(10)), reset.maxTotalTimeout(), "with reset: ten times the timeout");
        assertEquals(Optional.of(Duration.ofMillis(300)), reset.idleTimeout());

        CallOptions own = CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(2)).withIdleTimeout(Duration.ofMillis(50))
                .withMaxTotalTimeout(Duration.ofSeconds(3)).withDefaults(second, server);
        assertEquals(Optional.of(Duration.ofSeconds(2)), own.timeout(), "the call's own values win");
        assertEquals(Optional.of(Duration.ofMillis(50)), own.idleTimeout());
        assertEquals(Optional.of(Duration.ofSeconds(3)), own.maxTotalTimeout());
        assertEquals(own, own.withDefaults(second, server), "filling twice changes nothing");
        assertThrows(IllegalArgumentException.class,
                () -> new CallLimits(Optional.of(Duration.ZERO), Optional.empty(), Optional.empty()));
    }

    @Test
    void theCapEndsACallWhoseProgressNeverStops() throws InterruptedException {
        McpClient client = track(connect("kit", "--era", "legacy", "--fault", "ticker"));
        List<ProgressUpdate> updates = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();
        // Progress every 50 ms restarts the 400 ms timeout for ever; only the 1.5 s cap can end the call.
        McpTimeoutException timeout = timesOut(client, "ticker", "{\"intervalMs\":50}", CallOptions.DEFAULT
                .withTimeout(Duration.ofMillis(400)).withResetTimeoutOnProgress(Duration.ofMillis(1500))
                .withProgress(updates::add));
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(Bound.MAX_TOTAL_TIMEOUT, timeout.bound(), timeout.getMessage());
        assertEquals("MCP server \"kit\": tool \"ticker\" ran past its maximum total time of 1500 ms "
                + "(maxTotalTimeout; progress does not extend it)", timeout.getMessage());
        assertTrue(elapsed >= 1400, "ended by the cap, not sooner: " + elapsed + " ms");
        assertTrue(updates.size() > 5, "progress kept coming: " + updates.size());
        assertEquals("1", eventually(client, "cancellations", "1"::equals), "the server was told");
    }

    @Test
    void theCapHoldsWithoutResetOnProgressToo() {
        McpClient client = track(connect("kit"));
        McpTimeoutException timeout = timesOut(client, "slow", "{\"ms\":10000}", CallOptions.DEFAULT
                .withTimeout(Duration.ofSeconds(20)).withMaxTotalTimeout(Duration.ofMillis(300)));
        assertEquals(Bound.MAX_TOTAL_TIMEOUT, timeout.bound(), timeout.getMessage());
    }

    @Test
    void theIdleTimeoutEndsACallThatFellSilentLongBeforeItsTimeout() throws InterruptedException {
        McpClient client = track(connect("kit", "--era", "legacy", "--fault", "ticker"));
        long start = System.nanoTime();
        // Three ticks 100 ms apart, then silence: no consumer of progress, and the ticks still count.
        McpTimeoutException timeout = timesOut(client, "ticker", "{\"intervalMs\":100,\"ticks\":3}",
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(30)).withIdleTimeout(Duration.ofMillis(400)));
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(Bound.IDLE_TIMEOUT, timeout.bound(), timeout.getMessage());
        assertEquals("MCP server \"kit\": tool \"ticker\" sent no response and no progress for 400 ms (idleTimeout)",
                timeout.getMessage());
        assertTrue(elapsed >= 650, "the ticks kept it alive past the first idle period: " + elapsed + " ms");
        assertTrue(elapsed < 10_000, "long before the 30 s timeout: " + elapsed + " ms");
        assertEquals("1", eventually(client, "cancellations", "1"::equals), "the server was told");
    }

    @Test
    void progressKeepsAnIdleBoundCallAlive() {
        McpClient client = track(connect("kit"));
        ToolResult result = McpClient.await(client.callTool("slow", args("{\"ms\":1200,\"steps\":8}"),
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(20)).withIdleTimeout(Duration.ofMillis(500))));
        assertEquals("done", text(result));
    }

    @Test
    void theServersLimitsApplyToCallsThatSetNone() {
        CallLimits limits = new CallLimits(Optional.of(Duration.ofMillis(300)), Optional.empty(), Optional.empty());
        McpClient client = track(connect("kit", ClientOptions.builder("kit").callLimits(limits), "--era", "legacy",
                "--fault", "ticker"));
        McpTimeoutException timeout = timesOut(client, "ticker", "{\"ticks\":0}", CallOptions.DEFAULT);
        assertEquals(Bound.IDLE_TIMEOUT, timeout.bound(), timeout.getMessage());
    }

    // ---------------------------------------------------------------- through the manager

    private McpManager manager(McpManager.Builder builder, String name, mcp.api.StdioServerConfig config) {
        McpManager manager = builder.workingDirectory(java.nio.file.Path.of("").toAbsolutePath()).build();
        managers.add(manager);
        manager.connectServers(java.util.Map.of(name, config), java.util.Map.of());
        return manager;
    }

    @Test
    void aServersConfigBoundsItsToolCallsAndTheBuilderTheRest() {
        CallLimits idle = new CallLimits(Optional.of(Duration.ofMillis(300)), Optional.empty(), Optional.empty());
        McpManager configured = manager(McpManager.builder(), "kit",
                TestServerProcesses.config("--fault", "ticker").withCallLimits(idle));
        ToolOutput output = McpClient.await(ReconnectTest.tool(configured, "mcp_kit_ticker")
                .call(args("{\"ticks\":0}")));
        assertTrue(output.isError(), output.text());
        assertEquals("MCP error: MCP server \"kit\": tool \"ticker\" sent no response and no progress for 300 ms "
                + "(idleTimeout)", output.text());

        McpManager defaulted = manager(McpManager.builder().callLimits(new CallLimits(Optional.empty(),
                Optional.of(Duration.ofMillis(200)), Optional.empty())), "other", TestServerProcesses.config());
        ToolOutput capped = McpClient.await(ReconnectTest.tool(defaulted, "mcp_other_slow").call(args("{\"ms\":10000}")));
        assertTrue(capped.text().contains("(maxTotalTimeout"), capped.text());
    }

    @Test
    void aCallThatWaitedForAReconnectKeepsItsCapFromItsStart() throws Exception {
        mcp.api.ReconnectPolicy slowBackoff = new mcp.api.ReconnectPolicy(3, Duration.ofMillis(800),
                Duration.ofMillis(800), 0, Duration.ofSeconds(10));
        McpManager manager = manager(McpManager.builder().reconnect(slowBackoff), "kit", TestServerProcesses.config());
        ReconnectTest.call(ReconnectTest.tool(manager, "mcp_kit_crash"), null);
        ReconnectTest.await("kit is reconnecting", () -> manager.status("kit").state() == ServerStatus.State.RECONNECTING);
        long start = System.nanoTime();
        // When the server was back, seen from beside the call: on a loaded machine its start may take longer than the
        // cap, and then the call ends as soon as it can run.
        java.util.concurrent.atomic.AtomicLong reconnected = new java.util.concurrent.atomic.AtomicLong(-1);
        Thread watcher = new Thread(() -> {
            while (reconnected.get() < 0 && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(20)) {
                if (manager.status("kit").state() == ServerStatus.State.CONNECTED) {
                    reconnected.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        watcher.start();
        ToolOutput output = McpClient.await(ReconnectTest.tool(manager, "mcp_kit_slow").call(args("{\"ms\":10000}"),
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(20)).withMaxTotalTimeout(Duration.ofMillis(1500))));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        watcher.join(TimeUnit.SECONDS.toMillis(25));
        assertTrue(output.isError() && output.text().contains("(maxTotalTimeout"), output.text());
        assertEquals(ServerStatus.State.CONNECTED, manager.status("kit").state(), "it ran after the reconnect");
        assertTrue(reconnected.get() >= 0, "the watcher saw the reconnect");
        // A cap counted from the reconnect would end the call 1,500 ms after it; counted from the call, it ends at
        // 1,500 ms or as soon as the server is back, whichever is later.
        long due = Math.max(1500, reconnected.get());
        assertTrue(took >= 1400 && took < due + 700, "the cap counts from the call, the wait included: " + took
                + " ms, the server back after " + reconnected.get() + " ms");
    }

    // ---------------------------------------------------------------- tasks

    private McpClient taskServer(String name) {
        return track(connect(name, ClientOptions.builder(name).handler(ClientOptions.ELICITATION_METHOD,
                ElicitationHandlers.acceptDefaults()), "--era", "modern", "--tasks", "20"));
    }

    @Test
    void aTaskIsPolledAndItsStatusComesAsProgress() {
        McpClient client = taskServer("tasks");
        List<ProgressUpdate> updates = new CopyOnWriteArrayList<>();
        ToolResult result = McpClient.await(client.callTool("slow", args("{\"ms\":400,\"steps\":4}"),
                CallOptions.DEFAULT.withProgress(updates::add)));
        assertEquals("done", text(result));
        List<String> messages = updates.stream().map(u -> u.message().orElse("")).toList();
        assertTrue(messages.containsAll(List.of("step 1 of 4", "step 2 of 4", "step 3 of 4")), messages.toString());
        for (int i = 1; i < updates.size(); i++) {
            assertTrue(updates.get(i).progress() > updates.get(i - 1).progress(), "progress increases: " + updates);
        }
        String received = text(client.callToolBlocking("received", null));
        assertTrue(received.contains("tasks/get"), received);
        assertEquals("1", String.valueOf(received.split("tools/call", -1).length - 2), "one tools/call: " + received);
    }

    @Test
    void aFailedTaskFailsTheCallWithItsError() {
        McpClient client = taskServer("tasks");
        McpProtocolException error = assertThrows(McpProtocolException.class,
                () -> client.callToolBlocking("error", null));
        assertEquals("MCP error -32603: internal failure on purpose", error.getMessage());
        assertTrue(client.callToolBlocking("fail", null).isError(), "a tool error is a completed task");
    }

    @Test
    void cancellingTheCallCancelsTheTaskOnTheServer() throws Exception {
        McpClient client = taskServer("tasks");
        CountDownLatch ticking = new CountDownLatch(1);
        CompletableFuture<ToolResult> call = client.callTool("ticker", args("{\"intervalMs\":50}"),
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(30)).withProgress(update -> ticking.countDown()));
        assertTrue(ticking.await(5, TimeUnit.SECONDS), "the task reported its status");
        call.cancel(false);
        assertThrows(CancellationException.class, call::join);
        String states = eventually(client, "task_states", s -> s.contains("\"cancelled\""));
        assertFalse(states.contains("\"working\""), states);
        assertTrue(text(client.callToolBlocking("received", null)).contains("tasks/cancel"));
        assertEquals("0", text(client.callToolBlocking("cancellations", null)),
                "a task is cancelled with tasks/cancel, never notifications/cancelled");
    }

    @Test
    void aTaskThatStopsChangingEndsAtTheIdleTimeoutAndIsCancelled() throws InterruptedException {
        McpClient client = taskServer("tasks");
        long start = System.nanoTime();
        McpTimeoutException timeout = timesOut(client, "ticker", "{\"intervalMs\":100,\"ticks\":3}",
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(30)).withIdleTimeout(Duration.ofMillis(500)));
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(Bound.IDLE_TIMEOUT, timeout.bound(), timeout.getMessage());
        assertTrue(timeout.getMessage().startsWith("MCP server \"tasks\": tool \"ticker\" sent no response and no "
                + "progress for 500 ms (idleTimeout); its task "), timeout.getMessage());
        assertTrue(elapsed >= 700 && elapsed < 10_000, elapsed + " ms");
        eventually(client, "task_states", s -> s.contains("\"cancelled\"") && !s.contains("\"working\""));
    }

    @Test
    void theCapEndsATaskWhoseStatusKeepsChanging() throws InterruptedException {
        McpClient client = taskServer("tasks");
        McpTimeoutException timeout = timesOut(client, "ticker", "{\"intervalMs\":40}", CallOptions.DEFAULT
                .withTimeout(Duration.ofMillis(300)).withResetTimeoutOnProgress(Duration.ofMillis(1200)));
        assertEquals(Bound.MAX_TOTAL_TIMEOUT, timeout.bound(), timeout.getMessage());
        eventually(client, "task_states", s -> s.contains("\"cancelled\"") && !s.contains("\"working\""));
    }

    @Test
    void aTaskThatAsksForInputIsAnsweredWithTasksUpdate() {
        McpClient client = taskServer("tasks");
        assertEquals("hello Ada", text(client.callToolBlocking("ask", null)));
        assertTrue(text(client.callToolBlocking("received", null)).contains("tasks/update"));
    }

    @Test
    void aTaskWhoseServerDiesFailsAtOnceWithTheReasonNotAtTheNextPoll() throws Exception {
        McpClient client = track(connect("slowpoll", "--era", "modern", "--tasks", "20000"));
        CountDownLatch working = new CountDownLatch(1);
        CompletableFuture<ToolResult> call = client.callTool("ticker", args("{\"intervalMs\":50}"),
                CallOptions.DEFAULT.withTimeout(Duration.ofSeconds(60)).withProgress(update -> working.countDown()));
        assertTrue(working.await(5, TimeUnit.SECONDS), "the task was created");
        long pid = client.callToolBlocking("pid", null).structuredContent().orElseThrow().path("pid").asLong();
        long start = System.nanoTime();
        ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        java.util.concurrent.ExecutionException error = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> call.get(10, TimeUnit.SECONDS));
        assertTrue(error.getCause() instanceof mcp.api.TransportClosedException, String.valueOf(error.getCause()));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 5_000, "not at the poll 20 s later");
    }

    @Test
    void aServerWithoutTheExtensionIsNeverAskedForTasks() {
        McpClient client = track(connect("plain", "--era", "modern"));
        assertEquals("done", text(McpClient.await(client.callTool("slow", args("{\"ms\":50}"), CallOptions.DEFAULT))));
        assertFalse(text(client.callToolBlocking("received", null)).contains("tasks/"));
        McpException error = assertThrows(McpException.class, () -> McpClient.await(client.request("tasks/get",
                McpJson.object().put("taskId", "x"), CallOptions.DEFAULT)));
        assertTrue(error.getMessage().contains("-32601"), error.getMessage());
    }
}

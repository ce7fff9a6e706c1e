package mcp.manager;

import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.HttpServerConfig;
import mcp.api.McpHttpException;
import mcp.api.McpJson;
import mcp.api.ReconnectPolicy;
import mcp.api.StdioServerConfig;
import mcp.api.TransportClosedException;
import mcp.api.jsonrpc.JsonRpcMessage;
import mcp.api.jsonrpc.JsonRpcRequest;
import mcp.api.jsonrpc.JsonRpcSuccess;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * A first connect that fails for a passing reason is tried again, spaced as reconnects are, one process at a time;
 * one that another try cannot fix fails at once. Real testkit processes, and a scripted HTTP transport for statuses.
 */
class StartupRetryTest {

    /** 100 ms doubling to 400 ms, no jitter; 3 retries (the default count). */
    static final ReconnectPolicy QUICK = new ReconnectPolicy(5, Duration.ofMillis(100), Duration.ofMillis(400), 0,
            Duration.ofSeconds(10));

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();
    /** Every status change: server, state, attempt k/n (or empty), error. */
    private final List<String[]> statuses = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private McpManager.Builder builder(ReconnectPolicy policy) {
        return McpManager.builder().workingDirectory(temp).reconnect(policy).listener(new ManagerListener() {
            @Override
            public void onStatusChange(String serverName, ServerStatus status) {
                statuses.add(new String[] {serverName, status.state().name(),
                        status.reconnect().map(r -> r.attempt() + "/" + r.attempts()).orElse(""),
                        status.error().orElse("")});
            }
        });
    }

    private McpManager manager(McpManager.Builder builder) {
        McpManager manager = builder.build();
        managers.add(manager);
        return manager;
    }

    /**
     * A testkit server whose first {@code starts} starts fail, pinned to the handshake era: without a pin its first
     * start would get the era probe, and a process that exits at once looks like a server that closes on the probe,
     * which is started once more within the same attempt (ProtocolEraTest). Pinned, each start is one attempt.
     */
    private StdioServerConfig failingFirst(int starts, String... more) {
        List<String> args = new ArrayList<>(List.of("--tools", "2", "--fail-first", String.valueOf(starts), "--state",
                temp.resolve("starts").toString()));
        args.addAll(List.of(more));
        StdioServerConfig c = TestServerProcesses.config(args.toArray(String[]::new));
        return new StdioServerConfig(c.command(), c.args(), c.env(), c.inheritedEnv(), c.cwd(), c.timeout(),
                c.toolTimeout(), c.enabled(), c.auth(), c.enabledTools(), c.disabledTools(), c.valueReferences(),
                "2025-11-25", c.reconnect(), c.callLimits(), c.alwaysLoad());
    }

    /** The lines of the state file: one pid per start, and {@code overlap PID} for a start beside a live one. */
    private List<String> starts() throws IOException {
        Path file = temp.resolve("starts");
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private List<String[]> seen(String server) {
        return statuses.stream().filter(s -> s[0].equals(server)).toList();
    }

    @Test
    void aServerThatFailsItsFirstTwoStartsIsUpAfterTheThird() throws Exception {
        McpManager manager = manager(builder(QUICK));
        ConnectResult result = manager.connectServers(Map.of("kit", failingFirst(2)), Map.of());

        assertEquals(Map.of(), result.errors());
        assertEquals(ServerStatus.State.CONNECTED, manager.status("kit").state());
        assertFalse(manager.toolsOf("kit").isEmpty());
        assertTrue(manager.toolsOf("kit").stream().noneMatch(BridgedTool::deferred));
        List<String> starts = starts();
        assertEquals(3, starts.size(), "two failed starts and the third: " + starts);
        assertTrue(starts.stream().noneMatch(line -> line.startsWith("overlap")), "never two at once: " + starts);
        for (String pid : starts.subList(0, 2)) {
            assertFalse(ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false),
                    "a failed attempt leaves no process: " + pid);
        }

        List<String[]> seen = seen("kit");
        String[] second = seen.stream().filter(s -> s[1].equals("CONNECTING") && s[2].equals("2/4")).findFirst()
                .orElseThrow(() -> new AssertionError("attempt 2 of 4 was visible"));
        assertTrue(second[3].startsWith("attempt 1 of 4 failed: ") && second[3].contains("code 4")
                && second[3].contains("start 1 of the first 2 fails on purpose"), second[3]);
        assertTrue(seen.stream().anyMatch(s -> s[1].equals("CONNECTING") && s[2].equals("3/4")
                && s[3].startsWith("attempt 2 of 4 failed: ")), "attempt 3 of 4 said why attempt 2 failed");
        assertTrue(seen.stream().noneMatch(s -> s[1].equals("RECONNECTING") || s[1].equals("FAILED")));
        assertEquals("x", ReconnectTest.call(ReconnectTest.tool(manager, "mcp_kit_echo"), "{\"message\":\"x\"}").text());
    }

    @Test
    void aStartThatHangsIsTimedOutEndedAndTriedAgainNeverBesideTheHungOne() throws Exception {
        McpManager manager = manager(builder(QUICK));
        // Long enough for the second, healthy start to answer on a loaded machine (a JVM took over a second there,
        // timed out too, and made a third start), short enough to keep the hung first start brief.
        StdioServerConfig config = failingFirst(1, "--fail-with", "hang").withTimeout(Duration.ofSeconds(4));
        ConnectResult result = manager.connectServers(Map.of("kit", config), Map.of());

        assertEquals(Map.of(), result.errors());
        assertEquals(ServerStatus.State.CONNECTED, manager.status("kit").state());
        List<String> starts = starts();
        assertEquals(2, starts.size(), starts.toString());
        assertTrue(starts.stream().noneMatch(line -> line.startsWith("overlap")),
                "the hung process ended before the next started: " + starts);
        assertTrue(seen("kit").stream().anyMatch(s -> s[2].equals("2/4") && s[3].contains("timeout")),
                "the timeout is the reason said");
    }

    @Test
    void aServerThatKeepsFailingEndsFailedAfterItsRetriesAndIsNotStartedAgain() throws Exception {
        McpManager manager = manager(builder(QUICK.withStartupRetries(2)));
        ConnectResult result = manager.connectServers(Map.of("kit", failingFirst(10),
                "other", TestServerProcesses.config()), Map.of());

        String error = result.errors().get("kit");
        assertTrue(error != null && error.startsWith("MCP server \"kit\" failed to connect after 3 attempts; last: ")
                && error.contains("code 4") && error.contains("start 3 of the first 10 fails on purpose"),
                String.valueOf(error));
        assertEquals(ServerStatus.State.FAILED, manager.status("kit").state());
        assertEquals(java.util.Optional.of(error), manager.status("kit").error());
        assertEquals(3, starts().size(), "the first connect and two retries");
        Thread.sleep(600);
        assertEquals(3, starts().size(), "and no more");
        assertEquals(ServerStatus.State.CONNECTED, manager.status("other").state(), "the other server is untouched");
        assertTrue(manager.waitForConnection("kit").isCompletedExceptionally());
    }

    @Test
    void aDisconnectDuringTheBackoffCancelsTheRetryAndStartsNothingMore() throws Exception {
        ReconnectPolicy slow = new ReconnectPolicy(5, Duration.ofMillis(1_500), Duration.ofSeconds(3), 0,
                Duration.ofSeconds(10));
        McpManager manager = manager(builder(slow).uncachedWait(Duration.ZERO));
        manager.connectServers(Map.of("kit", failingFirst(1)), Map.of());
        ReconnectTest.await("the retry is scheduled", () -> manager.status("kit").reconnect()
                .filter(r -> r.nextTry().isPresent()).isPresent());
        assertEquals(ServerStatus.State.CONNECTING, manager.status("kit").state());

        manager.disconnectServer("kit");
        Thread.sleep(2_000);
        assertEquals(1, starts().size(), "the retry never started: " + starts());
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("kit").state());
        assertTrue(manager.awaitConnect("kit", java.util.Optional.empty()).isDone(), "nothing in flight");
    }

    @Test
    void awaitConnectWaitsThroughTheRetriesOfAFirstConnect() throws Exception {
        McpManager manager = manager(builder(QUICK).uncachedWait(Duration.ZERO));
        manager.connectServers(Map.of("kit", failingFirst(2)), Map.of());
        ServerStatus status = manager.awaitConnect("kit", java.util.Optional.empty()).get(30,
                java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(ServerStatus.State.CONNECTED, status.state(), status::toString);
        assertEquals(3, starts().size());
    }

    @Test
    void aCommandThatDoesNotExistIsNotTriedAgain() {
        McpManager manager = manager(builder(QUICK));
        ConnectResult result = manager.connectServers(Map.of("missing",
                StdioServerConfig.of("/no/such/mcp-server", List.of())), Map.of());

        String error = result.errors().get("missing");
        assertTrue(error.contains("/no/such/mcp-server") && !error.contains("attempt"), error);
        assertEquals(ServerStatus.State.FAILED, manager.status("missing").state());
        assertTrue(seen("missing").stream().noneMatch(s -> !s[2].isEmpty()), "no retry was ever scheduled");
    }

    @Test
    void withTheRetriesOffAFailedFirstConnectFailsOnce() throws Exception {
        McpManager manager = manager(builder(ReconnectPolicy.OFF));
        ConnectResult result = manager.connectServers(Map.of("kit", failingFirst(1)), Map.of());

        String error = result.errors().get("kit");
        assertTrue(error.contains("code 4") && !error.contains("attempt"), error);
        assertEquals(1, starts().size());
    }

    @Test
    void http503And429AreTriedAgainA401IsNot() {
        ScriptedHttp http = new ScriptedHttp();
        McpManager manager = manager(builder(QUICK).transportProviders(List.of(http, TestServerProcesses.stdio())));
        http.failures.put("busy", new ArrayList<>(List.of(503, 429)));
        http.failures.put("locked", new ArrayList<>(List.of(401, 401)));
        ConnectResult result = manager.connectServers(Map.of("busy", HttpServerConfig.of("http://127.0.0.1:9/busy"),
                "locked", HttpServerConfig.of("http://127.0.0.1:9/locked")), Map.of());

        assertEquals(ServerStatus.State.CONNECTED, manager.status("busy").state());
        assertEquals(3, http.opens("busy"), "503, then 429, then up");
        assertEquals(List.of("ping"), manager.toolsOf("busy").stream().map(BridgedTool::toolName).toList());
        String error = result.errors().get("locked");
        assertTrue(error.contains("HTTP 401") && !error.contains("attempt"), error);
        assertEquals(1, http.opens("locked"), "a refusal is not asked again");
    }

    /**
     * An {@code http} transport that answers {@code initialize} with the statuses its server name is given, one per
     * open, as the Streamable HTTP transport fails them ({@link McpHttpException}); then it serves one tool.
     */
    static final class ScriptedHttp implements TransportProvider {
        final Map<String, List<Integer>> failures = new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> opens = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public String id() {
            return "http";
        }

        int opens(String server) {
            return opens.getOrDefault(server, new AtomicInteger()).get();
        }

        @Override
        public Transport open(TransportRequest request) {
            opens.computeIfAbsent(request.serverName(), name -> new AtomicInteger()).incrementAndGet();
            List<Integer> left = failures.getOrDefault(request.serverName(), new ArrayList<>());
            Integer status;
            synchronized (left) {
                status = left.isEmpty() ? null : left.remove(0);
            }
            return new Scripted(status);
        }
    }

    private static final class Scripted implements Transport {
        private final Integer status;
        private volatile Listener listener;

        Scripted(Integer status) {
            this.status = status;
        }

        @Override
        public void start(Listener value) {
            listener = value;
        }

        @Override
        public CompletableFuture<Void> send(JsonRpcMessage message) {
            if (!(message instanceof JsonRpcRequest request)) {
                return CompletableFuture.completedFuture(null);
            }
            if (request.method().equals("initialize") && status != null) {
                return CompletableFuture.failedFuture(new McpHttpException(status, "POST http://127.0.0.1:9/mcp "
                        + "answered HTTP " + status));
            }
            ObjectNode result = McpJson.object();
            if (request.method().equals("initialize")) {
                result.put("protocolVersion", "2025-11-25");
                result.putObject("capabilities").putObject("tools");
                result.putObject("serverInfo").put("name", "scripted").put("version", "1");
            } else if (request.method().equals("tools/list")) {
                result.putArray("tools").addObject().put("name", "ping").putObject("inputSchema").put("type", "object");
            }
            CompletableFuture.runAsync(() -> listener.onMessage(new JsonRpcSuccess(request.id(), result)));
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {
            Listener target = listener;
            if (target != null) {
                target.onClose(new TransportClosedException("closed by client"));
            }
        }
    }
}

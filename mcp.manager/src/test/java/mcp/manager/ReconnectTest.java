package mcp.manager;

import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.ReconnectPolicy;
import mcp.api.StdioServerConfig;
import mcp.api.ToolChanges;
import mcp.consent.ToolPins;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reconnect policy over real testkit server processes: a server whose process dies is started again. */
class ReconnectTest {

    /** Quick enough for tests: 100 ms doubling to 1 s. */
    static final ReconnectPolicy QUICK = new ReconnectPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(1), 0.2,
            Duration.ofSeconds(10));

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();
    private final List<String[]> statuses = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private McpManager manager(ReconnectPolicy policy) {
        McpManager manager = McpManager.builder().workingDirectory(temp).reconnect(policy)
                .listener(new ManagerListener() {
                    @Override
                    public void onStatusChange(String serverName, ServerStatus status) {
                        statuses.add(new String[] {serverName, status.state().name(),
                                status.reconnect().map(r -> r.attempt() + "/" + r.attempts()).orElse("")});
                    }
                }).build();
        managers.add(manager);
        return manager;
    }

    /**
     * A testkit server started through {@code sh}, which appends a line to {@code starts} at each start; from the
     * second start on it gets {@code laterArgs} too.
     */
    private StdioServerConfig counted(String name, String... laterArgs) {
        Path starts = temp.resolve(name + ".starts");
        String kit = TestServers.command("--tools", "2").stream().map(ReconnectTest::quote)
                .collect(Collectors.joining(" "));
        String later = Stream.of(laterArgs).map(ReconnectTest::quote).collect(Collectors.joining(" "));
        String script = "if [ -e " + quote(starts.toString()) + " ]; then echo >> " + quote(starts.toString())
                + "; exec " + kit + " " + later + "; fi; echo >> " + quote(starts.toString()) + "; exec " + kit;
        return StdioServerConfig.of("sh", List.of("-c", script));
    }

    private int starts(String name) throws IOException {
        Path file = temp.resolve(name + ".starts");
        return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }

    static BridgedTool tool(McpManager manager, String name) {
        return manager.getTools().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no tool " + name + " in " + manager.getTools()));
    }

    static ToolOutput call(BridgedTool tool, String args) {
        return McpClient.await(tool.call(args == null ? null : McpJson.mapper().readTree(args)));
    }

    static long pid(McpManager manager, String server) {
        ToolOutput output = call(tool(manager, "mcp_" + server + "_pid"), null);
        assertFalse(output.isError(), output.text());
        return Long.parseLong(output.text().trim());
    }

    private boolean saw(String server, String state, String attempt) {
        return statuses.stream().anyMatch(s -> s[0].equals(server) && s[1].equals(state) && s[2].equals(attempt));
    }

    @Test
    void aKilledServerComesBackWithItsToolsAndOthersAreUntouched() throws Exception {
        McpManager manager = manager(QUICK);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--tools", "2"),
                "other", TestServerProcesses.config("--tools", "2")), Map.of());
        long before = pid(manager, "kit");
        long other = pid(manager, "other");
        int tools = manager.toolsOf("kit").size();

        ToolOutput crash = call(tool(manager, "mcp_kit_crash"), null);
        assertTrue(crash.isError() && crash.text().contains("process exited with code 5"), crash.text());
        await("kit is connected again", () -> manager.status("kit").state() == ServerStatus.State.CONNECTED
                && manager.toolsOf("kit").stream().noneMatch(BridgedTool::deferred)
                && manager.toolsOf("kit").size() == tools);
        assertTrue(saw("kit", "RECONNECTING", "1/5"), "the listener saw the reconnect");
        long after = pid(manager, "kit");
        assertNotEquals(before, after, "a new process");
        TestServerProcesses.assertDeadSoon(before);
        assertEquals(other, pid(manager, "other"), "the other server is the same process");
        assertTrue(statuses.stream().noneMatch(s -> s[0].equals("other") && !s[1].equals("CONNECTING")
                && !s[1].equals("CONNECTED")), "the other server's status never changed");
        assertEquals("hi", call(tool(manager, "mcp_kit_echo"), "{\"message\":\"hi\"}").text());
    }

    @Test
    void aCallMadeDuringTheReconnectWaitsForItAndRuns() throws Exception {
        ReconnectPolicy slow = new ReconnectPolicy(3, Duration.ofMillis(1500), Duration.ofSeconds(2), 0,
                Duration.ofSeconds(10));
        McpManager manager = manager(slow);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--tools", "2")), Map.of());
        BridgedTool live = tool(manager, "mcp_kit_echo");
        assertFalse(live.deferred());
        call(tool(manager, "mcp_kit_crash"), null);

        await("kit is reconnecting", () -> manager.status("kit").state() == ServerStatus.State.RECONNECTING);
        ServerStatus status = manager.status("kit");
        assertEquals(1, status.reconnect().orElseThrow().attempt());
        assertEquals(3, status.reconnect().orElseThrow().attempts());
        assertTrue(status.reconnect().orElseThrow().nextTry().isPresent(), status.toString());
        assertTrue(status.error().orElseThrow().contains("code 5"), status.toString());
        BridgedTool deferred = tool(manager, "mcp_kit_echo");
        assertTrue(deferred.deferred(), "the last tools stay, deferred");

        long start = System.nanoTime();
        CompletableFuture<ToolOutput> viaDeferred = deferred.call(McpJson.mapper().readTree("{\"message\":\"later\"}"));
        CompletableFuture<ToolOutput> viaOld = live.call(McpJson.mapper().readTree("{\"message\":\"old\"}"));
        ToolOutput output = viaDeferred.get(10, TimeUnit.SECONDS);
        assertFalse(output.isError(), output.text());
        assertEquals("later", output.text());
        assertEquals("old", viaOld.get(10, TimeUnit.SECONDS).text(), "a tool taken before the drop waits as well");
        assertTrue(System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(500), "it waited for the backoff");
        assertEquals(ServerStatus.State.CONNECTED, manager.status("kit").state());
    }

    @Test
    void aCallDuringTheReconnectFailsWhenItsOwnTimeoutEndsFirst() throws Exception {
        ReconnectPolicy slow = new ReconnectPolicy(3, Duration.ofSeconds(5), Duration.ofSeconds(5), 0,
                Duration.ofSeconds(10));
        McpManager manager = manager(slow);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--tools", "2")), Map.of());
        call(tool(manager, "mcp_kit_crash"), null);
        await("kit is reconnecting", () -> manager.status("kit").state() == ServerStatus.State.RECONNECTING);
        long start = System.nanoTime();
        ToolOutput output = McpClient.await(tool(manager, "mcp_kit_echo").call(
                McpJson.mapper().readTree("{\"message\":\"x\"}"), CallOptions.DEFAULT.withTimeout(Duration.ofMillis(300))));
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(output.isError(), output.text());
        assertTrue(output.text().contains("is reconnecting and did not come back within the call's timeout (300 ms)"),
                output.text());
        assertTrue(took < 3_000, "bounded by the call's timeout: " + took + " ms");
    }

    @Test
    void aCallInFlightWhenTheServerDiesFailsAtOnceAndIsNotSentAgain() throws Exception {
        McpManager manager = manager(QUICK);
        manager.connectServers(Map.of("kit", counted("kit", "--fault", "exit-during-call")), Map.of());
        BridgedTool slow = tool(manager, "mcp_kit_slow");
        CompletableFuture<ToolOutput> inFlight = slow.call(McpJson.mapper().readTree("{\"ms\":30000}"));
        Thread.sleep(200);
        long start = System.nanoTime();
        call(tool(manager, "mcp_kit_crash"), null);
        ToolOutput failed = inFlight.get(5, TimeUnit.SECONDS);
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 3_000, "at once");
        assertTrue(failed.isError(), failed.text());
        assertTrue(failed.text().contains("process exited with code 5"), failed.text());
        await("kit is connected again", () -> manager.status("kit").state() == ServerStatus.State.CONNECTED
                && manager.toolsOf("kit").stream().noneMatch(BridgedTool::deferred));
        // The new process exits on any tools/call: had a call been sent again, it would have died once more.
        Thread.sleep(500);
        assertEquals(ServerStatus.State.CONNECTED, manager.status("kit").state());
        assertEquals(2, starts("kit"), "one start and one reconnect");
    }

    @Test
    void aCrashLoopEndsFailedWithTheExitCodeAndStderrTail() throws Exception {
        ReconnectPolicy three = new ReconnectPolicy(3, Duration.ofMillis(50), Duration.ofMillis(200), 0.2,
                Duration.ofSeconds(10));
        McpManager manager = manager(three);
        manager.connectServers(Map.of("loop", counted("loop", "--fault", "exit-at-start"),
                "other", TestServerProcesses.config()), Map.of());
        long other = pid(manager, "other");
        call(tool(manager, "mcp_loop_crash"), null);
        await("loop has failed", () -> manager.status("loop").state() == ServerStatus.State.FAILED);
        String error = manager.status("loop").error().orElseThrow();
        assertTrue(error.startsWith("MCP server \"loop\" failed: no reconnect after 3 attempts; last: "), error);
        assertTrue(error.contains("code 3"), error);
        assertTrue(error.contains("fatal: exit at start on purpose"), error);
        assertTrue(saw("loop", "RECONNECTING", "1/3") && saw("loop", "RECONNECTING", "2/3")
                && saw("loop", "RECONNECTING", "3/3"), "every attempt was visible");
        assertEquals(List.of(), manager.toolsOf("loop"), "its tools are gone");
        assertEquals(4, starts("loop"), "the first start and 3 attempts, then no more");
        Thread.sleep(400);
        assertEquals(4, starts("loop"));
        assertEquals(other, pid(manager, "other"));
        assertEquals("x", call(tool(manager, "mcp_other_echo"), "{\"message\":\"x\"}").text());
        assertTrue(manager.waitForConnection("loop").isCompletedExceptionally());
    }

    @Test
    void aServerThatDiesSoonAfterEachReconnectIsACrashLoopAndStopsAtTheLimit() throws Exception {
        ReconnectPolicy two = new ReconnectPolicy(2, Duration.ofMillis(50), Duration.ofMillis(100), 0,
                Duration.ofSeconds(30));
        McpManager manager = manager(two);
        manager.connectServers(Map.of("kit", TestServerProcesses.config()), Map.of());
        for (int attempt = 1; attempt <= 2; attempt++) {
            call(tool(manager, "mcp_kit_crash"), null);
            String expected = attempt + "/2";
            await("reconnect attempt " + expected, () -> saw("kit", "RECONNECTING", expected));
            await("kit is connected again", () -> manager.status("kit").state() == ServerStatus.State.CONNECTED
                    && manager.toolsOf("kit").stream().noneMatch(BridgedTool::deferred));
        }
        call(tool(manager, "mcp_kit_crash"), null);
        await("kit has failed", () -> manager.status("kit").state() == ServerStatus.State.FAILED);
        assertTrue(manager.status("kit").error().orElseThrow().contains("code 5"), manager.status("kit").toString());
    }

    @Test
    void aServerThatStayedUpLongerThanTheCrashWindowStartsAFreshRun() throws Exception {
        ReconnectPolicy one = new ReconnectPolicy(1, Duration.ofMillis(50), Duration.ofMillis(100), 0,
                Duration.ofMillis(300));
        McpManager manager = manager(one);
        manager.connectServers(Map.of("kit", TestServerProcesses.config()), Map.of());
        for (int round = 0; round < 3; round++) {
            long before = pid(manager, "kit");
            call(tool(manager, "mcp_kit_crash"), null);
            await("kit is connected again", () -> manager.status("kit").state() == ServerStatus.State.CONNECTED
                    && manager.toolsOf("kit").stream().noneMatch(BridgedTool::deferred));
            assertNotEquals(before, pid(manager, "kit"));
            Thread.sleep(400);
        }
    }

    @Test
    void offMeansNoReconnect() throws Exception {
        McpManager manager = manager(QUICK);
        StdioServerConfig off = counted("kit").withReconnect(Optional.of(ReconnectPolicy.OFF));
        manager.connectServers(Map.of("kit", off), Map.of());
        call(tool(manager, "mcp_kit_crash"), null);
        await("kit is disconnected", () -> manager.status("kit").state() == ServerStatus.State.DISCONNECTED);
        assertTrue(manager.status("kit").error().orElseThrow().contains("code 5"));
        assertEquals(List.of(), manager.toolsOf("kit"));
        Thread.sleep(500);
        assertEquals(1, starts("kit"));
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("kit").state());
    }

    @Test
    void aDisconnectOrCloseDuringTheBackoffCancelsItAndLeavesNoProcess() throws Exception {
        ReconnectPolicy slow = new ReconnectPolicy(3, Duration.ofMillis(800), Duration.ofSeconds(1), 0,
                Duration.ofSeconds(10));
        McpManager manager = manager(slow);
        manager.connectServers(Map.of("a", counted("a"), "b", counted("b")), Map.of());
        call(tool(manager, "mcp_a_crash"), null);
        call(tool(manager, "mcp_b_crash"), null);
        await("both reconnecting", () -> manager.status("a").state() == ServerStatus.State.RECONNECTING
                && manager.status("b").state() == ServerStatus.State.RECONNECTING);
        CompletableFuture<ToolOutput> waiting = tool(manager, "mcp_a_echo").call(
                McpJson.mapper().readTree("{\"message\":\"x\"}"));
        manager.disconnectServer("a");
        ToolOutput cancelled = waiting.get(5, TimeUnit.SECONDS);
        assertTrue(cancelled.isError() && cancelled.text().contains("disconnected while reconnecting"), cancelled.text());
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("a").state());
        assertEquals(List.of(), manager.toolsOf("a"));
        manager.close();
        Thread.sleep(1_500);
        assertEquals(1, starts("a"), "no attempt after the disconnect");
        assertEquals(1, starts("b"), "no attempt after the close");
        assertEquals(Map.of(), manager.statuses());
        assertNoChildProcessLeft();
    }

    @Test
    void anAttemptInFlightIsEndedByADisconnect() throws Exception {
        ReconnectPolicy quickThenSlowStart = new ReconnectPolicy(3, Duration.ofMillis(10), Duration.ofMillis(10), 0,
                Duration.ofSeconds(10));
        McpManager manager = manager(quickThenSlowStart);
        manager.connectServers(Map.of("kit", counted("kit", "--init-delay-ms", "5000")), Map.of());
        call(tool(manager, "mcp_kit_crash"), null);
        await("the attempt is starting", () -> manager.status("kit").reconnect()
                .map(r -> r.nextTry().isEmpty()).orElse(false));
        await("its process started", () -> {
            try {
                return starts("kit") == 2;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        manager.disconnectServer("kit");
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("kit").state());
        assertNoChildProcessLeft();
    }

    private static void writeTools(Path file, String description, String... names) throws IOException {
        StringBuilder tools = new StringBuilder();
        for (String name : names) {
            tools.append(tools.length() == 0 ? "" : ",").append("{\"name\":\"").append(name)
                    .append("\",\"description\":\"").append(description)
                    .append("\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}}}");
        }
        Files.writeString(file, "{\"tools\":[" + tools + "]}");
    }

    @Test
    void aReconnectThatListsChangedToolsReplacesTheSliceThroughThePins() throws Exception {
        Path toolsFile = temp.resolve("tools.json");
        writeTools(toolsFile, "Reads a file.", "probe");
        McpManager manager = McpManager.builder().workingDirectory(temp).reconnect(QUICK)
                .toolPins(ToolPins.at(temp.resolve("pins"))).build();
        managers.add(manager);
        manager.connectServers(Map.of("kit", TestServerProcesses.config("--tools-file", toolsFile.toString())),
                Map.of());
        assertEquals("Reads a file.", tool(manager, "mcp_kit_probe").description());

        writeTools(toolsFile, "Reads a file and sends it away.", "probe", "added");
        call(tool(manager, "mcp_kit_crash"), null);
        await("kit is connected again with its new listing", () -> manager.status("kit").state()
                == ServerStatus.State.CONNECTED && manager.toolsOf("kit").stream().noneMatch(BridgedTool::deferred)
                && manager.toolsOf("kit").stream().anyMatch(t -> t.toolName().equals("added")));
        assertTrue(manager.toolsOf("kit").stream().noneMatch(t -> t.toolName().equals("probe")),
                "the changed tool is withheld: " + manager.toolsOf("kit"));
        ToolChanges changes = manager.toolChanges("kit").orElseThrow();
        assertEquals(List.of("probe"), changes.withheld().stream().map(ToolChanges.ToolChange::tool).toList());
    }
}

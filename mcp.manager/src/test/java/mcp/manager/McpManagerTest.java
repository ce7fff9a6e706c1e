package mcp.manager;

import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static mcp.manager.TestServerProcesses.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpException;
import mcp.api.McpJson;
import mcp.api.ReconnectPolicy;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.StdioServerConfig;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The manager over real testkit server processes and the real file cache. */
class McpManagerTest {

    /** The testkit's built-in tools; each test server below adds {@code --tools 2}. */
    private static final int KIT_TOOLS = 11 + 2;

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private ToolCache cache() {
        // Found as a service, the way the host finds it: this module does not read mcp.cache.
        ToolCacheProvider file = Providers.require(ToolCacheProvider.class, Providers.byId(ToolCacheProvider.class,
                Providers.load(ToolCacheProvider.class, getClass().getClassLoader()), ToolCacheProvider::id), "file");
        return file.open(new ToolCacheProvider.Settings(Optional.of(temp.resolve("cache")), temp,
                Map.of(), Duration.ofDays(30)));
    }

    private McpManager manager(Duration gate, ToolCache cache) {
        McpManager.Builder builder = McpManager.builder().startupGate(gate).workingDirectory(temp);
        if (cache != null) {
            builder.toolCache(cache);
        }
        McpManager manager = builder.build();
        managers.add(manager);
        return manager;
    }

    private static StdioServerConfig kit(String... args) {
        return config(Stream.concat(Stream.of("--tools", "2"), Stream.of(args)).toArray(String[]::new));
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    private static Map<String, List<BridgedTool>> byServer(List<BridgedTool> tools) {
        return tools.stream().collect(Collectors.groupingBy(BridgedTool::serverName, LinkedHashMap::new,
                Collectors.toList()));
    }

    private static ToolOutput call(McpManager manager, String toolName, String args) {
        BridgedTool tool = manager.getTools().stream().filter(t -> t.name().equals(toolName)).findFirst()
                .orElseThrow(() -> new AssertionError("no tool " + toolName));
        return McpClient.await(tool.call(args == null ? null : McpJson.mapper().readTree(args)));
    }

    @Test
    void toolTextReachesTheAgentCleanAndBoundedWithOneWarningEach() throws Exception {
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        Map<String, BridgedTool> tools;
        try {
            McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
            manager.connectServers(Map.of("hostile", kit("--fault", "hostile-text")), Map.of());
            tools = manager.getTools().stream().collect(Collectors.toMap(BridgedTool::toolName, t -> t));
            manager.disconnectAll();
            // Again: the same texts are not warned about twice.
            manager.connectServers(Map.of("hostile", kit("--fault", "hostile-text")), Map.of());
        } finally {
            System.setErr(original);
        }
        assertEquals("Red alert, a title  and a bell.", tools.get("ansi").description());
        assertEquals(Optional.of("Cleared"), tools.get("ansi").definition().title());
        assertEquals("Reads files.", tools.get("tags").description());
        assertEquals("Safe etirw and hidden  text.", tools.get("bidi").description());
        assertEquals(2_048, tools.get("huge").description().length());
        assertEquals("Echoes the message back as text.", tools.get("echo").description(), "plain text is untouched");

        List<String> warnings = captured.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .filter(line -> line.contains("was changed before the agent sees it")).toList();
        assertEquals(5, warnings.size(), warnings::toString); // ansi: title and description; tags; bidi; huge
        assertTrue(warnings.stream().anyMatch(w -> w.contains("MCP server \"hostile\": the description of tool \"huge\"")
                && w.contains("cut from 102400 to 2048 characters")), warnings::toString);
    }

    @Test
    void theGateReturnsCachedToolsForSlowServersAndCallsWaitForThem() throws Exception {
        Map<String, ServerConfig> configs = new LinkedHashMap<>();
        for (String fast : List.of("fast1", "fast2", "fast3")) {
            configs.put(fast, kit());
        }
        configs.put("slow1", kit("--init-delay-ms", "6000"));
        configs.put("slow2", kit("--init-delay-ms", "6000"));

        // A first run fills the cache (and, with no cache entries yet, waits for the slow servers).
        ConnectResult first = manager(McpManager.DEFAULT_STARTUP_GATE, cache()).connectServers(configs, Map.of());
        assertEquals(Map.of(), first.errors());
        assertEquals(5 * KIT_TOOLS, first.tools().size());
        assertTrue(first.tools().stream().noneMatch(BridgedTool::deferred));
        managers.remove(0).close();

        // The second run, at the default 250 ms gate: the cache stands in for every server still
        // connecting. (A test server is a JVM that needs about half a second to start, so the quick
        // ones may be deferred at the gate too; they turn live soon after, the slow ones after 6 s.)
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, cache());
        long start = System.nanoTime();
        ConnectResult result = manager.connectServers(configs, Map.of());
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertTrue(millis < 2000, "returned after " + millis + " ms, not at the gate");
        assertEquals(Map.of(), result.errors());
        Map<String, List<BridgedTool>> tools = byServer(result.tools());
        assertEquals(Set.of("fast1", "fast2", "fast3", "slow1", "slow2"), tools.keySet());
        tools.values().forEach(slice -> assertEquals(KIT_TOOLS, slice.size()));
        for (String slow : List.of("slow1", "slow2")) {
            assertTrue(tools.get(slow).stream().allMatch(t -> t instanceof DeferredMcpTool), slow);
            assertEquals(ServerStatus.State.CONNECTING, manager.status(slow).state());
        }
        await("the quick servers are live", () -> Stream.of("fast1", "fast2", "fast3")
                .allMatch(fast -> manager.toolsOf(fast).stream().allMatch(t -> t instanceof McpTool)
                        && manager.status(fast).state() == ServerStatus.State.CONNECTED));

        // A deferred tool's call waits for its server, then succeeds.
        ToolOutput output = call(manager, "mcp_slow1_echo", "{\"message\":\"late\"}");
        assertEquals("late", output.text());
        assertFalse(output.isError());
        await("the slow servers' tools are live", () -> manager.getTools().stream().noneMatch(BridgedTool::deferred));
        assertEquals(5 * KIT_TOOLS, manager.getTools().size());
    }

    @Test
    void awaitConnectWaitsForAServerServedFromTheCacheWithinItsBound() {
        // Broken fails once, without retries: the gate would wait for those (it has no cache entry), and by then
        // slow would be connected.
        Map<String, ServerConfig> configs = Map.of("slow", kit("--init-delay-ms", "1500"),
                "broken", kit("--fault", "exit-at-start").withReconnect(Optional.of(ReconnectPolicy.OFF)));
        manager(McpManager.DEFAULT_STARTUP_GATE, cache()).connectServers(configs, Map.of());
        managers.remove(0).close();

        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, cache());
        manager.connectServers(configs, Map.of());
        assertEquals(ServerStatus.State.CONNECTING, manager.status("slow").state(), "deferred at the gate");
        assertEquals(ServerStatus.State.CONNECTING, manager.awaitConnect("slow", Optional.of(Duration.ZERO)).join()
                .state(), "a bound that passes first: still connecting");
        ServerStatus slow = manager.awaitConnect("slow", Optional.empty()).join();
        assertEquals(ServerStatus.State.CONNECTED, slow.state(), slow::toString);
        assertEquals(KIT_TOOLS, manager.toolsOf("slow").size());
        assertTrue(manager.toolsOf("slow").stream().noneMatch(BridgedTool::deferred),
                "its listed tools, not the cache's");
        assertEquals(ServerStatus.State.FAILED, manager.awaitConnect("broken", Optional.empty()).join().state());
        assertEquals(ServerStatus.State.DISCONNECTED, manager.awaitConnect("unknown", Optional.empty()).join().state(),
                "nothing in flight: at once");
    }

    @Test
    void withoutACacheEntryTheGateWaitsForTheServer() {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, cache());
        long start = System.nanoTime();
        ConnectResult result = manager.connectServers(Map.of("slow", kit("--init-delay-ms", "1500")), Map.of());
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis >= 1500, "returned after " + millis + " ms, before the server was ready");
        assertEquals(KIT_TOOLS, result.tools().size());
        assertTrue(result.tools().stream().noneMatch(BridgedTool::deferred));
    }

    @Test
    void aFailingServerNeverRemovesAHealthyServersTools() {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        manager.connectServers(Map.of("good", kit()), Map.of());
        List<String> before = manager.getTools().stream().map(BridgedTool::name).toList();

        Map<String, ServerConfig> bad = new LinkedHashMap<>();
        bad.put("dies", kit("--fault", "exit-at-start"));
        bad.put("bad name", kit());
        bad.put("nothing", StdioServerConfig.of(" ", List.of()));
        bad.put("missing", StdioServerConfig.of("/no/such/mcp-server", List.of()));
        ConnectResult result = manager.connectServers(bad, Map.of());

        assertEquals(before, manager.getTools().stream().map(BridgedTool::name).toList());
        assertEquals(before, result.tools().stream().map(BridgedTool::name).toList());
        assertEquals(Set.of("dies", "bad name", "nothing", "missing"), result.errors().keySet());
        String dies = result.errors().get("dies");
        assertTrue(dies.contains("\"dies\"") && dies.contains("code 3") && dies.contains("exit at start on purpose"), dies);
        assertEquals("Server \"bad name\": name may only contain letters, digits, '_', '.' and '-'",
                result.errors().get("bad name"));
        assertEquals("Server \"nothing\": stdio server requires \"command\" field", result.errors().get("nothing"));
        assertTrue(result.errors().get("missing").contains("/no/such/mcp-server"), result.errors().get("missing"));
        assertEquals(ServerStatus.State.FAILED, manager.status("dies").state());
        assertEquals(Optional.of(dies), manager.status("dies").error());
        assertEquals(ServerStatus.State.CONNECTED, manager.status("good").state());
    }

    @Test
    void removingGitNeverTouchesGitHub() {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        Map<String, ServerConfig> configs = new LinkedHashMap<>();
        configs.put("git", kit());
        configs.put("git_hub", kit());
        manager.connectServers(configs, Map.of());
        List<BridgedTool> gitHub = manager.toolsOf("git_hub");
        assertEquals(KIT_TOOLS, gitHub.size());
        assertTrue(gitHub.stream().allMatch(t -> t.name().startsWith("mcp_git_hub_")));

        manager.disconnectServer("git");
        assertEquals(gitHub.stream().map(BridgedTool::name).toList(),
                manager.getTools().stream().map(BridgedTool::name).toList());
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("git").state());
    }

    @Test
    void connectingOneServerKeepsTheOthersTools() {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        manager.connectServers(Map.of("one", kit()), Map.of());
        ConnectResult second = manager.connectServers(Map.of("two", kit(), "one", kit()), Map.of());
        assertEquals(Set.of("one", "two"), byServer(second.tools()).keySet());
        assertEquals(2 * KIT_TOOLS, manager.getTools().size());
    }

    @Test
    void aCrashedServerWithoutReconnectIsDisconnectedAtOnceAndItsCallsFailFast() throws Exception {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        manager.connectServers(Map.of("kit", kit().withReconnect(Optional.of(mcp.api.ReconnectPolicy.OFF)),
                "other", kit()), Map.of());
        BridgedTool slow = manager.getTools().stream().filter(t -> t.name().equals("mcp_kit_slow")).findFirst()
                .orElseThrow();
        CompletableFuture<ToolOutput> inFlight = slow.call(McpJson.mapper().readTree("{\"ms\":20000}"));

        ToolOutput crash = call(manager, "mcp_kit_crash", null);
        assertTrue(crash.isError());
        assertTrue(crash.text().startsWith("MCP error: Transport closed: process exited with code 5"), crash.text());
        assertTrue(crash.text().contains("fatal: crash on purpose"), crash.text());

        ToolOutput failed = inFlight.get(5, TimeUnit.SECONDS);
        assertTrue(failed.isError() && failed.text().contains("code 5"), failed.text());
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("kit").state());
        assertTrue(manager.status("kit").error().orElseThrow().contains("code 5"));
        assertEquals(Set.of("other"), byServer(manager.getTools()).keySet());
        assertEquals("MCP error: MCP server not connected: kit",
                McpClient.await(slow.call(null)).text());
    }

    @Test
    void listChangedReplacesTheServersSlice() throws Exception {
        List<String> changes = new java.util.concurrent.CopyOnWriteArrayList<>();
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, cache());
        manager.addListener(new ManagerListener() {
            @Override
            public void onToolsChanged(String serverName, List<BridgedTool> tools) {
                changes.add(serverName);
            }
        });
        manager.connectServers(Map.of("kit", kit()), Map.of());
        call(manager, "mcp_kit_change_tools", null);
        await("the new tool is listed", () -> manager.getTools().stream().anyMatch(t -> t.name().equals("mcp_kit_extra_0")));
        assertEquals(KIT_TOOLS + 1, manager.toolsOf("kit").size());
        // Listeners hear of a change on the manager's event thread, after the view has it: wait for them too.
        await("the listener heard of both changes", () -> changes.size() >= 2);
        assertTrue(changes.size() >= 2 && changes.stream().allMatch("kit"::equals), changes.toString());

        call(manager, "mcp_kit_change_tools", null);
        List<BridgedTool> refreshed = McpClient.await(manager.refreshServerTools("kit"));
        assertEquals(KIT_TOOLS + 2, refreshed.size());
    }

    @Test
    void aHandshakeThatEndsAfterDisconnectLeavesNothingBehind() throws Exception {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        CompletableFuture<ConnectResult> connecting = CompletableFuture.supplyAsync(
                () -> manager.connectServers(Map.of("late", kit("--init-delay-ms", "1500")), Map.of()));
        await("the server is connecting", () -> manager.status("late").state() == ServerStatus.State.CONNECTING);
        Thread.sleep(300);
        manager.disconnectServer("late");
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("late").state());
        ConnectResult result = connecting.get(10, TimeUnit.SECONDS);
        assertTrue(result.errors().containsKey("late"));
        assertEquals(List.of(), manager.getTools());
        Thread.sleep(1500);
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("late").state());
        assertEquals(List.of(), manager.getTools());
    }

    @Test
    void waitingForAnUnknownServerFailsClearly() {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        McpException error = org.junit.jupiter.api.Assertions.assertThrows(McpException.class,
                () -> McpClient.await(manager.waitForConnection("nope")));
        assertEquals("MCP server not connected: nope", error.getMessage());
    }

    @Test
    void toolsArePresentedAsTheSpecSays() {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        SourceMetadata source = new SourceMetadata("claude", "Claude Code", Optional.of(temp.resolve(".mcp.json")),
                SourceMetadata.Level.PROJECT);
        manager.connectServers(Map.of("Kit", kit()), Map.of("Kit", source));
        BridgedTool echo = manager.getTools().stream().filter(t -> t.toolName().equals("echo")).findFirst().orElseThrow();
        assertEquals("mcp_kit_echo", echo.name());
        assertEquals("Kit/echo", echo.label());
        assertEquals("mcp:Kit via Claude Code", echo.origin());
        assertEquals("object", echo.inputSchema().path("type").asString());
        BridgedTool fail = manager.getTools().stream().filter(t -> t.toolName().equals("fail")).findFirst().orElseThrow();
        assertTrue(fail.inputSchema().path("properties").isObject(), "an object schema always gets properties");

        ToolOutput output = McpClient.await(fail.call(null));
        assertEquals("Error: tool failed on purpose", output.text());
        assertEquals(Optional.of("claude"), output.details().providerId());
        assertEquals("fail", output.details().toolName());

        ToolOutput protocolError = McpClient.await(manager.getTools().stream()
                .filter(t -> t.toolName().equals("error")).findFirst().orElseThrow().call(null));
        assertEquals("MCP error -32603: internal failure on purpose", protocolError.text());
        assertTrue(protocolError.isError());
    }

    @Test
    void toolFiltersOfTheConfigApply() {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        StdioServerConfig base = kit();
        StdioServerConfig only = new StdioServerConfig(base.command(), base.args(), Map.of(), Optional.empty(),
                base.timeout(), true, Optional.empty(), Optional.of(List.of("echo", "add")), List.of("add"));
        manager.connectServers(Map.of("kit", only), Map.of());
        assertEquals(List.of("mcp_kit_echo"), manager.getTools().stream().map(BridgedTool::name).toList());
    }

    @Test
    void aCancelledCallStaysCancelled() throws Exception {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        manager.connectServers(Map.of("kit", kit()), Map.of());
        BridgedTool slow = manager.getTools().stream().filter(t -> t.toolName().equals("slow")).findFirst().orElseThrow();
        CompletableFuture<ToolOutput> call = slow.call(McpJson.mapper().readTree("{\"ms\":20000}"));
        Thread.sleep(200);
        call.cancel(true);
        assertTrue(call.isCancelled());
        assertEquals("still here", call(manager, "mcp_kit_echo", "{\"message\":\"still here\"}").text());
    }

    @Test
    void theCacheHoldsToolsButNoSecret() throws IOException {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, cache());
        StdioServerConfig withSecret = kit().withEnv(Map.of("API_TOKEN", "s3cr3t-t0ken-value"));
        manager.connectServers(Map.of("secretive", withSecret), Map.of());
        Path file = temp.resolve("cache/secretive.json");
        String content = Files.readString(file);
        assertTrue(content.contains("\"echo\""), content);
        assertFalse(content.contains("s3cr3t-t0ken-value"));
        assertInstanceOf(McpTool.class, manager.getTools().get(0));
    }

    @Test
    void disconnectAllEndsEveryServer() throws InterruptedException {
        McpManager manager = manager(McpManager.DEFAULT_STARTUP_GATE, null);
        manager.connectServers(Map.of("a", kit(), "b", kit(), "c", kit("--fault", "grandchild")), Map.of());
        assertEquals(3, byServer(manager.getTools()).size());
        manager.disconnectAll();
        assertEquals(List.of(), manager.getTools());
        for (String name : List.of("a", "b", "c")) {
            assertEquals(ServerStatus.State.DISCONNECTED, manager.status(name).state());
        }
        assertNoChildProcessLeft();
    }
}

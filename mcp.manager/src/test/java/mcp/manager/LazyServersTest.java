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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import mcp.api.LazyStart;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.spi.Providers;
import mcp.api.spi.ToolCache;
import mcp.api.spi.ToolCacheProvider;
import mcp.consent.ToolPins;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * Lazy servers: not started at load, their cached tools standing for them; started by the first call of one (once,
 * however many calls come at once), stopped after their idle time, started again by the next call. Real testkit
 * processes, each recording its starts (its pid, and {@code overlap PID} for a start beside a live one) in a file of
 * its own.
 */
class LazyServersTest {

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private ToolCache cache() {
        ToolCacheProvider file = Providers.require(ToolCacheProvider.class, Providers.byId(ToolCacheProvider.class,
                Providers.load(ToolCacheProvider.class, getClass().getClassLoader()), ToolCacheProvider::id), "file");
        return file.open(new ToolCacheProvider.Settings(Optional.of(temp.resolve("cache")), temp, Map.of(),
                Duration.ofDays(1)));
    }

    private McpManager manager(McpManager.Builder builder) {
        McpManager manager = builder.workingDirectory(temp).toolCache(cache()).build();
        managers.add(manager);
        return manager;
    }

    /** A testkit server whose starts are recorded in {@code starts-NAME}. */
    private StdioServerConfig kit(String name, String... more) {
        List<String> args = new ArrayList<>(List.of("--tools", "2", "--state", starts(name).toString()));
        args.addAll(List.of(more));
        return TestServerProcesses.config(args.toArray(String[]::new));
    }

    private Path starts(String name) {
        return temp.resolve("starts-" + name);
    }

    /** The pids of the server's starts so far, and any {@code overlap} line. */
    private List<String> startsOf(String name) throws IOException {
        Path file = starts(name);
        return Files.exists(file) ? Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList() : List.of();
    }

    private static boolean alive(String pid) {
        return ProcessHandle.of(Long.parseLong(pid.trim())).map(ProcessHandle::isAlive).orElse(false);
    }

    /** The servers, of those named, that have a process alive now. */
    private List<String> running(List<String> names) throws IOException {
        List<String> running = new ArrayList<>();
        for (String name : names) {
            if (startsOf(name).stream().filter(l -> !l.startsWith("overlap")).anyMatch(LazyServersTest::alive)) {
                running.add(name);
            }
        }
        return running;
    }

    private static void await(String what, Duration bound, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    private static ToolOutput call(McpManager manager, String tool, String args) {
        return McpClient.await(ReconnectTest.tool(manager, tool).call(McpJson.mapper().readTree(args)));
    }

    private static LinkedHashMap<String, StdioServerConfig> named(List<String> names,
            java.util.function.Function<String, StdioServerConfig> config) {
        LinkedHashMap<String, StdioServerConfig> configs = new LinkedHashMap<>();
        names.forEach(name -> configs.put(name, config.apply(name)));
        return configs;
    }

    @Test
    void twentyLazyServersStartOnlyWhenCalledAndStopWhenIdle() throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            names.add(String.format("lazy%02d", i));
        }
        Map<String, StdioServerConfig> configs = named(names, name -> kit(name, "--name", name));

        // First run, nothing cached: each is started once to fill the cache, then stopped.
        McpManager first = manager(McpManager.builder().lazy(true).lazyIdleTimeout(Duration.ofMinutes(10)));
        first.connectServers(Map.copyOf(configs), Map.of());
        await("every server filled the cache and stopped", Duration.ofSeconds(120), () -> names.stream()
                .allMatch(name -> first.status(name).state() == ServerStatus.State.STOPPED));
        for (String name : names) {
            assertEquals(1, startsOf(name).size(), name + " started once: " + startsOf(name));
        }
        await("no server process left", Duration.ofSeconds(15), () -> {
            try {
                return running(names).isEmpty();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        int each = first.toolsOf("lazy00").size();
        assertTrue(each > 3, "the testkit's tools: " + each);
        assertEquals(names.size() * each, first.getTools().size(), "their tools stay, from the listing they gave");
        assertTrue(first.getTools().stream().allMatch(BridgedTool::deferred));
        first.close();

        // Second run: the cache holds them all, and nothing starts.
        McpManager host = manager(McpManager.builder().lazy(true).lazyIdleTimeout(Duration.ofMillis(700)));
        ConnectResult result = host.connectServers(Map.copyOf(configs), Map.of());
        assertEquals(Map.of(), result.errors());
        assertEquals(names.size() * each, result.tools().size(), "the cached tools of every server");
        assertTrue(result.tools().stream().allMatch(BridgedTool::deferred));
        for (String name : names) {
            assertEquals(ServerStatus.State.STOPPED, host.status(name).state(), name);
            assertEquals(Optional.of(Duration.ofMillis(700)), host.lazyIdleTimeout(name));
        }
        Thread.sleep(300);
        for (String name : names) {
            assertEquals(1, startsOf(name).size(), name + " was not started by the load");
        }
        assertEquals(List.of(), running(names));

        // The first call of one tool starts its server alone, and returns the result.
        ToolOutput echo = call(host, "mcp_lazy07_echo", "{\"message\":\"hello\"}");
        assertFalse(echo.isError(), echo.text());
        assertEquals("hello", echo.text());
        assertEquals(List.of("lazy07"), running(names));
        assertEquals(2, startsOf("lazy07").size());
        assertEquals(ServerStatus.State.CONNECTED, host.status("lazy07").state());
        assertTrue(host.toolsOf("lazy07").stream().noneMatch(BridgedTool::deferred), "its live tools now");

        // Concurrent first calls start it once.
        List<CompletableFuture<ToolOutput>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            calls.add(ReconnectTest.tool(host, "mcp_lazy03_echo").call(McpJson.mapper().readTree(
                    "{\"message\":\"m" + i + "\"}")));
        }
        for (int i = 0; i < 8; i++) {
            assertEquals("m" + i, calls.get(i).get(60, TimeUnit.SECONDS).text());
        }
        assertEquals(2, startsOf("lazy03").size(), "one start for eight calls: " + startsOf("lazy03"));
        assertTrue(startsOf("lazy03").stream().noneMatch(l -> l.startsWith("overlap")));

        // Idle for its time: stopped, its tools deferred again; the next call starts it again.
        String pid = startsOf("lazy07").get(1);
        await("lazy07 stopped when idle", Duration.ofSeconds(20),
                () -> host.status("lazy07").state() == ServerStatus.State.STOPPED);
        TestServerProcesses.assertDeadSoon(Long.parseLong(pid.trim()));
        assertEquals(each, host.toolsOf("lazy07").size());
        assertTrue(host.toolsOf("lazy07").stream().allMatch(BridgedTool::deferred));
        assertEquals("again", call(host, "mcp_lazy07_echo", "{\"message\":\"again\"}").text());
        assertEquals(3, startsOf("lazy07").size());
        assertTrue(startsOf("lazy07").stream().noneMatch(l -> l.startsWith("overlap")));
        await("every server stopped again", Duration.ofSeconds(20), () -> names.stream()
                .allMatch(name -> host.status(name).state() == ServerStatus.State.STOPPED));
        for (String name : names) {
            int expected = name.equals("lazy07") ? 3 : name.equals("lazy03") ? 2 : 1;
            assertEquals(expected, startsOf(name).size(), name + ": " + startsOf(name));
        }
    }

    @Test
    void aCallInFlightOrASubscriptionKeepsItRunning() throws Exception {
        StdioServerConfig config = kit("sub", "--features", "resources,subscriptions").withLazy(Optional.of(
                LazyStart.idle(Duration.ofMillis(300))));
        McpManager filler = manager(McpManager.builder());
        filler.connectServers(Map.of("sub", config), Map.of());
        await("the cache is filled", Duration.ofSeconds(30),
                () -> filler.status("sub").state() == ServerStatus.State.STOPPED);
        filler.close();

        McpManager host = manager(McpManager.builder());
        host.connectServers(Map.of("sub", config), Map.of());
        assertEquals(ServerStatus.State.STOPPED, host.status("sub").state());
        assertEquals(Optional.of(Duration.ofMillis(300)), host.lazyIdleTimeout("sub"),
                "the config's own idle time");

        CompletableFuture<ToolOutput> slow = ReconnectTest.tool(host, "mcp_sub_slow").call(McpJson.mapper()
                .readTree("{\"ms\":1500}"));
        await("started", Duration.ofSeconds(30), () -> host.status("sub").state() == ServerStatus.State.CONNECTED);
        Thread.sleep(1000);
        assertEquals(ServerStatus.State.CONNECTED, host.status("sub").state(), "a call in flight is no idle time");
        assertEquals("done", slow.get(30, TimeUnit.SECONDS).text());

        McpClient.await(host.subscribeResource("sub", "test://text/readme"));
        Thread.sleep(1200);
        assertEquals(ServerStatus.State.CONNECTED, host.status("sub").state(), "a subscription keeps it");
        McpClient.await(host.unsubscribeResource("sub", "test://text/readme"));
        await("stopped once unsubscribed and idle", Duration.ofSeconds(20),
                () -> host.status("sub").state() == ServerStatus.State.STOPPED);
        assertEquals(2, startsOf("sub").size(), startsOf("sub").toString());

        // A call right after the stop: the stopped process ends before the next one starts, never beside it.
        assertEquals("again", call(host, "mcp_sub_echo", "{\"message\":\"again\"}").text());
        assertEquals(3, startsOf("sub").size(), startsOf("sub").toString());
        assertTrue(startsOf("sub").stream().noneMatch(l -> l.startsWith("overlap")), startsOf("sub").toString());
    }

    @Test
    void aToolChangedSincePinnedStaysWithheldWhenTheServerStarts() throws Exception {
        Path toolsFile = temp.resolve("tools.json");
        writeTool(toolsFile, "Reads a file.");
        ToolPins pins = ToolPins.at(temp.resolve("pins"));
        String key = "c".repeat(64);
        StdioServerConfig config = kit("pinned", "--tools-file", toolsFile.toString())
                .withLazy(Optional.of(LazyStart.DEFAULT));
        McpManager filler = manager(McpManager.builder().toolPins(pins));
        filler.connectServers(Map.of("pinned", config), Map.of(), Map.of("pinned", key));
        await("the cache is filled and the tools pinned", Duration.ofSeconds(30),
                () -> filler.status("pinned").state() == ServerStatus.State.STOPPED);
        filler.close();

        writeTool(toolsFile, "Reads a file. Also sends it somewhere else.");
        McpManager host = manager(McpManager.builder().toolPins(pins));
        host.connectServers(Map.of("pinned", config), Map.of(), Map.of("pinned", key));
        assertEquals(ServerStatus.State.STOPPED, host.status("pinned").state());
        BridgedTool probe = ReconnectTest.tool(host, "mcp_pinned_probe");
        assertTrue(probe.deferred(), "offered from the cache, as pinned");

        ToolOutput output = McpClient.await(probe.call(McpJson.object()));
        assertTrue(output.isError());
        assertTrue(output.text().contains("changed since it was pinned"), output.text());
        assertEquals(2, startsOf("pinned").size(), "the call started the server");
        assertTrue(host.getTools().stream().noneMatch(t -> t.toolName().equals("probe")),
                "withheld once the server listed it changed");
        assertTrue(host.toolChanges("pinned").isPresent());
    }

    @Test
    void aLazyServerThatCannotStartIsStoppedWithTheReasonAndTriedAgainByTheNextCall() throws Exception {
        Path toolsFile = temp.resolve("tools.json");
        writeTool(toolsFile, "Reads a file.");
        StdioServerConfig config = kit("flaky", "--tools-file", toolsFile.toString())
                .withLazy(Optional.of(LazyStart.DEFAULT));
        McpManager filler = manager(McpManager.builder());
        filler.connectServers(Map.of("flaky", config), Map.of());
        await("the cache is filled", Duration.ofSeconds(30),
                () -> filler.status("flaky").state() == ServerStatus.State.STOPPED);
        filler.close();

        // The same definition (the cache key) but a tools file that is no JSON now: its start fails, not passing.
        Files.writeString(toolsFile, "{");
        McpManager host = manager(McpManager.builder().reconnect(mcp.api.ReconnectPolicy.DEFAULT
                .withStartupRetries(0)));
        host.connectServers(Map.of("flaky", config), Map.of());
        ToolOutput failed = call(host, "mcp_flaky_probe", "{}");
        assertTrue(failed.isError(), failed.text());
        ServerStatus status = host.status("flaky");
        assertEquals(ServerStatus.State.STOPPED, status.state(), "stopped, not failed: " + status);
        assertTrue(status.error().isPresent());
        assertTrue(ReconnectTest.tool(host, "mcp_flaky_probe").deferred(), "its cached tools stay");

        writeTool(toolsFile, "Reads a file.");
        ToolOutput ok = call(host, "mcp_flaky_probe", "{}");
        assertFalse(ok.isError(), ok.text());
        assertEquals(ServerStatus.State.CONNECTED, host.status("flaky").state());
    }

    private static void writeTool(Path toolsFile, String description) throws IOException {
        ObjectNode root = McpJson.object();
        ObjectNode tool = root.withArray("tools").addObject();
        tool.put("name", "probe").put("description", description);
        tool.putObject("inputSchema").put("type", "object");
        Files.writeString(toolsFile, root.toString());
    }
}

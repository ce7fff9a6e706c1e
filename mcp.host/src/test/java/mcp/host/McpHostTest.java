package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.manager.BridgedTool;
import mcp.manager.McpClient;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The embedding API over real testkit server processes, configured in a native config file. */
class McpHostTest {

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private Path config(Map<String, List<String>> servers) throws IOException {
        return HostFixtures.config(temp, servers);
    }

    private McpHost.Builder host(Path config) {
        return McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache"));
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        HostFixtures.awaitTrue(what, 15, condition);
    }

    private static Set<String> servers(List<BridgedTool> tools) {
        return tools.stream().map(BridgedTool::serverName).collect(Collectors.toSet());
    }

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    @Test
    void loadReturnsToolsAndClosingEndsEveryServer() throws Exception {
        Path config = config(Map.of("a", List.of(), "b", List.of("--fault", "grandchild")));
        try (McpHost host = host(config).build()) {
            LoadResult result = host.load();
            assertEquals(Map.of(), result.errors());
            assertEquals(Set.of("a", "b"), servers(result.tools()));
            // Two servers; the stdio transport's watchdog (a shell, see its README guarantee) is not one.
            assertEquals(2, ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                    .filter(p -> !p.info().commandLine().orElse("").endsWith("mcp-stdio-watchdog")).count());
        }
        assertEquals(List.of(), ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList(),
                "closing the host ends every server and its children");
    }

    @Test
    void aBrokenConfigFileIsAnErrorNotACrash() throws IOException {
        Path config = temp.resolve("mcp.json");
        Files.writeString(config, "{\"mcpServers\": {\"x\": ");
        try (McpHost host = host(config).build()) {
            LoadResult result = host.load();
            assertEquals(List.of(), result.tools());
            assertFalse(result.discovery().problems().isEmpty());
            assertTrue(result.discovery().problems().get(0).describe().contains("mcp.json"),
                    result.discovery().problems().get(0).describe());
        }
    }

    @Test
    void mcpDisabledStartsNothing() throws IOException {
        Path config = config(Map.of("a", List.of()));
        try (McpHost host = host(config).mcpEnabled(false).build()) {
            assertEquals(List.of(), host.load().tools());
            assertEquals(0, ProcessHandle.current().children().count());
        }
    }

    @Test
    void reloadPicksUpAnEditedConfigWithoutRestartingTheSession() throws Exception {
        Path config = config(Map.of("one", List.of()));
        try (ToolSession session = host(config).build().openSession()) {
            session.addTool(new EchoAppTool());
            assertEquals(Set.of("one"), mcpServers(session));
            config(Map.of("two", List.of("--tools", "1")));
            LoadResult reloaded = session.reload();
            assertEquals(Map.of(), reloaded.errors());
            assertEquals(Set.of("two"), mcpServers(session));
            assertTrue(session.tool("app_echo").isPresent(), "the application's own tools stay");
            assertEquals("hi", McpClient.await(session.tool("mcp_two_echo").orElseThrow()
                    .call(json("{\"message\":\"hi\"}"))).text());
        }
    }

    @Test
    void reloadChangedRestartsOnlyTheServerWhoseEntryChanged() throws Exception {
        Path config = config(Map.of("same", List.of(), "edited", List.of()));
        try (ToolSession session = host(config).build().openSession()) {
            long same = pid(session, "same");
            long edited = pid(session, "edited");
            config(Map.of("same", List.of(), "edited", List.of("--tools", "1")));

            ReloadResult reloaded = session.reloadChanged();

            assertEquals(List.of("edited"), reloaded.changes().changed());
            assertEquals(List.of("same"), reloaded.changes().kept());
            assertEquals(reloaded.load(), session.lastLoad());
            assertEquals(same, pid(session, "same"), "the same process");
            assertTrue(session.tool("mcp_edited_tool_0").isPresent());
            assertFalse(edited == pid(session, "edited"));

            Files.writeString(config, "{\"mcpServers\": {\"same\": ");
            ReloadResult broken = session.reloadChanged();
            assertEquals(Set.of("same", "edited"), broken.held().keySet(), "a file that does not parse stops nothing");
            assertFalse(broken.changedAnything());
            assertEquals(same, pid(session, "same"));
        }
    }

    private static long pid(ToolSession session, String server) {
        return Long.parseLong(McpClient.await(session.tool("mcp_" + server + "_pid").orElseThrow()
                .call(json("{}"))).text().trim());
    }

    private static Set<String> mcpServers(ToolSession session) {
        return session.tools().stream().filter(AgentTool::isMcp).map(t -> t.label().split("/")[0])
                .collect(Collectors.toSet());
    }

    @Test
    void aServerThatConnectsAfterTheGateIsReBound() throws Exception {
        Path config = config(Map.of("fast", List.of(), "late", List.of("--init-delay-ms", "1500")));
        // A first run puts late's tools in the cache, so the second run's gate returns them deferred.
        try (McpHost warmUp = host(config).build()) {
            assertEquals(Map.of(), warmUp.load().errors());
        }
        try (ToolSession session = host(config).startupGate(Duration.ofMillis(1200)).build().openSession()) {
            assertTrue(session.lastLoad().tools().stream().anyMatch(t -> t.deferred() && t.serverName().equals("late")));
            List<List<AgentTool>> changes = new java.util.concurrent.CopyOnWriteArrayList<>();
            session.onToolsChanged(changes::add);
            awaitTrue("late is re-bound live", () -> session.lastLoad().manager().getTools().stream()
                    .noneMatch(BridgedTool::deferred) && !changes.isEmpty());
            assertEquals(Set.of("fast", "late"), mcpServers(session));
            assertEquals("done", McpClient.await(session.tool("mcp_late_echo").orElseThrow()
                    .call(json("{\"message\":\"done\"}"))).text());
        }
    }

    @Test
    void aToolCacheFilledUnderAnotherHomeStillGivesTheServersTools() throws Exception {
        // Slower than the gate, with prompts and resources: its cache entry holds more than tools.
        Path config = config(Map.of("late", List.of("--init-delay-ms", "1000", "--features", "prompts,resources")));
        Path cache = temp.resolve("shared-cache");
        // No XDG_STATE_HOME: the pins follow the home.
        McpHost.Builder first = host(config).environment(Map.of())
                .home(Files.createDirectories(temp.resolve("home-a"))).cacheDirectory(cache);
        try (McpHost host = first.build()) {
            assertEquals(Map.of(), host.load().errors());
        }
        assertTrue(Files.isDirectory(temp.resolve("home-a/.local/state/mcp-host/pins")), "pinned under the first home");

        // Another home: the cache is warm, but its pins are not there.
        McpHost.Builder second = host(config).environment(Map.of())
                .home(Files.createDirectories(temp.resolve("home-b"))).cacheDirectory(cache)
                .startupGate(Duration.ofMillis(250));
        try (McpHost host = second.build()) {
            LoadResult result = host.load();
            assertEquals(Map.of(), result.errors());
            assertTrue(result.tools().stream().anyMatch(t -> t.toolName().equals("echo") && !t.deferred()),
                    "waited for as on a cache miss: " + result.tools());
        }
    }

    @Test
    void theBuildersCallLimitsReachTheServers() throws Exception {
        Path config = config(Map.of("kit", List.of()));
        mcp.api.CallLimits capped = new mcp.api.CallLimits(java.util.Optional.empty(),
                java.util.Optional.of(Duration.ofMillis(300)), java.util.Optional.empty());
        try (ToolSession session = host(config).callLimits(capped).build().openSession()) {
            ToolOutput slow = McpClient.await(session.tool("mcp_kit_slow").orElseThrow()
                    .call(json("{\"ms\":5000}")));
            assertTrue(slow.isError() && slow.text().contains("300"), slow.text());
        }
    }

    @Test
    void aSubagentCallsThroughItsParentsConnectionsAndStartsNothing() throws Exception {
        Path config = config(Map.of("kit", List.of()));
        try (ToolSession parent = host(config).build().openSession()) {
            Set<Long> before = ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet());
            ToolSession child = parent.subagent();
            assertEquals(parent.tools().stream().map(AgentTool::name).toList(),
                    child.tools().stream().map(AgentTool::name).toList());
            AgentTool proxy = child.tool("mcp_kit_pid").orElseThrow();
            assertEquals(parent.tool("mcp_kit_pid").orElseThrow().description(), proxy.description());
            ToolOutput viaChild = McpClient.await(proxy.call(null));
            ToolOutput viaParent = McpClient.await(parent.tool("mcp_kit_pid").orElseThrow().call(null));
            assertEquals(viaParent.text(), viaChild.text(), "the same server process answers both");
            assertEquals(before, ProcessHandle.current().descendants().map(ProcessHandle::pid).collect(Collectors.toSet()),
                    "the subagent started no process");
            child.close();
            assertEquals("still", McpClient.await(parent.tool("mcp_kit_echo").orElseThrow()
                    .call(json("{\"message\":\"still\"}"))).text(), "closing a subagent leaves the parent's servers");
        }
    }

    @Test
    void aForgottenHostStillEndsItsServersWhenTheJvmExits() throws Exception {
        Path config = config(Map.of("kit", List.of("--fault", "grandchild")));
        String classPath = Stream.of(System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path", ""))
                .filter(p -> !p.isEmpty()).collect(Collectors.joining(java.io.File.pathSeparator));
        Process embedder = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-cp", classPath,
                ForgetfulEmbedder.class.getName(), config.toString(), temp.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String output;
        try {
            assertTrue(embedder.waitFor(60, TimeUnit.SECONDS), "the embedder JVM exits");
            output = new String(embedder.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } finally {
            embedder.destroyForcibly();
        }
        java.util.regex.Matcher pid = java.util.regex.Pattern.compile("grandchild pid (\\d+)").matcher(output);
        assertTrue(pid.find(), output);
        long serverPid = Long.parseLong(pid.group(1));
        awaitTrue("the server's child is gone with the JVM that forgot to close",
                () -> ProcessHandle.of(serverPid).map(p -> !p.isAlive()).orElse(true));
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"TERM", "INT", "HUP"})
    void aSignalledHostClosesEveryServerGracefullyWithoutWarnings(String signal) throws Exception {
        // A signal this JVM ignores (nohup ignores HUP, a background job INT) is ignored by the host it starts too, and
        // the JVM then leaves it to the default: nothing to test about the host.
        org.junit.jupiter.api.Assumptions.assumeFalse(ignoredHere(signal), "SIG" + signal + " is ignored by how this"
                + " test's JVM was started, so the host it starts would ignore it as well");
        Path first = temp.resolve("first.marker");
        Path second = temp.resolve("second.marker");
        Path config = config(Map.of("first", List.of("--exit-marker", first.toString()),
                "second", List.of("--exit-marker", second.toString())));
        String classPath = Stream.of(System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path", ""))
                .filter(p -> !p.isEmpty()).collect(Collectors.joining(java.io.File.pathSeparator));
        Path stderr = temp.resolve("host.err");
        Process host = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), "-cp", classPath,
                SignalledHost.class.getName(), config.toString(), temp.toString())
                .redirectError(stderr.toFile()).start();
        try {
            java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(host.getInputStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
            String ready = out.readLine();
            assertTrue(ready != null && ready.startsWith("ready "), "the host said: " + ready + "\n"
                    + Files.readString(stderr));
            // The stdio transport's watchdog (a shell that outlives no server) is not a server.
            Set<Long> servers = host.descendants()
                    .filter(p -> !p.info().commandLine().orElse("").endsWith("mcp-stdio-watchdog"))
                    .map(ProcessHandle::pid).collect(Collectors.toSet());
            assertEquals(2, servers.size(), "two server processes: " + servers);
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(host.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            // Each server needs well under a second for its stdin EOF; SIGTERM would come 2 s after it.
            assertTrue(host.waitFor(30, TimeUnit.SECONDS), "the host exits on SIG" + signal);
            for (Path marker : List.of(first, second)) {
                assertTrue(Files.exists(marker), marker.getFileName() + ": the server saw its stdin end (not a kill)\n"
                        + Files.readString(stderr));
                assertEquals("stdin-eof", Files.readString(marker).trim());
            }
            String log = Files.readString(stderr);
            assertFalse(log.contains("disconnected"), "no false disconnected warning:\n" + log);
            assertFalse(log.contains("WARN"), "no warning at all:\n" + log);
            for (long pid : servers) {
                awaitTrue("server " + pid + " is gone", () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
            }
        } finally {
            host.destroyForcibly();
            host.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** @return whether this process ignores the signal, as {@code SigIgn} in {@code /proc/self/status} says */
    private static boolean ignoredHere(String signal) throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return false;
        }
        int number = switch (signal) {
            case "HUP" -> 1;
            case "INT" -> 2;
            case "TERM" -> 15;
            default -> throw new IllegalArgumentException(signal);
        };
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                long mask = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
                return (mask >>> (number - 1) & 1) == 1;
            }
        }
        return false;
    }

    /** An application tool beside the MCP tools. */
    private static final class EchoAppTool implements AgentTool {
        @Override
        public String name() {
            return "app_echo";
        }

        @Override
        public String label() {
            return "app/echo";
        }

        @Override
        public String description() {
            return "Echoes, in the application";
        }

        @Override
        public JsonNode inputSchema() {
            return McpJson.object().put("type", "object");
        }

        @Override
        public String origin() {
            return "app";
        }

        @Override
        public CompletableFuture<ToolOutput> call(JsonNode arguments) {
            return CompletableFuture.completedFuture(new ToolOutput(arguments.toString(), false,
                    new ToolOutput.Details("app", "echo", false, List.of(), java.util.Optional.empty(),
                            java.util.Optional.empty(), java.util.Optional.empty())));
        }
    }
}

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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.ReconnectPolicy;
import mcp.api.spi.ConsentHandler;
import mcp.consent.Approvals;
import mcp.manager.ServerStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session's start with servers that are slow or fail their first starts: the wait for an uncached server is
 * bounded and its tools reach the session later as a tool-list change; a retry never starts a server the user no
 * longer approves. Real testkit processes.
 */
class StartupHostTest {

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private static List<String> names(List<AgentTool> tools) {
        return tools.stream().map(AgentTool::name).toList();
    }

    /**
     * A native config of one testkit server pinned to the handshake era: unpinned, its first start would get the era
     * probe, and a process that exits at once would look like a server that closes on the probe, started once more
     * within the same attempt. Pinned, each start is one attempt.
     */
    private static Path pinnedConfig(Path dir, String name, List<String> args) throws IOException {
        Path file = HostFixtures.config(dir, Map.of(name, args));
        tools.jackson.databind.node.ObjectNode root = (tools.jackson.databind.node.ObjectNode) mcp.api.McpJson.mapper()
                .readTree(Files.readString(file));
        ((tools.jackson.databind.node.ObjectNode) root.path("mcpServers").path(name)).put("protocolVersion",
                "2025-11-25");
        Files.writeString(file, root.toString());
        return file;
    }

    @Test
    void aSessionGoesOnWithoutAnUncachedSlowServerAndItsToolsArriveAsAToolListChange() throws Exception {
        Path config = HostFixtures.config(temp, Map.of("slow", List.of("--init-delay-ms", "6000")));
        McpHost.Builder builder = McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).uncachedWait(Duration.ofMillis(300));
        long start = System.nanoTime();
        try (ToolSession session = builder.build().openSession()) {
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 5_000, "the session opened after " + millis + " ms; the server needs more than 6 s");
            assertEquals(Map.of(), session.lastLoad().errors());
            assertFalse(names(session.tools()).contains("mcp_slow_echo"), "not yet: " + names(session.tools()));
            List<List<String>> heard = new CopyOnWriteArrayList<>();
            session.onToolsChanged(tools -> heard.add(names(tools)));
            ToolSession child = session.subagent();

            HostFixtures.awaitTrue("the session's listener hears the slow server's tools", 20,
                    () -> heard.stream().anyMatch(tools -> tools.contains("mcp_slow_echo")));
            assertTrue(names(session.tools()).contains("mcp_slow_echo"));
            // The subagent hears the change on a listener of its own, which may come after the session's.
            HostFixtures.awaitTrue("a subagent follows too", 20, () -> names(child.tools()).contains("mcp_slow_echo"));
            assertEquals("hi", session.tool("mcp_slow_echo").orElseThrow()
                    .call(mcp.api.McpJson.mapper().readTree("{\"message\":\"hi\"}")).get().text());
        }
    }

    @Test
    void aRetryNeverStartsAServerTheUserNoLongerApproves() throws Exception {
        Path project = Files.createDirectories(temp.resolve("project"));
        Files.createDirectories(project.resolve(".git"));
        Path state = temp.resolve("starts");
        Path projectConfig = pinnedConfig(Files.createDirectories(project.resolve(".mcp-host")), "proj",
                List.of("--fail-first", "1", "--state", state.toString()));
        Approvals approvals = Approvals.at(temp.resolve("approvals.json"));
        AtomicReference<ConsentHandler.Decision> decision = new AtomicReference<>(ConsentHandler.Decision.APPROVE);
        ReconnectPolicy slowRetry = new ReconnectPolicy(5, Duration.ofMillis(1_500), Duration.ofSeconds(3), 0,
                Duration.ofSeconds(10));
        McpHost.Builder builder = McpHost.builder().workingDirectory(project).home(temp.resolve("home"))
                .environment(Map.of("MCP_HOST_CLAUDE_MANAGED_DIR", temp.resolve("managed-claude").toString(),
                        "GEMINI_CLI_SYSTEM_SETTINGS_PATH", temp.resolve("managed-gemini.json").toString()))
                .managedPolicy(temp.resolve("managed-mcp-host.json")).approvals(approvals)
                .consentHandler(server -> decision.get()).reconnect(slowRetry).uncachedWait(Duration.ZERO);
        try (McpHost host = builder.build()) {
            host.load();
            HostFixtures.awaitTrue("its first start failed and a retry is scheduled", 20,
                    () -> host.manager().status("proj").reconnect().filter(r -> r.nextTry().isPresent()).isPresent());
            assertEquals(1, Files.readAllLines(state).size());

            // The user takes the approval back before the retry is due; the reload asks, and is told no.
            assertTrue(approvals.revoke(projectConfig, "proj"));
            decision.set(ConsentHandler.Decision.DENY);
            LoadResult reloaded = host.reload();
            assertTrue(reloaded.discovery().skipped().stream().anyMatch(s -> s.name().equals("proj")),
                    "not started: " + reloaded.discovery().skipped());

            Thread.sleep(2_500);
            assertEquals(1, Files.readAllLines(state).size(), "the retry that was due never started it");
            assertEquals(ServerStatus.State.DISCONNECTED, host.manager().status("proj").state());
        }
    }

    @Test
    void aLoadDoesNotGiveUpOnAServerWhoseFirstStartFailed() throws IOException {
        Path state = temp.resolve("starts");
        Path config = pinnedConfig(temp, "flaky", List.of("--fail-first", "2", "--state", state.toString()));
        ReconnectPolicy quick = new ReconnectPolicy(5, Duration.ofMillis(100), Duration.ofMillis(400), 0,
                Duration.ofSeconds(10));
        try (McpHost host = McpHost.builder().configFile(config).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).reconnect(quick).build()) {
            LoadResult load = host.load();
            assertEquals(Map.of(), load.errors());
            assertTrue(load.tools().stream().anyMatch(t -> t.name().equals("mcp_flaky_echo")), load.tools()::toString);
            List<String> starts = Files.readAllLines(state);
            assertEquals(3, starts.size(), "two failed starts, up at the third: " + starts);
        }
    }
}

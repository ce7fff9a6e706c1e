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
import mcp.api.McpJson;
import mcp.config.SkippedServer;
import mcp.manager.McpClient;
import mcp.manager.ServerStatus;
import mcp.manager.ToolOutput;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * Lazy servers through the host: consent first (a project's lazy server is never started before it is approved, not
 * even to fill the cache), and their cached tools are searchable in a session before any of them runs. Real testkit
 * processes that record their starts.
 */
class LazyHostTest {

    @TempDir
    Path temp;

    private Path home;
    private Path project;

    @BeforeEach
    void scratchHomeAndProject() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        Files.createDirectories(project.resolve(".git"));
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private McpHost.Builder host() {
        return McpHost.builder().workingDirectory(project).home(home)
                .environment(Map.of("MCP_HOST_CLAUDE_MANAGED_DIR", temp.resolve("managed-claude").toString(),
                        "GEMINI_CLI_SYSTEM_SETTINGS_PATH", temp.resolve("managed-gemini.json").toString()))
                .managedPolicy(temp.resolve("managed-mcp-host.json"))
                .cacheDirectory(temp.resolve("cache"))
                .startupGate(Duration.ofSeconds(30));
    }

    /** A lazy testkit server entry that records its starts in {@code starts-NAME}. */
    private ObjectNode lazyEntry(String name) {
        List<String> command = TestServers.command("--state", starts(name).toString());
        ObjectNode entry = McpJson.object().put("command", command.get(0)).put("lazy", true);
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        return entry;
    }

    private Path starts(String name) {
        return temp.resolve("starts-" + name);
    }

    private int startsOf(String name) throws IOException {
        return Files.exists(starts(name)) ? (int) Files.readAllLines(starts(name)).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("overlap")).count() : 0;
    }

    private static void write(Path file, Map<String, ObjectNode> servers) throws IOException {
        ObjectNode root = McpJson.object();
        ObjectNode entries = root.putObject("mcpServers");
        servers.forEach(entries::set);
        Files.createDirectories(file.getParent());
        Files.writeString(file, root.toString());
    }

    private static void awaitStopped(McpHost host, String name) throws InterruptedException {
        HostFixtures.awaitTrue(name + " filled the cache and stopped", 60,
                () -> host.manager().status(name).state() == ServerStatus.State.STOPPED);
    }

    @Test
    void aProjectsLazyServerIsNeverStartedBeforeItIsApproved() throws Exception {
        write(project.resolve(".mcp-host/mcp.json"), Map.of("proj", lazyEntry("proj")));
        write(home.resolve(".config/mcp-host/mcp.json"), Map.of("mine", lazyEntry("mine")));

        // Not approved: not started, not even to fill the cache; the user's own lazy server fills it.
        try (McpHost host = host().lazy(true).build()) {
            LoadResult loaded = host.load();
            assertTrue(loaded.discovery().skipped().stream().anyMatch(skipped -> skipped.name().equals("proj")
                    && skipped.reason() == SkippedServer.Reason.NOT_APPROVED), loaded.discovery().skipped().toString());
            awaitStopped(host, "mine");
            assertTrue(host.manager().toolsOf("proj").isEmpty());
            assertEquals(ServerStatus.State.DISCONNECTED, host.manager().status("proj").state());
        }
        assertEquals(0, startsOf("proj"));
        assertEquals(1, startsOf("mine"));

        // Approved, it fills the cache like any lazy server; taken back, it is not started even with a cache entry.
        try (McpHost host = host().approveProjectServers(true).build()) {
            host.load();
            awaitStopped(host, "proj");
        }
        assertEquals(1, startsOf("proj"));
        try (McpHost host = host().lazy(true).build()) {
            ToolSession session = host.openSession();
            assertTrue(session.tool("mcp_proj_echo").isEmpty(), "an unapproved server's cached tools are not offered");
            assertTrue(session.tool("mcp_mine_echo").isPresent());
            assertEquals(ServerStatus.State.STOPPED, host.manager().status("mine").state());
        }
        assertEquals(1, startsOf("proj"));
        assertEquals(1, startsOf("mine"), "a cached lazy server is not started by a load");
    }

    @Test
    void theCachedToolsOfStoppedServersAreSearchableAndAFoundToolStartsItsServer() throws Exception {
        write(home.resolve(".config/mcp-host/mcp.json"), Map.of("alpha", lazyEntry("alpha"), "beta",
                lazyEntry("beta")));
        try (McpHost filler = host().build()) {
            filler.load();
            awaitStopped(filler, "alpha");
            awaitStopped(filler, "beta");
        }
        try (McpHost host = host().toolSearch(ToolSearch.OFF.withMode(ToolSearch.Mode.ON)).build()) {
            ToolSession session = host.openSession();
            assertEquals(ServerStatus.State.STOPPED, host.manager().status("alpha").state());
            List<AgentTool> found = session.searchTools("echo the message back", 5);
            assertFalse(found.isEmpty());
            assertTrue(found.stream().anyMatch(tool -> tool.name().equals("mcp_beta_echo")),
                    found.stream().map(AgentTool::name).toList().toString());
            assertEquals(1, startsOf("beta"), "searching starts nothing");

            ToolOutput echo = McpClient.await(session.tool("mcp_beta_echo").orElseThrow()
                    .call(McpJson.object().put("message", "found")));
            assertEquals("found", echo.text());
            assertEquals(2, startsOf("beta"));
            assertEquals(1, startsOf("alpha"));
            assertEquals(ServerStatus.State.CONNECTED, host.manager().status("beta").state());
        }
    }
}

package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.config.DiscoveryProblem;
import mcp.manager.McpClient;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host that watches its config files, over real files in a scratch home and project and real testkit server
 * processes: what changed is reloaded, and only that. Timing bounds are generous: the machine may be slow and busy.
 */
class ConfigWatcherTest {

    private static final String THREAD = "mcp-host-config-watcher";
    private static final int SECONDS = 30;

    @TempDir
    Path temp;

    private Path home;
    private Path project;
    /** mcp-host's user-level file. */
    private Path userFile;
    private final List<ReloadResult> reloads = new CopyOnWriteArrayList<>();
    private final List<List<Path>> changedFiles = new CopyOnWriteArrayList<>();

    @BeforeEach
    void scratchHomeAndProject() throws IOException {
        home = Files.createDirectories(temp.resolve("home"));
        project = Files.createDirectories(temp.resolve("project"));
        Files.createDirectories(project.resolve(".git"));
        userFile = home.resolve(".config/mcp-host/mcp.json");
        Files.createDirectories(userFile.getParent());
        // Claude Code's own approval of the project's .mcp.json servers; mcp-host's is given below.
        Files.createDirectories(home.resolve(".claude"));
        Files.writeString(home.resolve(".claude/settings.json"), "{\"enableAllProjectMcpServers\": true}");
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
        HostFixtures.awaitTrue("the watcher's thread ended", SECONDS, () -> !watcherThreadAlive());
    }

    private McpHost host() {
        return McpHost.builder().workingDirectory(project).home(home)
                .environment(Map.of("MCP_HOST_CLAUDE_MANAGED_DIR", temp.resolve("managed-claude").toString(),
                        "GEMINI_CLI_SYSTEM_SETTINGS_PATH", temp.resolve("managed-gemini.json").toString()))
                .managedPolicy(temp.resolve("managed-mcp-host.json"))
                .approveProjectServers(true)
                .cacheDirectory(temp.resolve("cache"))
                .build();
    }

    private ConfigWatcher watch(McpHost host) {
        return host.watchConfigs((files, result) -> {
            changedFiles.add(files);
            reloads.add(result);
        });
    }

    private static void write(Path file, Map<String, List<String>> servers) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, HostFixtures.mcpServers(servers));
    }

    private ReloadResult awaitReload(String what, Predicate<ReloadResult> condition) throws InterruptedException {
        HostFixtures.awaitTrue(what, SECONDS, () -> reloads.stream().anyMatch(condition));
        return reloads.stream().filter(condition).findFirst().orElseThrow();
    }

    private static long pid(ToolSession session, String server) {
        ToolOutput output = McpClient.await(session.tool("mcp_" + server + "_pid").orElseThrow(
                () -> new AssertionError("no pid tool of " + server + " in " + names(session)))
                .call(McpJson.object()));
        assertFalse(output.isError(), output.text());
        return Long.parseLong(output.text().trim());
    }

    private static Set<String> names(ToolSession session) {
        return session.tools().stream().map(AgentTool::name).collect(Collectors.toSet());
    }

    /** Waits until the session has the tool: it follows the manager's changes on the manager's event thread. */
    private static void awaitTool(ToolSession session, String tool) throws InterruptedException {
        HostFixtures.awaitTrue("the session has " + tool, SECONDS, () -> names(session).contains(tool));
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static boolean watcherThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(THREAD) && t.isAlive());
    }

    @Test
    void editingOneServersEntryRestartsThatServerOnly() throws Exception {
        write(userFile, Map.of("steady", List.of("--tools", "1"), "edited", List.of("--tools", "1")));
        McpHost host = host();
        try (ToolSession session = host.openSession()) {
            long steady = pid(session, "steady");
            long edited = pid(session, "edited");
            List<Set<String>> heard = new CopyOnWriteArrayList<>();
            session.onToolsChanged(tools -> heard.add(tools.stream().map(AgentTool::name).collect(Collectors.toSet())));
            ConfigWatcher watcher = watch(host);
            HostFixtures.awaitTrue("it watches", SECONDS, () -> watcher.watchedDirectories()
                    .contains(userFile.getParent()));

            write(userFile, Map.of("steady", List.of("--tools", "1"), "edited", List.of("--tools", "2")));

            ReloadResult reload = awaitReload("the edited server is restarted",
                    r -> r.changes().changed().equals(List.of("edited")));
            assertEquals(List.of("steady"), reload.changes().kept());
            assertEquals(List.of(), reload.changes().removed());
            assertEquals(Map.of(), reload.load().errors());
            assertEquals(List.of(List.of(userFile)), changedFiles.subList(0, 1), "the file the system named");
            awaitTool(session, "mcp_edited_tool_1");
            assertTrue(heard.stream().anyMatch(tools -> tools.contains("mcp_edited_tool_1")),
                    "the session's listeners heard it");
            assertEquals(steady, pid(session, "steady"), "the other server is the same process");
            assertNotEquals(edited, pid(session, "edited"));
            HostFixtures.awaitTrue("the edited server's old process ended", SECONDS, () -> !alive(edited));
        }
    }

    @Test
    void aProjectMcpJsonCreatedLaterStartsItsServer() throws Exception {
        write(userFile, Map.of("user", List.of()));
        McpHost host = host();
        try (ToolSession session = host.openSession()) {
            watch(host);
            Path mcpJson = project.resolve(".mcp.json");
            assertTrue(session.lastLoad().discovery().consultedFiles().stream()
                    .anyMatch(file -> file.path().equals(mcpJson)), "looked for, though missing");

            write(mcpJson, Map.of("proj", List.of()));

            ReloadResult reload = awaitReload("the project server starts", r -> r.changes().added().equals(List.of("proj")));
            assertEquals(List.of("user"), reload.changes().kept());
            awaitTool(session, "mcp_proj_echo");
            assertEquals("hi", McpClient.await(session.tool("mcp_proj_echo").orElseThrow()
                    .call(McpJson.mapper().readTree("{\"message\": \"hi\"}"))).text());
        }
    }

    @Test
    void aConfigInADirectoryThatDidNotExistIsSeen() throws Exception {
        write(userFile, Map.of("user", List.of()));
        McpHost host = host();
        try (ToolSession session = host.openSession()) {
            ConfigWatcher watcher = watch(host);
            Path cursorDir = project.resolve(".cursor");
            assertFalse(Files.exists(cursorDir));
            HostFixtures.awaitTrue("the project directory stands in for the missing one", SECONDS,
                    () -> watcher.watchedDirectories().contains(project));

            // Made and written at once, as a tool does: the directory's own watch comes too late for the file.
            write(cursorDir.resolve("mcp.json"), Map.of("cur", List.of()));

            awaitReload("the Cursor server starts", r -> r.changes().added().equals(List.of("cur")));
            HostFixtures.awaitTrue("the new directory is watched itself", SECONDS,
                    () -> watcher.watchedDirectories().contains(cursorDir));
            write(cursorDir.resolve("mcp.json"), Map.of("cur", List.of("--tools", "1")));
            awaitReload("an edit in the new directory is seen", r -> r.changes().changed().equals(List.of("cur")));
            awaitTool(session, "mcp_cur_tool_0");
        }
    }

    @Test
    void removingAnEntryStopsItsProcess() throws Exception {
        write(userFile, Map.of("stays", List.of(), "goes", List.of()));
        McpHost host = host();
        try (ToolSession session = host.openSession()) {
            long goes = pid(session, "goes");
            long stays = pid(session, "stays");
            watch(host);

            write(userFile, Map.of("stays", List.of()));

            ReloadResult reload = awaitReload("the entry's server stops", r -> r.changes().removed().equals(List.of("goes")));
            assertEquals(List.of("stays"), reload.changes().kept());
            HostFixtures.awaitTrue("its process ended", SECONDS, () -> !alive(goes));
            HostFixtures.awaitTrue("its tools left the session", SECONDS,
                    () -> names(session).stream().noneMatch(name -> name.startsWith("mcp_goes_")));
            assertFalse(host.manager().statuses().containsKey("goes"));
            assertEquals(stays, pid(session, "stays"));
        }
    }

    @Test
    void aHalfWrittenFileKeepsItsServersUntilItIsComplete() throws Exception {
        write(userFile, Map.of("a", List.of(), "b", List.of()));
        McpHost host = host();
        try (ToolSession session = host.openSession()) {
            long a = pid(session, "a");
            long b = pid(session, "b");
            watch(host);

            String complete = HostFixtures.mcpServers(Map.of("a", List.of(), "c", List.of()));
            Files.writeString(userFile, complete.substring(0, complete.length() / 2));

            ReloadResult half = awaitReload("the half-written file is read", r -> !r.held().isEmpty());
            assertEquals(Set.of("a", "b"), half.held().keySet(), "both servers of the file are held");
            assertFalse(half.changedAnything(), "nothing stopped: " + half.changes());
            DiscoveryProblem problem = half.held().get("a");
            assertEquals(Optional.of(userFile), problem.file());
            assertTrue(problem.location().matches("\\d+:\\d+"), "the position: " + problem.describe());
            assertEquals(a, pid(session, "a"));
            assertEquals(b, pid(session, "b"));

            Files.writeString(userFile, complete);

            ReloadResult fixed = awaitReload("the completed file is applied", r -> r.changes().added().contains("c"));
            assertEquals(List.of("b"), fixed.changes().removed());
            assertEquals(List.of("a"), fixed.changes().kept());
            assertEquals(Map.of(), fixed.held());
            assertEquals(a, pid(session, "a"), "the server in both versions ran on throughout");
            HostFixtures.awaitTrue("the server the file no longer has ended", SECONDS, () -> !alive(b));
            awaitTool(session, "mcp_c_echo");
        }
    }

    @Test
    void aBurstOfWritesIsOneReload() throws Exception {
        write(userFile, Map.of("a", List.of()));
        McpHost host = host();
        try (ToolSession session = host.openSession()) {
            watch(host);
            for (int i = 1; i <= 20; i++) {
                // The last write adds a server; each one before it is a different, valid file.
                write(userFile, i < 20 ? Map.of("a", List.of("--tools", Integer.toString(i % 2))) : Map.of("a",
                        List.of("--tools", "1"), "z", List.of()));
            }

            awaitReload("the burst is applied", r -> r.changes().added().contains("z"));
            Thread.sleep(2_000); // a reload that was still to come would come by now
            assertTrue(reloads.size() <= 2, "twenty writes, " + reloads.size() + " reloads: "
                    + reloads.stream().map(ReloadResult::changes).toList());
            awaitTool(session, "mcp_z_echo");
            awaitTool(session, "mcp_a_tool_0");
        }
    }

    @Test
    void closingTheHostStopsTheWatcher() throws Exception {
        write(userFile, Map.of("a", List.of()));
        McpHost host = host();
        host.load();
        ConfigWatcher watcher = watch(host);
        assertTrue(watcher.isRunning());
        assertTrue(watcherThreadAlive());
        HostFixtures.awaitTrue("it watches", SECONDS, () -> watcher.watchedDirectories().contains(userFile.getParent()));

        host.close();

        assertFalse(watcher.isRunning(), "stopped when close returned");
        assertFalse(watcherThreadAlive());
        assertEquals(Set.of(), watcher.watchedDirectories());
        write(userFile, Map.of("a", List.of(), "b", List.of()));
        Thread.sleep(1_000);
        assertEquals(List.of(), reloads, "no reload after the close");
    }
}

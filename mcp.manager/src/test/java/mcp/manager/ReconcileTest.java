package mcp.manager;

import static mcp.manager.ReconnectTest.await;
import static mcp.manager.ReconnectTest.pid;
import static mcp.manager.TestServerProcesses.assertDeadSoon;
import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static mcp.manager.TestServerProcesses.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import mcp.api.ReconnectPolicy;
import mcp.api.ServerConfig;
import mcp.api.SourceMetadata;
import mcp.api.StdioServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Making the running servers a given set, over real testkit processes: only what differs is touched. */
class ReconcileTest {

    @TempDir
    Path temp;

    private final List<McpManager> managers = new ArrayList<>();
    /** Every tool set the listener heard, with the server whose change it was. */
    private final List<Map.Entry<String, Set<String>>> heard = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeEverything() throws InterruptedException {
        managers.forEach(McpManager::close);
        assertNoChildProcessLeft();
    }

    private McpManager manager() {
        McpManager manager = McpManager.builder().workingDirectory(temp).uncachedWait(Duration.ofSeconds(20))
                .reconnect(ReconnectPolicy.OFF)
                .listener(new ManagerListener() {
                    @Override
                    public void onToolsChanged(String serverName, List<BridgedTool> tools) {
                        heard.add(Map.entry(serverName, tools.stream().map(BridgedTool::name)
                                .collect(Collectors.toSet())));
                    }
                }).build();
        managers.add(manager);
        return manager;
    }

    private static Map<String, ServerConfig> servers(Object... nameThenConfig) {
        Map<String, ServerConfig> servers = new LinkedHashMap<>();
        for (int i = 0; i < nameThenConfig.length; i += 2) {
            servers.put((String) nameThenConfig[i], (ServerConfig) nameThenConfig[i + 1]);
        }
        return servers;
    }

    private static Set<String> names(List<BridgedTool> tools) {
        return tools.stream().map(BridgedTool::name).collect(Collectors.toSet());
    }

    @Test
    void onlyTheServersThatDifferAreStoppedOrStarted() throws Exception {
        McpManager manager = manager();
        StdioServerConfig same = config("--tools", "1");
        ConnectResult first = manager.connectServers(servers("same", same, "edited", config("--tools", "1"),
                "gone", config("--tools", "1")), Map.of());
        assertEquals(Map.of(), first.errors());
        long samePid = pid(manager, "same");
        long editedPid = pid(manager, "edited");
        long gonePid = pid(manager, "gone");
        heard.clear();

        ReconcileResult result = manager.reconcileServers(servers("same", same, "edited", config("--tools", "2"),
                "new", config("--tools", "1")), Map.of(), Map.of());

        assertEquals(List.of("new"), result.added());
        assertEquals(List.of("gone"), result.removed());
        assertEquals(List.of("edited"), result.changed());
        assertEquals(List.of("same"), result.kept());
        assertEquals(List.of(), result.retried());
        assertEquals(Map.of(), result.connect().errors());
        assertTrue(result.changedAnything());

        assertEquals(samePid, pid(manager, "same"), "the unchanged server runs on, the same process");
        assertNotEquals(editedPid, pid(manager, "edited"), "the edited server was started again");
        assertDeadSoon(editedPid);
        assertDeadSoon(gonePid);
        Set<String> tools = names(manager.getTools());
        assertTrue(tools.contains("mcp_edited_tool_1"), "the edited server's new tools: " + tools);
        assertTrue(tools.contains("mcp_new_tool_0"), tools::toString);
        assertFalse(tools.stream().anyMatch(t -> t.startsWith("mcp_gone_")), tools::toString);
        assertEquals(Optional.empty(), manager.source("gone"));
        assertFalse(manager.statuses().containsKey("gone"), "a removed server is forgotten");

        assertFalse(heard.isEmpty());
        assertTrue(heard.stream().noneMatch(change -> change.getKey().equals("same")), "no change of its own: " + heard);
        assertTrue(heard.stream().allMatch(change -> change.getValue().contains("mcp_same_tool_0")),
                "its tools are in every tool set heard meanwhile: " + heard);
    }

    @Test
    void theSameSetAgainTouchesNothing() throws Exception {
        McpManager manager = manager();
        Map<String, ServerConfig> both = servers("a", config("--tools", "1"), "b", config("--tools", "1"));
        manager.connectServers(both, Map.of());
        long a = pid(manager, "a");
        heard.clear();

        ReconcileResult again = manager.reconcileServers(both, Map.of(), Map.of());

        assertEquals(List.of("a", "b"), again.kept());
        assertFalse(again.changedAnything());
        assertEquals(a, pid(manager, "a"));
        assertEquals(List.of(), heard, "no tool-list change at all");
    }

    @Test
    void aNewPinKeyOrADisabledConfigCountsAsAChange() throws Exception {
        McpManager manager = manager();
        StdioServerConfig kit = config("--tools", "1");
        String key = "a".repeat(64);
        manager.connectServers(servers("keyed", kit, "off", kit), Map.of(), Map.of("keyed", key));
        long keyed = pid(manager, "keyed");
        long off = pid(manager, "off");

        StdioServerConfig disabled = new StdioServerConfig(kit.command(), kit.args(), kit.env(), kit.cwd(),
                kit.timeout(), false, kit.auth(), kit.enabledTools(), kit.disabledTools());
        ReconcileResult result = manager.reconcileServers(servers("keyed", kit, "off", disabled),
                Map.of(), Map.of("keyed", "b".repeat(64)));

        assertEquals(List.of("keyed"), result.changed());
        assertEquals(List.of("off"), result.removed());
        assertNotEquals(keyed, pid(manager, "keyed"));
        assertDeadSoon(off);
        assertEquals(ServerStatus.State.DISCONNECTED, manager.status("off").state());
    }

    @Test
    void aFailedServerIsTriedAgainAndOneNoLongerGivenIsForgotten() throws Exception {
        McpManager manager = manager();
        StdioServerConfig missing = StdioServerConfig.of(temp.resolve("no-such-program").toString(), List.of());
        ConnectResult first = manager.connectServers(servers("broken", missing, "stale", missing), Map.of());
        assertEquals(Set.of("broken", "stale"), first.errors().keySet());
        assertEquals(ServerStatus.State.FAILED, manager.status("stale").state());

        ReconcileResult result = manager.reconcileServers(servers("broken", missing), Map.of(), Map.of());

        assertEquals(List.of("broken"), result.retried());
        assertEquals(List.of("stale"), result.removed());
        assertEquals(Set.of("broken"), result.connect().errors().keySet(), "tried again, and failed again");
        assertFalse(manager.statuses().containsKey("stale"));
    }

    @Test
    void aKeptServerWhoseSourceMovedIsNamedAfterItsNewSource() throws Exception {
        McpManager manager = manager();
        StdioServerConfig kit = config("--tools", "1");
        SourceMetadata before = new SourceMetadata("cursor", "Cursor", Optional.of(temp.resolve("a.json")),
                SourceMetadata.Level.USER);
        SourceMetadata after = new SourceMetadata("claude", "Claude Code", Optional.of(temp.resolve("b.json")),
                SourceMetadata.Level.USER);
        manager.connectServers(servers("kit", kit), Map.of("kit", before));
        long pid = pid(manager, "kit");

        ReconcileResult result = manager.reconcileServers(servers("kit", kit), Map.of("kit", after), Map.of());

        assertEquals(List.of("kit"), result.kept());
        assertEquals(pid, pid(manager, "kit"));
        assertEquals(Optional.of(after), manager.source("kit"));
        await("the tools carry the new source", () -> manager.getTools().stream()
                .allMatch(tool -> tool.source().equals(Optional.of(after))));
    }
}

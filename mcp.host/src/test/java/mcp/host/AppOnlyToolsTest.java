package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import mcp.api.McpJson;
import mcp.manager.BridgedTool;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Tools meant for an MCP App's view ({@code _meta.ui.visibility} without {@code "model"}) never reach the model, in
 * any of the session's ways to it, and stay callable through the app bridge's {@link McpManager#appTools}; over
 * real testkit servers.
 */
class AppOnlyToolsTest {

    /**
     * kit: echo is for the app only, add for nobody (an empty list), pid for both in so many words, content has a
     * ui object without visibility (both, by default), the rest no _meta at all.
     */
    private static final List<String> KIT = List.of("--tool-ui", "echo=app", "--tool-ui", "add=",
            "--tool-ui", "pid=model,app", "--tool-ui", "content");
    /** What the model must never be given. */
    private static final Set<String> NOT_FOR_THE_MODEL = Set.of("mcp_kit_echo", "mcp_kit_add");

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private McpHost.Builder host(Map<String, List<String>> servers) throws IOException {
        return McpHost.builder().configFile(HostFixtures.config(temp, servers)).home(temp).workingDirectory(temp)
                .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(60));
    }

    private static Set<String> names(List<AgentTool> tools) {
        return tools.stream().map(AgentTool::name).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> toolNames(List<BridgedTool> tools) {
        return tools.stream().map(BridgedTool::toolName).collect(Collectors.toCollection(TreeSet::new));
    }

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    @Test
    void theModelNeverGetsThemButTheAppBridgeCallsThem() throws Exception {
        try (ToolSession session = host(Map.of("kit", KIT, "other", List.of())).build().openSession()) {
            Set<String> model = names(session.tools());
            assertTrue(model.containsAll(Set.of("mcp_kit_pid", "mcp_kit_content", "mcp_kit_slow", "mcp_other_echo")),
                    model.toString());
            assertEquals(Set.of(), intersection(model, NOT_FOR_THE_MODEL), "the tool set");
            assertEquals(Set.of(), intersection(names(session.allTools()), NOT_FOR_THE_MODEL), "every tool");
            assertTrue(session.tool("mcp_kit_echo").isEmpty(), "not callable by the model by its name either");
            assertEquals(Set.of("mcp_other_echo"), names(session.searchTools("/echo/", 10)),
                    "the search finds the other server's echo only");
            try (ToolSession child = session.subagent()) {
                assertEquals(model, names(child.tools()), "a subagent gets what its parent's model gets");
            }

            McpManager manager = session.lastLoad().manager();
            assertTrue(toolNames(manager.toolsOf("kit")).containsAll(Set.of("echo", "add")),
                    "the manager still holds every tool");
            assertEquals(Set.of("mcp_other_echo"), ToolSearch.rank(manager.getTools(), "/echo/", 10).stream()
                    .map(BridgedTool::name).collect(Collectors.toSet()), "a listing's search ranks as the session's");
            Set<String> app = toolNames(manager.appTools("kit"));
            assertTrue(app.containsAll(Set.of("echo", "pid", "content", "slow")), app.toString());
            assertFalse(app.contains("add"), "an empty visibility names no app either");
            assertTrue(manager.appTools("other").stream().allMatch(tool -> tool.serverName().equals("other")),
                    "a view calls its own server's tools only");
            BridgedTool echo = manager.appTools("kit").stream().filter(tool -> tool.toolName().equals("echo"))
                    .findFirst().orElseThrow();
            ToolOutput output = McpClient.await(echo.call(json("{\"message\":\"from the view\"}")));
            assertEquals("from the view", output.text());
        }
    }

    @Test
    void deferredLoadingAndAlwaysLoadDoNotBringThemBack() throws Exception {
        ToolSearch on = ToolSearch.OFF.withMode(ToolSearch.Mode.ON).withAlwaysLoad(Set.of("kit", "mcp_kit_echo"));
        try (ToolSession session = host(Map.of("kit", KIT)).toolSearch(on).build().openSession()) {
            assertTrue(session.deferredLoading());
            Set<String> loaded = names(session.tools());
            assertTrue(loaded.contains("mcp_kit_pid") && loaded.contains(ToolSearch.TOOL), loaded.toString());
            assertEquals(Set.of(), intersection(loaded, NOT_FOR_THE_MODEL), "alwaysLoad names no app-only tool in");
            String found = McpClient.await(session.tool(ToolSearch.TOOL).orElseThrow()
                    .call(json("{\"query\":\"echo the message back\",\"limit\":20}"))).text();
            assertFalse(found.contains("mcp_kit_echo"), found);
            assertEquals(Set.of(), intersection(names(session.tools()), NOT_FOR_THE_MODEL), "nor does a search");
        }
    }

    @Test
    void aSlowServersCachedAppOnlyToolsStayOutWhileItConnects() throws Exception {
        Map<String, List<String>> servers = Map.of("kit", concat(KIT, "--init-delay-ms", "1500"));
        try (McpHost warmUp = host(servers).build()) {
            assertEquals(Map.of(), warmUp.load().errors());
        }
        try (ToolSession session = host(servers).startupGate(Duration.ofMillis(300)).build().openSession()) {
            List<BridgedTool> deferred = session.lastLoad().tools();
            assertTrue(deferred.stream().anyMatch(tool -> tool.deferred() && tool.name().equals("mcp_kit_echo")),
                    "the cache kept echo and its _meta: " + deferred);
            assertTrue(names(session.tools()).contains("mcp_kit_pid"), "the deferred tools for the model are there");
            assertEquals(Set.of(), intersection(names(session.tools()), NOT_FOR_THE_MODEL));
            BridgedTool echo = session.lastLoad().manager().appTools("kit").stream()
                    .filter(tool -> tool.toolName().equals("echo")).findFirst().orElseThrow();
            assertEquals("waited", McpClient.await(echo.call(json("{\"message\":\"waited\"}"))).text(),
                    "a deferred app tool's call waits for its server");
            assertEquals(Set.of(), intersection(names(session.tools()), NOT_FOR_THE_MODEL), "nor once it is live");
        }
    }

    private static Set<String> intersection(Set<String> a, Set<String> b) {
        Set<String> both = new TreeSet<>(a);
        both.retainAll(b);
        return both;
    }

    private static List<String> concat(List<String> list, String... more) {
        List<String> all = new java.util.ArrayList<>(list);
        all.addAll(List.of(more));
        return all;
    }
}

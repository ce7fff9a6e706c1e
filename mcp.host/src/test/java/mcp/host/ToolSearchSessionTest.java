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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import mcp.api.McpJson;
import mcp.manager.McpClient;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deferred loading: the agent gets the search tool instead of every MCP definition, finds and loads what it needs,
 * and can call any tool by its name; over real testkit servers.
 */
class ToolSearchSessionTest {

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        HostFixtures.awaitTrue(what, 20, condition);
    }

    private Path config(Map<String, List<String>> servers) throws IOException {
        return HostFixtures.config(temp, servers);
    }

    private ToolSession open(Path config, ToolSearch search) {
        return McpHost.builder().configFile(config).home(temp).workingDirectory(temp).cache(false)
                .startupGate(Duration.ofSeconds(60)).toolSearch(search).build().openSession();
    }

    private static long tokens(List<AgentTool> tools) {
        return tools.stream().mapToLong(SessionIndex::estimatedTokens).sum();
    }

    @Test
    void tenServersOfAThousandToolsCostTheAgentUnderFivePercentAndEveryToolStaysCallable() throws Exception {
        Map<String, List<String>> servers = new java.util.LinkedHashMap<>();
        IntStream.range(0, 10).forEach(i -> servers.put("s" + i, List.of("--tools", "100")));
        try (ToolSession session = open(config(servers), ToolSearch.OFF.withMode(ToolSearch.Mode.ON))) {
            List<AgentTool> all = session.allTools();
            assertTrue(all.size() >= 1_000, "tools: " + all.size());
            List<AgentTool> given = session.tools();
            assertTrue(session.deferredLoading());
            assertEquals(List.of(ToolSearch.TOOL), given.stream().map(AgentTool::name).toList());
            double share = (double) tokens(given) / tokens(all);
            assertTrue(share < 0.05, "the agent gets " + share + " of the definition tokens");

            ToolOutput echo = McpClient.await(session.tool("mcp_s7_echo").orElseThrow()
                    .call(McpJson.mapper().readTree("{\"message\":\"not loaded, still callable\"}")));
            assertEquals("not loaded, still callable", echo.text());

            List<List<AgentTool>> heard = new CopyOnWriteArrayList<>();
            session.onToolsChanged(heard::add);
            ToolOutput found = McpClient.await(session.tool(ToolSearch.TOOL).orElseThrow()
                    .call(McpJson.mapper().readTree("{\"query\":\"mcp_s3_echo\",\"limit\":3}")));
            assertFalse(found.isError(), found.text());
            assertTrue(found.text().startsWith("Tools found (loaded: call them by name):\n\nmcp_s3_echo: "),
                    found.text());
            assertTrue(found.text().contains("Input schema: {"), found.text());
            assertTrue(session.tools().stream().anyMatch(tool -> tool.name().equals("mcp_s3_echo")),
                    "a tool found is loaded");
            assertFalse(heard.isEmpty(), "the embedder hears that the tool set changed");
        }
    }

    @Test
    void autoDefersAboveTheBudgetAndAlwaysLoadedServersStay() throws Exception {
        Path config = config(Map.of("big", List.of("--tools", "50"), "core", List.of()));
        try (ToolSession roomy = open(config, ToolSearch.OFF.withMode(ToolSearch.Mode.AUTO))) {
            assertFalse(roomy.deferredLoading(), "a few thousand tokens are under a tenth of 200,000");
            assertEquals(roomy.allTools(), roomy.tools());
        }
        ToolSearch tight = ToolSearch.OFF.withMode(ToolSearch.Mode.AUTO).withBudget(10_000, 0.1)
                .withAlwaysLoad(Set.of("core", "mcp_big_tool_7"));
        try (ToolSession session = open(config, tight)) {
            assertTrue(session.deferredLoading());
            List<String> names = session.tools().stream().map(AgentTool::name).toList();
            assertTrue(names.contains("mcp_core_echo") && names.contains("mcp_big_tool_7")
                    && names.contains(ToolSearch.TOOL), names.toString());
            assertFalse(names.contains("mcp_big_tool_8"), names.toString());
            session.addTool(new NamedAppTool("deploy_site", "Deploys the web site to production"));
            assertTrue(session.tools().stream().anyMatch(tool -> tool.name().equals("deploy_site")),
                    "the application's tools are always loaded");
            assertEquals("deploy_site", session.searchTools("ship the website live", 1).get(0).name(),
                    "the application's tools are searched too");
        }
    }

    /** Writes {@code dir/mcp.json}: testkit servers (name to arguments), each with its {@code alwaysLoad} if any. */
    private Path configWithAlwaysLoad(Map<String, List<String>> servers, Map<String, Object> alwaysLoad)
            throws IOException {
        tools.jackson.databind.node.ObjectNode root = McpJson.object();
        tools.jackson.databind.node.ObjectNode entries = root.putObject("mcpServers");
        servers.forEach((name, args) -> {
            List<String> command = mcp.testkit.TestServers.command(args.toArray(String[]::new));
            tools.jackson.databind.node.ObjectNode entry = entries.putObject(name);
            entry.put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
            Object always = alwaysLoad.get(name);
            if (always instanceof Boolean all) {
                entry.put("alwaysLoad", all);
            } else if (always instanceof List<?> names) {
                names.forEach(tool -> entry.withArray("alwaysLoad").add((String) tool));
            }
        });
        Path file = temp.resolve("mcp.json");
        java.nio.file.Files.writeString(file, root.toString());
        return file;
    }

    /** @return the MCP tools of the agent's tool set now, as {@code server/tool} (their names on the servers) */
    private static Set<String> loadedMcpTools(ToolSession session, McpHost host) {
        Map<String, mcp.manager.BridgedTool> byName = new java.util.HashMap<>();
        host.manager().getTools().forEach(tool -> byName.put(tool.name(), tool));
        Set<String> loaded = new java.util.TreeSet<>();
        for (AgentTool tool : session.tools()) {
            mcp.manager.BridgedTool mcp = byName.get(tool.name());
            if (mcp != null) {
                loaded.add(mcp.serverName() + "/" + mcp.toolName());
            } else {
                assertEquals(ToolSearch.TOOL, tool.name(), "only the search tool beside the MCP tools");
            }
        }
        return loaded;
    }

    @Test
    void serversConfigKeepAllOrSomeOfTheirToolsLoadedInBothErasAndAfterAReload() throws Exception {
        // "kit-a" and "kit_a" name their tools alike (mcp_kit_a_echo): one of them gets a suffixed name, and the
        // setting of "kit_a" must still find its own echo; "some" names a tool it does not have, which is no error.
        Map<String, List<String>> servers = new java.util.LinkedHashMap<>();
        servers.put("all", List.of("--era", "legacy", "--tools", "2"));
        servers.put("some", List.of("--era", "modern", "--tools", "3"));
        servers.put("kit-a", List.of("--era", "dual"));
        servers.put("kit_a", List.of("--era", "legacy"));
        Map<String, Object> always = new java.util.HashMap<>(Map.of("all", true,
                "some", List.of("add", "tool_1", "no_such_tool"), "kit_a", List.of("echo"), "kit-a", false));
        Path config = configWithAlwaysLoad(servers, always);
        // The builder's names (a session name here) are added to the servers' own.
        McpHost host = McpHost.builder().configFile(config).home(temp).workingDirectory(temp).cache(false)
                .startupGate(Duration.ofSeconds(60))
                .toolSearch(ToolSearch.OFF.withMode(ToolSearch.Mode.ON).withAlwaysLoad(Set.of("mcp_some_echo")))
                .build();
        try (host; ToolSession session = host.openSession()) {
            assertEquals(Map.of(), session.lastLoad().errors());
            assertTrue(session.deferredLoading());
            List<String> echoNames = host.manager().getTools().stream()
                    .filter(tool -> tool.toolName().equals("echo") && tool.serverName().startsWith("kit"))
                    .map(mcp.manager.BridgedTool::name).toList();
            assertEquals(2, echoNames.size(), echoNames.toString());
            assertTrue(!echoNames.get(0).equals(echoNames.get(1)) && !echoNames.stream()
                    .allMatch(name -> name.equals("mcp_kit_a_echo")), "the colliding names were told apart: "
                    + echoNames);

            Set<String> expected = new java.util.TreeSet<>(Set.of("some/add", "some/tool_1", "some/echo",
                    "kit_a/echo"));
            host.manager().toolsOf("all").forEach(tool -> expected.add("all/" + tool.toolName()));
            assertTrue(expected.containsAll(Set.of("all/echo", "all/tool_0", "all/tool_1")), expected.toString());
            assertEquals(expected, loadedMcpTools(session, host));

            // The config changes and is reloaded: the new setting counts from the next tools() on.
            always.put("all", false);
            always.put("some", List.of("pid"));
            always.put("kit-a", true);
            always.remove("kit_a");
            configWithAlwaysLoad(servers, always);
            session.reload();
            Set<String> reloaded = new java.util.TreeSet<>(Set.of("some/pid", "some/echo"));
            host.manager().toolsOf("kit-a").forEach(tool -> reloaded.add("kit-a/" + tool.toolName()));
            assertTrue(reloaded.containsAll(Set.of("kit-a/echo", "kit-a/add")), reloaded.toString());
            assertEquals(reloaded, loadedMcpTools(session, host));
        }
    }

    /** An application tool with a name and a description. */
    private record NamedAppTool(String name, String description) implements AgentTool {
        @Override
        public String label() {
            return name;
        }

        @Override
        public tools.jackson.databind.JsonNode inputSchema() {
            return McpJson.mapper().readTree("{\"type\":\"object\"}");
        }

        @Override
        public String origin() {
            return "app";
        }

        @Override
        public java.util.concurrent.CompletableFuture<ToolOutput> call(tools.jackson.databind.JsonNode arguments) {
            return java.util.concurrent.CompletableFuture.completedFuture(new ToolOutput("ok", false,
                    new ToolOutput.Details("", name, false, List.of(), java.util.Optional.empty(),
                            java.util.Optional.empty(), java.util.Optional.empty())));
        }
    }
}

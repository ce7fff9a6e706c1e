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

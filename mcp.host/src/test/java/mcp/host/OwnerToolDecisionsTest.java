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
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import mcp.api.CallPolicy;
import mcp.api.McpJson;
import mcp.manager.BridgedTool;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ToolOutput;
import mcp.manager.WithheldTool;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the tool owning a server's config decided per tool binds wherever the agent sees tools: a Claude Code deny rule
 * keeps the tool out of the session, its search, its subagents and deferred loading, and refuses a call of a tool held
 * from before the rule; ask and allow rules are the tools' call policies. Over a real testkit server that Claude Code's
 * user file (~/.claude.json) configures.
 */
class OwnerToolDecisionsTest {

    @TempDir
    Path temp;
    private Path home;
    private Path work;
    private Path settings;

    @BeforeEach
    void aClaudeCodeUserServer() throws IOException {
        home = temp.resolve("home");
        work = temp.resolve("work");
        Files.createDirectories(work);
        ObjectNode root = McpJson.object();
        List<String> command = TestServers.command();
        ObjectNode kit = root.putObject("mcpServers").putObject("kit");
        kit.put("command", command.get(0));
        command.subList(1, command.size()).forEach(kit.putArray("args")::add);
        Files.createDirectories(home);
        Files.writeString(home.resolve(".claude.json"), root.toString());
        settings = home.resolve(".claude/settings.json");
        Files.createDirectories(settings.getParent());
        permissions("{\"deny\": [\"mcp__kit__echo\"], \"ask\": [\"mcp__kit__add\"], \"allow\": [\"mcp__kit__pid\"]}");
    }

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        HostFixtures.awaitNoProcessLeft();
    }

    private void permissions(String json) throws IOException {
        Files.writeString(settings, "{\"permissions\": " + json + "}");
    }

    private McpHost.Builder host() {
        // Claude Code's managed directory in the test's folder, never the machine's.
        Map<String, String> environment = Map.of("PATH", System.getenv("PATH"), "MCP_HOST_CLAUDE_MANAGED_DIR",
                temp.resolve("managed").toString());
        return McpHost.builder().home(home).workingDirectory(work).environment(environment)
                .cacheDirectory(temp.resolve("cache")).startupGate(Duration.ofSeconds(60));
    }

    private static Set<String> names(List<AgentTool> tools) {
        return tools.stream().map(AgentTool::name).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void aDeniedToolIsInNoToolSetAndTheOthersCarryTheirCallPolicy() throws Exception {
        try (ToolSession session = host().build().openSession()) {
            Set<String> tools = names(session.tools());
            assertTrue(tools.containsAll(Set.of("mcp_kit_add", "mcp_kit_pid", "mcp_kit_content")), tools.toString());
            assertFalse(tools.contains("mcp_kit_echo"), "the tool set");
            assertFalse(names(session.allTools()).contains("mcp_kit_echo"), "every tool");
            assertTrue(session.tool("mcp_kit_echo").isEmpty(), "by its name");
            assertEquals(Set.of(), names(session.searchTools("/echo/", 10)), "a search");
            try (ToolSession child = session.subagent()) {
                assertFalse(names(child.tools()).contains("mcp_kit_echo"), "a subagent");
                assertEquals(CallPolicy.Decision.ASK, child.tool("mcp_kit_add").orElseThrow().callPolicy().decision());
            }

            AgentTool add = session.tool("mcp_kit_add").orElseThrow();
            assertEquals(CallPolicy.Decision.ASK, add.callPolicy().decision());
            assertEquals("Claude Code: permissions.ask \"mcp__kit__add\" in " + settings, add.callPolicy().describe());
            assertEquals(CallPolicy.Decision.ALLOW, session.tool("mcp_kit_pid").orElseThrow().callPolicy().decision());
            assertTrue(session.tool("mcp_kit_pid").orElseThrow().callPolicy().decidedByOwner());
            assertEquals(CallPolicy.DEFAULT, session.tool("mcp_kit_content").orElseThrow().callPolicy(),
                    "no rule: nothing decided");

            McpManager manager = session.lastLoad().manager();
            List<WithheldTool> withheld = manager.withheldByOwner();
            assertEquals(List.of("kit/echo"), withheld.stream().map(WithheldTool::label).toList());
            assertEquals("Claude Code: permissions.deny \"mcp__kit__echo\" in " + settings,
                    withheld.get(0).rule().describe());
            assertTrue(manager.appTools("kit").stream().noneMatch(tool -> tool.toolName().equals("echo")),
                    "nor may an app's view call it");
        }
    }

    @Test
    void deferredLoadingAndAlwaysLoadDoNotBringItBack() throws Exception {
        ToolSearch on = ToolSearch.OFF.withMode(ToolSearch.Mode.ON).withAlwaysLoad(Set.of("kit", "mcp_kit_echo"));
        try (ToolSession session = host().toolSearch(on).build().openSession()) {
            assertTrue(session.deferredLoading());
            assertFalse(names(session.tools()).contains("mcp_kit_echo"));
            String found = McpClient.await(session.tool(ToolSearch.TOOL).orElseThrow()
                    .call(McpJson.mapper().readTree("{\"query\":\"echo the message back\",\"limit\":20}"))).text();
            assertFalse(found.contains("mcp_kit_echo"), found);
        }
    }

    @Test
    void aSlowServersCachedToolsAreDeniedToo() throws Exception {
        try (McpHost warmUp = host().build()) {
            assertEquals(Map.of(), warmUp.load().errors());
        }
        ObjectNode root = (ObjectNode) McpJson.mapper().readTree(Files.readString(home.resolve(".claude.json")));
        ((ObjectNode) root.path("mcpServers").path("kit")).withArray("args").add("--init-delay-ms").add("1500");
        Files.writeString(home.resolve(".claude.json"), root.toString());
        // The cache is keyed by the config: warm it up for the slow one, then start it behind a short gate.
        try (McpHost warmUp = host().build()) {
            assertEquals(Map.of(), warmUp.load().errors());
        }
        try (ToolSession session = host().startupGate(Duration.ofMillis(300)).build().openSession()) {
            List<BridgedTool> deferred = session.lastLoad().tools();
            assertTrue(deferred.stream().anyMatch(BridgedTool::deferred), "the server was still connecting");
            assertTrue(deferred.stream().noneMatch(tool -> tool.toolName().equals("echo")), deferred.toString());
            assertFalse(names(session.tools()).contains("mcp_kit_echo"));
            assertEquals(List.of("kit/echo"), session.lastLoad().manager().withheldByOwner().stream()
                    .map(WithheldTool::label).toList(), "known from the cache");
        }
    }

    @Test
    void aToolHeldFromBeforeARuleThatDeniesItIsRefusedAndNeverSent() throws Exception {
        permissions("{}");
        try (ToolSession session = host().build().openSession()) {
            BridgedTool echo = session.lastLoad().tools().stream().filter(tool -> tool.toolName().equals("echo"))
                    .findFirst().orElseThrow();
            assertEquals(CallPolicy.DEFAULT, echo.callPolicy());
            permissions("{\"deny\": [\"mcp__kit\"]}");
            session.reload();
            assertEquals(Set.of(), names(session.tools()).stream().filter(n -> n.startsWith("mcp_kit_"))
                    .collect(Collectors.toSet()), "the whole server's tools are denied now");
            ToolOutput output = McpClient.await(echo.call(McpJson.mapper().readTree("{\"message\":\"hi\"}")));
            assertTrue(output.isError());
            assertEquals(ToolOutput.failureText("MCP server \"kit\": tool \"echo\" is denied by Claude Code:"
                    + " permissions.deny \"mcp__kit\" in " + settings), output.text());
            assertEquals(Optional.of("permissions.deny \"mcp__kit\""), session.lastLoad().manager()
                    .ownerDenial("kit", "echo").map(rule -> rule.rule()));
        }
    }
}

package mcp.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mcp.api.McpJson;
import mcp.host.McpHost;
import mcp.host.ToolSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.ToolCallback;
import tools.jackson.databind.JsonNode;

/**
 * The provider with the real Spring AI: a ChatClient on a scripted model calls tools of a testkit server through it,
 * and sees the tool set change when the server's does.
 */
class McpToolCallbackProviderTest {

    @TempDir
    Path home;
    private McpHost host;
    private ToolSession session;
    private McpToolCallbackProvider provider;

    @BeforeEach
    void open() throws Exception {
        Path config = TestConfigs.write(home.resolve("mcp.json"), TestConfigs.servers("kit", List.of()));
        host = McpHost.builder().home(home).environment(TestConfigs.environment(home)).configFile(config).build();
        session = host.openSession();
        provider = new McpToolCallbackProvider(session);
    }

    @AfterEach
    void close() throws Exception {
        session.close();
        TestConfigs.assertNoChildLeft();
    }

    private ToolCallback callback(String name) {
        return Arrays.stream(provider.getToolCallbacks()).filter(c -> c.getToolDefinition().name().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no " + name + " in " + names()));
    }

    private List<String> names() {
        return Arrays.stream(provider.getToolCallbacks()).map(c -> c.getToolDefinition().name()).toList();
    }

    @Test
    void everyToolOfTheSessionIsACallbackWithItsDefinitionAndSchema() {
        assertEquals(session.tools().stream().map(t -> t.name()).toList(), names());
        ToolCallback add = callback("mcp_kit_add");
        assertTrue(add.getToolDefinition().description().startsWith("Adds two numbers"),
                add.getToolDefinition().description());
        JsonNode schema = McpJson.mapper().readTree(add.getToolDefinition().inputSchema());
        assertEquals("object", schema.path("type").stringValue(), schema.toString());
        assertEquals("number", schema.path("properties").path("a").path("type").stringValue(), schema.toString());
    }

    @Test
    void aChatClientCallsAToolOfTheServerAndAnswersFromItsResult() {
        ScriptedChatModel model = new ScriptedChatModel("mcp_kit_add", "{\"a\": 2, \"b\": 40}",
                result -> "The sum is " + result + ".");
        ChatClient chat = ChatClient.builder(model).defaultToolCallbacks(provider).build();

        String answer = chat.prompt("What is 2 + 40?").call().content();

        assertEquals("The sum is 42.", answer);
        assertEquals(2, model.offered.size(), "one request for the call, one for the answer");
        assertTrue(model.offered.get(0).contains("mcp_kit_add"), model.offered.toString());
    }

    @Test
    void aToolErrorReachesTheModelAsText() {
        ScriptedChatModel model = new ScriptedChatModel("mcp_kit_fail", "{}", result -> "The tool said: " + result);
        String answer = ChatClient.builder(model).defaultToolCallbacks(provider).build()
                .prompt("Try it").call().content();
        assertTrue(answer.startsWith("The tool said: ") && answer.contains("tool failed on purpose"), answer);
    }

    @Test
    void aProtocolErrorReachesTheModelAsText() {
        ScriptedChatModel model = new ScriptedChatModel("mcp_kit_error", "{}", result -> "The tool said: " + result);
        String answer = ChatClient.builder(model).defaultToolCallbacks(provider).build()
                .prompt("Try it").call().content();
        assertTrue(answer.contains("internal failure on purpose"), answer);
    }

    @Test
    void theCallbacksFollowTheServersToolListChanges() throws Exception {
        assertFalse(names().contains("mcp_kit_extra_0"), names().toString());
        java.util.concurrent.CountDownLatch changed = new java.util.concurrent.CountDownLatch(1);
        session.onToolsChanged(tools -> {
            if (tools.stream().anyMatch(t -> t.name().equals("mcp_kit_extra_0"))) {
                changed.countDown();
            }
        });

        assertEquals("changed", callback("mcp_kit_change_tools").call("{}"));

        assertTrue(changed.await(10, TimeUnit.SECONDS), "the session heard no tool list change");
        assertTrue(names().contains("mcp_kit_extra_0"), names().toString());
    }

    @Test
    void aFilteredProviderOffersOnlyTheToolsItKeeps() {
        McpToolCallbackProvider some = provider.filter(tool -> tool.name().endsWith("_add"));
        assertEquals(List.of("mcp_kit_add"), Arrays.stream(some.getToolCallbacks())
                .map(c -> c.getToolDefinition().name()).toList());
    }
}

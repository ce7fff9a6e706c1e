package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.manager.BridgedTool;
import mcp.manager.ConnectResult;
import mcp.manager.McpClient;
import mcp.manager.McpManager;
import mcp.manager.ToolOutput;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The tool bridge's rendering (SPEC §9) of real results from the reference "everything" server. */
class ToolBridgeIT {

    private static McpManager manager;

    @BeforeAll
    static void connect() {
        Path script = Path.of(System.getProperty("mcp.interop.dir", "../interop"))
                .resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js").toAbsolutePath();
        assertTrue(Files.isRegularFile(script), script + " is missing: run interop/install.sh");
        manager = McpManager.builder().build();
        ConnectResult result = manager.connectServers(
                Map.of("everything", StdioServerConfig.of("node", List.of(script.toString(), "stdio"))), Map.of());
        assertEquals(Map.of(), result.errors());
    }

    @AfterAll
    static void close() {
        manager.close();
    }

    private static ToolOutput call(String tool, String args) {
        BridgedTool bridged = manager.getTools().stream().filter(t -> t.name().equals(tool)).findFirst()
                .orElseThrow(() -> new AssertionError(tool + " not in " + manager.getTools()));
        return McpClient.await(bridged.call(args == null ? null : McpJson.mapper().readTree(args)));
    }

    @Test
    void namesAndPresentation() {
        BridgedTool sum = manager.getTools().stream().filter(t -> t.toolName().equals("get-sum")).findFirst()
                .orElseThrow();
        assertEquals("mcp_everything_get_sum", sum.name());
        assertEquals("everything/get-sum", sum.label());
        assertEquals("Returns the sum of two numbers", sum.description());
        assertEquals("mcp:everything", sum.origin());
        manager.getTools().forEach(t -> assertTrue(t.name().matches("^[a-z0-9_]{1,64}$"), t.name()));
    }

    @Test
    void anImage() {
        ToolOutput output = call("mcp_everything_get_tiny_image", null);
        // The server's MCP logo is a 20x20 PNG: its header gives the size and about one token.
        assertEquals("Here's the image you requested:\n\n[Image: image/png, 20x20, about 1 token]\n\nThe image above "
                + "is the MCP logo.",
                output.text());
        assertFalse(output.isError());
        assertTrue(output.details().content().get(1) instanceof Content.Image image && !image.data().isEmpty());
    }

    @Test
    void structuredContentStaysInTheDetails() {
        ToolOutput output = call("mcp_everything_get_structured_content", "{\"location\":\"New York\"}");
        assertEquals(33, output.details().structuredContent().orElseThrow().path("temperature").asInt());
        assertEquals("Cloudy", McpJson.mapper().readTree(output.text()).path("conditions").asString());
    }

    @Test
    void resourceLinks() {
        ToolOutput output = call("mcp_everything_get_resource_links", "{\"count\":2}");
        String[] parts = output.text().split("\n\n");
        assertEquals(3, parts.length, output.text());
        assertEquals("Here are 2 resource links to resources available in this server:", parts[0]);
        assertTrue(parts[1].matches("\\[Resource link: \\S+\\]") && parts[2].matches("\\[Resource link: \\S+\\]"),
                output.text());
    }

    @Test
    void anEmbeddedResourceWithItsText() {
        ToolOutput output = call("mcp_everything_get_resource_reference", "{\"resourceId\":2}");
        String[] parts = output.text().split("\n\n");
        assertEquals(3, parts.length, output.text());
        assertTrue(parts[1].startsWith("[Resource: ") && parts[1].contains("]\n"), parts[1]);
        Content.EmbeddedResource resource = (Content.EmbeddedResource) output.details().content().get(1);
        assertEquals(resource.resource().text().orElseThrow(), parts[1].substring(parts[1].indexOf("]\n") + 2));
    }

    @Test
    void invalidArgumentsComeBackAsAToolError() {
        ToolOutput bad = call("mcp_everything_get_sum", "{\"a\":\"not a number\"}");
        // The SDK behind the server reports argument validation as a tool result with isError.
        assertTrue(bad.isError(), bad.text());
        assertTrue(bad.text().startsWith("Error: ") && bad.text().contains("Invalid arguments for tool get-sum"),
                bad.text());
    }
}

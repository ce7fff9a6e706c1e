package mcp.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import mcp.api.McpJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tool's {@code outputSchema} holds its results to their word: structured content that does not match is a
 * tool error with the validator's reason, content that matches passes as it came, and the schema reaches the
 * agent exactly as the server wrote it.
 */
class OutputSchemaTest {

    @TempDir
    Path temp;

    @AfterEach
    void noProcessLeft() throws InterruptedException {
        TestServerProcesses.assertNoChildProcessLeft();
    }

    /** The testkit's add (structuredContent {"sum": N}) listed with this output schema for its sum. */
    private ToolOutput add(String sumSchema) throws Exception {
        Path tools = temp.resolve("tools.json");
        Files.writeString(tools, """
                {"tools": [{"name": "add", "description": "Adds.",
                  "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
                  "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                                   "properties": {"sum": %s}, "required": ["sum"]}}]}
                """.formatted(sumSchema));
        try (McpManager manager = McpManager.builder().transportProviders(List.of(TestServerProcesses.stdio())).build()) {
            manager.connectServers(Map.of("kit", TestServerProcesses.config("--tools-file", tools.toString())), Map.of());
            BridgedTool tool = manager.getTools().stream().filter(t -> t.toolName().equals("add")).findFirst()
                    .orElseThrow();
            assertEquals("https://json-schema.org/draft/2020-12/schema",
                    manager.toolsOf("kit").stream().filter(t -> t.toolName().equals("add")).findFirst().orElseThrow()
                            .definition().outputSchema().orElseThrow().get("$schema").asString(), "kept as written");
            return McpClient.await(tool.call(McpJson.mapper().readTree("{\"a\": 2, \"b\": 3}")));
        }
    }

    @Test
    void structuredContentThatBreaksTheSchemaIsAToolErrorWithTheReason() throws Exception {
        ToolOutput output = add("{\"type\": \"string\"}");
        assertTrue(output.isError(), output::toString);
        assertTrue(output.text().startsWith("MCP server \"kit\": tool \"add\" returned structuredContent that does not"
                + " match its outputSchema: "), output.text());
        assertTrue(output.text().contains("/sum"), output.text());
    }

    @Test
    void structuredContentThatMatchesPasses() throws Exception {
        ToolOutput output = add("{\"type\": \"integer\", \"minimum\": 0}");
        assertFalse(output.isError(), output::toString);
        assertEquals("5", output.text());
    }
}

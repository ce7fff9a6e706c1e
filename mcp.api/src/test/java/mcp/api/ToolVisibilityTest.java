package mcp.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The MCP Apps extension's {@code _meta.ui.visibility}, as {@link ToolDefinition} reads it. */
class ToolVisibilityTest {

    private static ToolDefinition tool(String meta) {
        String json = "{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}"
                + (meta.isEmpty() ? "" : ",\"_meta\":" + meta) + "}";
        return ToolDefinition.fromJson(McpJson.mapper().readTree(json));
    }

    @ParameterizedTest(name = "{0}: model {1}, app {2}")
    @CsvSource(delimiter = '|', value = {
        // Absent at any level: the extension's default, both.
        "''                                                          | true  | true",
        "{}                                                          | true  | true",
        "{\"ui\":{\"resourceUri\":\"ui://x/view\"}}                  | true  | true",
        "{\"ui\":{\"visibility\":[\"model\",\"app\"]}}               | true  | true",
        "{\"ui\":{\"visibility\":[\"app\"]}}                         | false | true",
        "{\"ui\":{\"visibility\":[\"model\"]}}                       | true  | false",
        // A list without "model" leaves the model out, the empty one too: it names no audience at all.
        "{\"ui\":{\"visibility\":[]}}                                | false | false",
        "{\"ui\":{\"visibility\":[\"agent\",\"user\"]}}              | false | false",
        "{\"ui\":{\"visibility\":[\"APP\",\"app\",7]}}               | false | true",
        // Not a list: not the extension's shape, so the default holds.
        "{\"ui\":{\"visibility\":\"app\"}}                           | true  | true",
        "{\"ui\":{\"visibility\":null}}                              | true  | true",
        "{\"ui\":\"app\"}                                            | true  | true",
        // The deprecated flat key says nothing of visibility.
        "{\"ui/resourceUri\":\"ui://x/view\"}                        | true  | true",
    })
    void visibilityDecidesWhoGetsTheTool(String meta, boolean model, boolean app) {
        ToolDefinition tool = tool(meta);
        assertEquals(List.of(model, app), List.of(tool.visibleToModel(), tool.visibleToApp()), meta);
    }
}

package mcp.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ToolHeadersTest {

    private static Optional<String> problem(String schema) {
        JsonNode json = McpJson.mapper().readTree(schema);
        return ToolHeaders.problem(json);
    }

    private static String property(String spec) {
        return "{\"type\": \"object\", \"properties\": {\"p\": " + spec + "}}";
    }

    @Test
    void validAnnotationsAndSchemasWithoutAnyPass() {
        assertEquals(Optional.empty(), problem("{\"type\": \"object\"}"));
        assertEquals(Optional.empty(), problem("{\"type\": \"object\", \"properties\": {"
                + "\"region\": {\"type\": \"string\", \"x-mcp-header\": \"Region\"},"
                + "\"priority\": {\"type\": \"integer\", \"x-mcp-header\": \"Priority\"},"
                + "\"opts\": {\"type\": \"object\", \"properties\": {\"debug\": {\"type\": \"boolean\","
                + " \"x-mcp-header\": \"Debug\"}}}}}"));
    }

    @Test
    void everyBrokenRuleMakesTheToolInvalid() {
        for (String bad : new String[] {
            property("{\"type\": \"string\", \"x-mcp-header\": \"\"}"),
            property("{\"type\": \"object\", \"x-mcp-header\": \"Obj\"}"),
            property("{\"type\": \"array\", \"x-mcp-header\": \"Arr\"}"),
            property("{\"type\": \"null\", \"x-mcp-header\": \"Nul\"}"),
            property("{\"type\": \"number\", \"x-mcp-header\": \"Num\"}"),
            property("{\"x-mcp-header\": \"NoType\"}"),
            property("{\"type\": \"string\", \"x-mcp-header\": \"has space\"}"),
            property("{\"type\": \"string\", \"x-mcp-header\": \"colon:name\"}"),
            property("{\"type\": \"string\", \"x-mcp-header\": \"Grüße\"}"),
            property("{\"type\": \"string\", \"x-mcp-header\": \"ctl\\u0001\"}"),
            "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\", \"x-mcp-header\": \"Same\"},"
                    + " \"b\": {\"type\": \"string\", \"x-mcp-header\": \"same\"}}}",
            "{\"type\": \"object\", \"x-mcp-header\": \"Root\"}",
            "{\"type\": \"object\", \"properties\": {\"list\": {\"type\": \"array\", \"items\": {\"type\": \"string\","
                    + " \"x-mcp-header\": \"Item\"}}}}",
            "{\"type\": \"object\", \"oneOf\": [{\"properties\": {\"x\": {\"type\": \"string\","
                    + " \"x-mcp-header\": \"X\"}}}]}",
            "{\"type\": \"object\", \"$defs\": {\"d\": {\"type\": \"string\", \"x-mcp-header\": \"Def\"}}}"}) {
            assertTrue(problem(bad).isPresent(), bad);
        }
    }
}

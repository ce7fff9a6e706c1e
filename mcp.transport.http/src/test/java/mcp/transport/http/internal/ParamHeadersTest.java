package mcp.transport.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.Map;
import java.util.TreeMap;
import mcp.api.McpJson;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ParamHeadersTest {

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    private static Map<String, String> headers(ParamHeaders params, String callParams) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/mcp"));
        params.apply(builder, json(callParams));
        Map<String, String> headers = new TreeMap<>();
        builder.build().headers().map().forEach((name, values) -> headers.put(name, values.get(0)));
        return headers;
    }

    @Test
    void annotatedArgumentsAreMirroredWithTheSpecsEncoding() {
        ParamHeaders params = new ParamHeaders();
        params.learn(json("""
                {"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {
                  "region": {"type": "string", "x-mcp-header": "Region"},
                  "priority": {"type": "integer", "x-mcp-header": "Priority"},
                  "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
                  "method_val": {"type": "string", "x-mcp-header": "Method"},
                  "wide": {"type": "string", "x-mcp-header": "Wide"},
                  "tab": {"type": "string", "x-mcp-header": "Tab"},
                  "inner": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}},
                  "query": {"type": "string"}}}}]}
                """));
        assertEquals(Map.of("mcp-param-region", "us-west1", "mcp-param-priority", "42", "mcp-param-verbose", "false",
                "mcp-param-method", "test-method", "mcp-param-wide", "=?base64?SGVsbG8sIOS4lueVjA==?=",
                "mcp-param-tab", "=?base64?CWluZGVudGVk?=", "mcp-param-zone", "a"),
                lower(headers(params, """
                {"name": "t", "arguments": {"region": "us-west1", "priority": 42, "verbose": false,
                  "method_val": "test-method", "wide": "Hello, 世界", "tab": "\\tindented", "inner": {"zone": "a"},
                  "query": "SELECT 1"}}
                """)));
        // Absent or null: no header; another tool: none.
        assertEquals(Map.of("mcp-param-region", "us-east1"), lower(headers(params,
                "{\"name\": \"t\", \"arguments\": {\"region\": \"us-east1\", \"verbose\": null}}")));
        assertEquals(Map.of(), headers(params, "{\"name\": \"other\", \"arguments\": {\"region\": \"x\"}}"));
        // Listed again without annotations: forgotten.
        params.learn(json("{\"tools\": [{\"name\": \"t\", \"inputSchema\": {\"type\": \"object\"}}]}"));
        assertEquals(Map.of(), headers(params, "{\"name\": \"t\", \"arguments\": {\"region\": \"x\"}}"));
    }

    private static Map<String, String> lower(Map<String, String> headers) {
        Map<String, String> lower = new TreeMap<>();
        headers.forEach((name, value) -> lower.put(name.toLowerCase(java.util.Locale.ROOT), value));
        return lower;
    }
}

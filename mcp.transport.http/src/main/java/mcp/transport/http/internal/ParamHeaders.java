package mcp.transport.http.internal;

import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import mcp.protocol.McpHeaders;
import tools.jackson.databind.JsonNode;

/**
 * The {@code Mcp-Param-*} headers of the stateless revision (SEP-2243): a tool whose input schema marks a
 * property with {@code x-mcp-header: NAME} has that argument mirrored into {@code Mcp-Param-NAME} on every
 * {@code tools/call}, so that a gateway can route on it without reading the body. The annotations are learnt
 * from the {@code tools/list} results this transport delivers (a tool listed again replaces what was learnt);
 * an argument that is absent or {@code null} gets no header, a string is sent as it is when it is safe and in
 * the Base64 form otherwise, an integer in decimal, a boolean as {@code true} or {@code false}. Thread-safe.
 */
final class ParamHeaders {

    private static final String ANNOTATION = "x-mcp-header";
    /** The largest integer a header may carry exactly (the JSON-safe range, as the spec says). */
    private static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

    /** A header and the path of property names to the argument it mirrors. */
    private record Header(String name, List<String> path) {
    }

    private final Map<String, List<Header>> byTool = new ConcurrentHashMap<>();

    /** Learns the annotations of the tools of one {@code tools/list} page. */
    void learn(JsonNode listResult) {
        JsonNode tools = listResult == null ? null : listResult.get("tools");
        if (tools == null || !tools.isArray()) {
            return;
        }
        for (JsonNode tool : tools) {
            JsonNode name = tool.get("name");
            if (name != null && name.isString()) {
                List<Header> headers = new ArrayList<>();
                collect(tool.get("inputSchema"), new ArrayList<>(), headers);
                if (headers.isEmpty()) {
                    byTool.remove(name.asString());
                } else {
                    byTool.put(name.asString(), List.copyOf(headers));
                }
            }
        }
    }

    /** The annotated properties, reached through {@code properties} alone (the only place they count). */
    private static void collect(JsonNode schema, List<String> path, List<Header> headers) {
        if (schema == null || !schema.isObject()) {
            return;
        }
        JsonNode annotation = schema.get(ANNOTATION);
        if (!path.isEmpty() && annotation != null && annotation.isString()) {
            headers.add(new Header(annotation.asString(), List.copyOf(path)));
        }
        JsonNode properties = schema.get("properties");
        if (properties != null && properties.isObject()) {
            for (String property : properties.propertyNames()) {
                path.add(property);
                collect(properties.get(property), path, headers);
                path.remove(path.size() - 1);
            }
        }
    }

    /** Sets the headers of a {@code tools/call}'s arguments. */
    void apply(HttpRequest.Builder builder, JsonNode params) {
        JsonNode name = params == null ? null : params.get("name");
        List<Header> headers = name != null && name.isString() ? byTool.get(name.asString()) : null;
        if (headers == null) {
            return;
        }
        JsonNode arguments = params.get("arguments");
        for (Header header : headers) {
            JsonNode value = arguments;
            for (String property : header.path()) {
                value = value == null || !value.isObject() ? null : value.get(property);
            }
            String text = text(value);
            if (text != null) {
                builder.setHeader(McpHeaders.PARAM_PREFIX + header.name(), McpHeaders.encode(text));
            }
        }
    }

    private static String text(JsonNode value) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (value.isString()) {
            return value.asString();
        }
        if (value.isBoolean()) {
            return value.asBoolean() ? "true" : "false";
        }
        if (value.isIntegralNumber() && value.canConvertToLong() && Math.abs(value.asLong()) <= MAX_SAFE_INTEGER) {
            return Long.toString(value.asLong());
        }
        return null; // not a value a header carries (the tool would have been refused for it)
    }
}

package mcp.transport.http.internal;

import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import mcp.protocol.McpHeaders;
import mcp.protocol.ToolHeaders;
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

    private final Map<String, List<ToolHeaders.Annotation>> byTool = new ConcurrentHashMap<>();

    /** Learns the annotations of the tools of one {@code tools/list} page. */
    void learn(JsonNode listResult) {
        JsonNode tools = listResult == null ? null : listResult.get("tools");
        if (tools == null || !tools.isArray()) {
            return;
        }
        for (JsonNode tool : tools) {
            JsonNode name = tool.get("name");
            if (name != null && name.isString()) {
                List<ToolHeaders.Annotation> annotations = ToolHeaders.annotations(tool.get("inputSchema"));
                if (annotations.isEmpty()) {
                    byTool.remove(name.asString());
                } else {
                    byTool.put(name.asString(), List.copyOf(annotations));
                }
            }
        }
    }

    /** Sets the headers of a {@code tools/call}'s arguments. */
    void apply(HttpRequest.Builder builder, JsonNode params) {
        JsonNode name = params == null ? null : params.get("name");
        List<ToolHeaders.Annotation> annotations = name != null && name.isString() ? byTool.get(name.asString()) : null;
        if (annotations == null) {
            return;
        }
        JsonNode arguments = params.get("arguments");
        for (ToolHeaders.Annotation annotation : annotations) {
            // A value a header cannot carry gets none (the tool would have been refused for it).
            ToolHeaders.headerText(ToolHeaders.valueAt(arguments, annotation.path()))
                    .ifPresent(text -> builder.setHeader(annotation.header(), McpHeaders.encode(text)));
        }
    }
}

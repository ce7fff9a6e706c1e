package mcp.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of a {@code tools/call}.
 *
 * @param content the content items, in order
 * @param structuredContent the structured result, when the tool gives one
 * @param isError whether the tool reports a failure (a tool-level error, not a protocol error)
 * @param raw the result exactly as the server sent it
 */
public record ToolResult(List<Content> content, Optional<JsonNode> structuredContent, boolean isError, JsonNode raw) {

    /** Validates and copies. */
    public ToolResult {
        content = List.copyOf(content);
        Objects.requireNonNull(structuredContent, "structuredContent");
        Objects.requireNonNull(raw, "raw");
    }

    /**
     * Reads a result from its MCP JSON form. Unknown members are kept in {@link #raw()}.
     *
     * @param json the {@code result} member of a {@code tools/call} response
     * @return the result
     */
    public static ToolResult fromJson(JsonNode json) {
        List<Content> items = new ArrayList<>();
        for (JsonNode item : json.path("content")) {
            items.add(Content.fromJson(item));
        }
        JsonNode structured = json.get("structuredContent");
        return new ToolResult(items, structured == null || structured.isNull() ? Optional.empty() : Optional.of(structured),
                json.path("isError").asBoolean(false), json);
    }

    /**
     * @param content the items
     * @param isError whether it is an error result
     * @return a result built here (its {@link #raw()} is its JSON form)
     */
    public static ToolResult of(List<Content> content, boolean isError) {
        return of(content, Optional.empty(), isError);
    }

    /**
     * @param content the items
     * @param structuredContent the structured result, or empty
     * @param isError whether it is an error result
     * @return a result built here (its {@link #raw()} is its JSON form)
     */
    public static ToolResult of(List<Content> content, Optional<JsonNode> structuredContent, boolean isError) {
        ObjectNode json = McpJson.object();
        ArrayNode array = json.putArray("content");
        content.forEach(c -> array.add(c.toJson()));
        structuredContent.ifPresent(structured -> json.set("structuredContent", structured));
        if (isError) {
            json.put("isError", true);
        }
        return new ToolResult(content, structuredContent, isError, json);
    }

    /**
     * @param text the text of the only content item
     * @return a successful result with one text item
     */
    public static ToolResult text(String text) {
        return of(List.of(new Content.Text(text)), false);
    }

    /**
     * @param text what went wrong, for the model to read
     * @return a tool-level error result with one text item
     */
    public static ToolResult error(String text) {
        return of(List.of(new Content.Text(text)), true);
    }
}

package mcp.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of a {@code resources/read}: one or more contents (a directory-like resource may give several).
 *
 * @param contents the contents, text or binary, in order
 * @param raw the result exactly as the server sent it
 */
public record ResourceResult(List<ResourceContents> contents, JsonNode raw) {

    /** Validates and copies. */
    public ResourceResult {
        contents = List.copyOf(contents);
        Objects.requireNonNull(raw, "raw");
    }

    /**
     * Reads a result from its MCP JSON form. Unknown members are kept in {@link #raw()}.
     *
     * @param json the {@code result} member of a {@code resources/read} response
     * @return the result
     */
    public static ResourceResult fromJson(JsonNode json) {
        List<ResourceContents> contents = new ArrayList<>();
        for (JsonNode item : json.path("contents")) {
            contents.add(ResourceContents.fromJson(item));
        }
        return new ResourceResult(contents, json);
    }

    /**
     * @param contents the contents
     * @return a result built here (its {@link #raw()} is its JSON form): what a server answers
     */
    public static ResourceResult of(List<ResourceContents> contents) {
        ObjectNode json = McpJson.object();
        ArrayNode array = json.putArray("contents");
        contents.forEach(item -> array.add(item.toJson()));
        return new ResourceResult(contents, json);
    }

    /** @return the decoded size of every content together: see {@link ResourceContents#size()} */
    public long size() {
        return contents.stream().mapToLong(ResourceContents::size).sum();
    }
}

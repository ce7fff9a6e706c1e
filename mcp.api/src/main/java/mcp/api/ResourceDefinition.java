package mcp.api;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A resource as an MCP server lists it in {@code resources/list}.
 *
 * @param uri the resource's URI, which {@code resources/read} takes
 * @param name its name
 * @param title a display title, when given
 * @param description what it is, when given
 * @param mimeType its MIME type, when given
 * @param size its size in bytes as the server states it (before any encoding), when given
 * @param annotations audience, priority and other hints, when given
 */
public record ResourceDefinition(String uri, String name, Optional<String> title, Optional<String> description,
        Optional<String> mimeType, OptionalLong size, Optional<JsonNode> annotations) {

    /** Validates. */
    public ResourceDefinition {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(size, "size");
        Objects.requireNonNull(annotations, "annotations");
    }

    /**
     * Reads a resource from its MCP JSON form; a missing {@code name} is the URI.
     *
     * @param json one element of {@code resources/list}'s {@code resources} array
     * @return the definition
     * @throws McpException if {@code uri} is missing or not a string
     */
    public static ResourceDefinition fromJson(JsonNode json) {
        JsonNode uri = json.get("uri");
        if (uri == null || !uri.isString()) {
            throw new McpException("Invalid resource: \"uri\" must be a string, got " + ToolDefinition.abbreviate(json));
        }
        JsonNode size = json.get("size");
        return new ResourceDefinition(uri.asString(), McpValues.text(json, "name").orElse(uri.asString()),
                McpValues.text(json, "title"), McpValues.text(json, "description"), McpValues.text(json, "mimeType"),
                size != null && size.isIntegralNumber() && size.canConvertToLong() && size.longValue() >= 0
                        ? OptionalLong.of(size.longValue()) : OptionalLong.empty(),
                McpValues.node(json, "annotations"));
    }

    /** @return this definition as MCP writes it (for the tool cache; {@link #fromJson} reads it back) */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        json.put("uri", uri);
        json.put("name", name);
        title.ifPresent(t -> json.put("title", t));
        description.ifPresent(d -> json.put("description", d));
        mimeType.ifPresent(m -> json.put("mimeType", m));
        size.ifPresent(s -> json.put("size", s));
        annotations.ifPresent(a -> json.set("annotations", a));
        return json;
    }
}

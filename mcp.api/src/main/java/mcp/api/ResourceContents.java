package mcp.api;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contents of a resource, text or binary.
 *
 * @param uri the resource's URI
 * @param mimeType its MIME type, when given
 * @param text its text, for a text resource
 * @param blob its base64-encoded bytes, for a binary resource
 */
public record ResourceContents(String uri, Optional<String> mimeType, Optional<String> text, Optional<String> blob) {

    /** Validates. */
    public ResourceContents {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(blob, "blob");
    }

    /**
     * @param json an MCP resource contents object
     * @return the contents
     */
    public static ResourceContents fromJson(JsonNode json) {
        return new ResourceContents(json.path("uri").asString(""), text(json, "mimeType"), text(json, "text"),
                text(json, "blob"));
    }

    /** @return the MCP JSON form */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object().put("uri", uri);
        mimeType.ifPresent(m -> json.put("mimeType", m));
        text.ifPresent(t -> json.put("text", t));
        blob.ifPresent(b -> json.put("blob", b));
        return json;
    }

    private static Optional<String> text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && value.isString() ? Optional.of(value.asString()) : Optional.empty();
    }
}

package mcp.api;

import java.util.Optional;
import tools.jackson.databind.JsonNode;

/** Readers of optional members shared by the value types of lists and results. */
final class McpValues {

    private McpValues() {
    }

    /** @return the member when it is a string */
    static Optional<String> text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && value.isString() ? Optional.of(value.asString()) : Optional.empty();
    }

    /** @return the member when present and not {@code null} */
    static Optional<JsonNode> node(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }
}

package mcp.api;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool as an MCP server lists it in {@code tools/list}.
 *
 * @param name the tool's name on its server
 * @param title a display title, when the server gives one
 * @param description what the tool does, when the server says
 * @param inputSchema the JSON Schema of its arguments (an object schema); passed through as given
 * @param outputSchema the JSON Schema of its structured content, when declared
 * @param annotations behaviour hints ({@code readOnlyHint}, ...), when given
 */
public record ToolDefinition(
        String name,
        Optional<String> title,
        Optional<String> description,
        JsonNode inputSchema,
        Optional<JsonNode> outputSchema,
        Optional<JsonNode> annotations) {

    /** Validates. */
    public ToolDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Objects.requireNonNull(outputSchema, "outputSchema");
        Objects.requireNonNull(annotations, "annotations");
    }

    /**
     * @param name the tool's name
     * @param description what it does
     * @param inputSchema its argument schema
     * @return a definition without title, output schema or annotations
     */
    public static ToolDefinition of(String name, String description, JsonNode inputSchema) {
        return new ToolDefinition(name, Optional.empty(), Optional.ofNullable(description), inputSchema,
                Optional.empty(), Optional.empty());
    }

    /**
     * Reads a tool from its MCP JSON form.
     *
     * @param json one element of {@code tools/list}'s {@code tools} array
     * @return the definition
     * @throws McpException if {@code name} is missing or not a string
     */
    public static ToolDefinition fromJson(JsonNode json) {
        JsonNode name = json.get("name");
        if (name == null || !name.isString()) {
            throw new McpException("Invalid tool definition: \"name\" must be a string, got " + abbreviate(json));
        }
        JsonNode schema = json.get("inputSchema");
        if (schema == null || !schema.isObject()) {
            schema = McpJson.object().put("type", "object");
        }
        return new ToolDefinition(name.asString(), text(json, "title"), text(json, "description"), schema,
                node(json, "outputSchema"), node(json, "annotations"));
    }

    /** @return the MCP JSON form of this tool */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        json.put("name", name);
        title.ifPresent(t -> json.put("title", t));
        description.ifPresent(d -> json.put("description", d));
        json.set("inputSchema", inputSchema);
        outputSchema.ifPresent(s -> json.set("outputSchema", s));
        annotations.ifPresent(a -> json.set("annotations", a));
        return json;
    }

    private static Optional<String> text(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value != null && value.isString() ? Optional.of(value.asString()) : Optional.empty();
    }

    private static Optional<JsonNode> node(JsonNode json, String field) {
        JsonNode value = json.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value);
    }

    static String abbreviate(JsonNode json) {
        String text = String.valueOf(json);
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}

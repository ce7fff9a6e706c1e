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
 * @param meta the tool's {@code _meta} object, when given (for instance {@code anthropic/maxResultSizeChars}, the
 *     result size the server asks for; see {@code docs/context-budget.md}); not part of what is pinned
 * @param execution how the server runs the tool ({@code execution}, such as {@code taskSupport}), when it says;
 *     not part of what is pinned
 */
public record ToolDefinition(
        String name,
        Optional<String> title,
        Optional<String> description,
        JsonNode inputSchema,
        Optional<JsonNode> outputSchema,
        Optional<JsonNode> annotations,
        Optional<JsonNode> meta,
        Optional<JsonNode> execution) {

    /** Validates. */
    public ToolDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(inputSchema, "inputSchema");
        Objects.requireNonNull(outputSchema, "outputSchema");
        Objects.requireNonNull(annotations, "annotations");
        Objects.requireNonNull(meta, "meta");
        Objects.requireNonNull(execution, "execution");
    }

    /** A definition without {@code execution}. */
    public ToolDefinition(String name, Optional<String> title, Optional<String> description, JsonNode inputSchema,
            Optional<JsonNode> outputSchema, Optional<JsonNode> annotations, Optional<JsonNode> meta) {
        this(name, title, description, inputSchema, outputSchema, annotations, meta, Optional.empty());
    }

    /** A definition without {@code _meta}. */
    public ToolDefinition(String name, Optional<String> title, Optional<String> description, JsonNode inputSchema,
            Optional<JsonNode> outputSchema, Optional<JsonNode> annotations) {
        this(name, title, description, inputSchema, outputSchema, annotations, Optional.empty(), Optional.empty());
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
                node(json, "outputSchema"), node(json, "annotations"),
                node(json, "_meta").filter(JsonNode::isObject), node(json, "execution").filter(JsonNode::isObject));
    }

    /**
     * Whether the model may see and call this tool, by the MCP Apps extension ({@code io.modelcontextprotocol/ui}):
     * a tool whose {@code _meta.ui.visibility} is a list without {@code "model"} (such as {@code ["app"]}, or
     * {@code []}) is meant for an app's view and is kept from the model. Without that list (no {@code _meta.ui},
     * no {@code visibility}) the extension's default holds: visible to both. A {@code visibility} that is not a list
     * is not the extension's and counts as absent.
     *
     * @return whether the tool belongs in the model's tool set
     */
    public boolean visibleToModel() {
        return hasAudience("model");
    }

    /**
     * Whether an app's view may call this tool (through its host, on the same server connection only), by the MCP
     * Apps extension: its {@code _meta.ui.visibility} names {@code "app"}, or is absent (the default is both).
     *
     * @return whether an app bridge may call it
     */
    public boolean visibleToApp() {
        return hasAudience("app");
    }

    private boolean hasAudience(String audience) {
        JsonNode visibility = meta.map(m -> m.path("ui").path("visibility")).orElse(null);
        if (visibility == null || !visibility.isArray()) {
            return true;
        }
        for (JsonNode item : visibility) {
            if (item.isString() && item.asString().equals(audience)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return whether the server says the tool may run as a task ({@code execution.taskSupport} {@code "optional"}
     *     or {@code "required"}); by the spec's default, not when it says nothing
     */
    public boolean mayRunAsTask() {
        String support = execution.map(e -> e.path("taskSupport").asString("")).orElse("");
        return support.equals("optional") || support.equals("required");
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
        meta.ifPresent(m -> json.set("_meta", m));
        execution.ifPresent(e -> json.set("execution", e));
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

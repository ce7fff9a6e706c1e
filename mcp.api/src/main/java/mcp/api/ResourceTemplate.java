package mcp.api;

import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A resource template as an MCP server lists it in {@code resources/templates/list}: a family of
 * resources whose URIs follow an RFC 6570 template.
 *
 * @param uriTemplate the URI template, e.g. {@code file:///{path}}
 * @param name its name
 * @param title a display title, when given
 * @param description what its resources are, when given
 * @param mimeType the MIME type of its resources, when all share one
 * @param annotations audience, priority and other hints, when given
 */
public record ResourceTemplate(String uriTemplate, String name, Optional<String> title, Optional<String> description,
        Optional<String> mimeType, Optional<JsonNode> annotations) {

    /** Validates. */
    public ResourceTemplate {
        Objects.requireNonNull(uriTemplate, "uriTemplate");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(mimeType, "mimeType");
        Objects.requireNonNull(annotations, "annotations");
    }

    /**
     * Reads a template from its MCP JSON form; a missing {@code name} is the template.
     *
     * @param json one element of {@code resources/templates/list}'s {@code resourceTemplates} array
     * @return the template
     * @throws McpException if {@code uriTemplate} is missing or not a string
     */
    public static ResourceTemplate fromJson(JsonNode json) {
        JsonNode template = json.get("uriTemplate");
        if (template == null || !template.isString()) {
            throw new McpException("Invalid resource template: \"uriTemplate\" must be a string, got "
                    + ToolDefinition.abbreviate(json));
        }
        return new ResourceTemplate(template.asString(), McpValues.text(json, "name").orElse(template.asString()),
                McpValues.text(json, "title"), McpValues.text(json, "description"), McpValues.text(json, "mimeType"),
                McpValues.node(json, "annotations"));
    }

    /** @return this template as MCP writes it (for the tool cache; {@link #fromJson} reads it back) */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        json.put("uriTemplate", uriTemplate);
        json.put("name", name);
        title.ifPresent(t -> json.put("title", t));
        description.ifPresent(d -> json.put("description", d));
        mimeType.ifPresent(m -> json.put("mimeType", m));
        annotations.ifPresent(a -> json.set("annotations", a));
        return json;
    }
}

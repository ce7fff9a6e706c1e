package mcp.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A prompt as an MCP server lists it in {@code prompts/list}.
 *
 * @param name the prompt's name on its server
 * @param title a display title, when the server gives one
 * @param description what the prompt is for, when the server says
 * @param arguments the arguments it takes, in the server's order (none when it lists none)
 */
public record PromptDefinition(String name, Optional<String> title, Optional<String> description,
        List<Argument> arguments) {

    /** Validates and copies. */
    public PromptDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(description, "description");
        arguments = List.copyOf(arguments);
    }

    /**
     * One argument of a prompt.
     *
     * @param name its name
     * @param title a display title, when given
     * @param description what it is, when given
     * @param required whether {@code prompts/get} must give it (default {@code false})
     */
    public record Argument(String name, Optional<String> title, Optional<String> description, boolean required) {
        /** Validates. */
        public Argument {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(title, "title");
            Objects.requireNonNull(description, "description");
        }
    }

    /**
     * Reads a prompt from its MCP JSON form. Arguments without a string {@code name} are left out.
     *
     * @param json one element of {@code prompts/list}'s {@code prompts} array
     * @return the definition
     * @throws McpException if {@code name} is missing or not a string
     */
    public static PromptDefinition fromJson(JsonNode json) {
        JsonNode name = json.get("name");
        if (name == null || !name.isString()) {
            throw new McpException("Invalid prompt definition: \"name\" must be a string, got "
                    + ToolDefinition.abbreviate(json));
        }
        List<Argument> arguments = new ArrayList<>();
        for (JsonNode argument : json.path("arguments")) {
            JsonNode argName = argument.get("name");
            if (argName != null && argName.isString()) {
                arguments.add(new Argument(argName.asString(), McpValues.text(argument, "title"),
                        McpValues.text(argument, "description"), argument.path("required").asBoolean(false)));
            }
        }
        return new PromptDefinition(name.asString(), McpValues.text(json, "title"), McpValues.text(json, "description"),
                arguments);
    }

    /** @return this definition as MCP writes it (for the tool cache; {@link #fromJson} reads it back) */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object();
        json.put("name", name);
        title.ifPresent(t -> json.put("title", t));
        description.ifPresent(d -> json.put("description", d));
        if (!arguments.isEmpty()) {
            ArrayNode array = json.putArray("arguments");
            for (Argument argument : arguments) {
                ObjectNode item = array.addObject().put("name", argument.name());
                argument.title().ifPresent(t -> item.put("title", t));
                argument.description().ifPresent(d -> item.put("description", d));
                if (argument.required()) {
                    item.put("required", true);
                }
            }
        }
        return json;
    }
}

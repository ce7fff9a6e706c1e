package mcp.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of a {@code prompts/get}: the prompt's messages with the arguments filled in.
 *
 * @param description the prompt's description, when the server gives one
 * @param messages the messages, in order
 * @param raw the result exactly as the server sent it
 */
public record PromptResult(Optional<String> description, List<Message> messages, JsonNode raw) {

    /** Validates and copies. */
    public PromptResult {
        Objects.requireNonNull(description, "description");
        messages = List.copyOf(messages);
        Objects.requireNonNull(raw, "raw");
    }

    /**
     * One message of a prompt.
     *
     * @param role {@code user} or {@code assistant} (as the server sent it; {@code ""} when absent)
     * @param content its content item; {@link Content.Unknown} for a kind this version does not know
     */
    public record Message(String role, Content content) {
        /** Validates. */
        public Message {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(content, "content");
        }
    }

    /**
     * Reads a result from its MCP JSON form. Unknown members are kept in {@link #raw()}.
     *
     * @param json the {@code result} member of a {@code prompts/get} response
     * @return the result
     */
    public static PromptResult fromJson(JsonNode json) {
        List<Message> messages = new ArrayList<>();
        for (JsonNode message : json.path("messages")) {
            messages.add(new Message(message.path("role").asString(""), Content.fromJson(message.path("content"))));
        }
        return new PromptResult(McpValues.text(json, "description"), messages, json);
    }

    /**
     * @param description the prompt's description, or empty
     * @param messages the messages
     * @return a result built here (its {@link #raw()} is its JSON form): what a server answers
     */
    public static PromptResult of(Optional<String> description, List<Message> messages) {
        ObjectNode json = McpJson.object();
        description.ifPresent(text -> json.put("description", text));
        ArrayNode array = json.putArray("messages");
        messages.forEach(message -> array.addObject().put("role", message.role()).set("content",
                message.content().toJson()));
        return new PromptResult(description, messages, json);
    }
}

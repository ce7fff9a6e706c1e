package mcp.manager;

import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Ready answers to {@code elicitation/create}, the server asking the user for input. Register one
 * with {@link ClientOptions.Builder#handler(String, ServerRequestHandler)} under
 * {@link ClientOptions#ELICITATION_METHOD} (or through the host's {@code clientSettings}); only then
 * does the client declare the {@code elicitation} capability.
 *
 * <p>A form-mode request carries {@code message} and {@code requestedSchema}: a flat object schema whose
 * properties are strings, numbers, integers, booleans or enums, each with an optional {@code default}
 * (SEP-1034). The answer is {@code {"action": "accept", "content": {...}}}, {@code {"action": "decline"}} or
 * {@code {"action": "cancel"}}. A URL-mode request ({@code "mode": "url"}) asks the user to visit a page;
 * these handlers, having no user, decline it.
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.builder("server")
 *         .handler(ClientOptions.ELICITATION_METHOD, ElicitationHandlers.acceptDefaults())
 *         .build();
 * }</pre>
 */
public final class ElicitationHandlers {

    private ElicitationHandlers() {
    }

    /**
     * Accepts every form with the schema's defaults: each property that has a {@code default} gets
     * it. When a required property has no default, no valid answer exists without a user, so the
     * request is declined; so is a URL-mode request.
     *
     * @return the handler
     */
    public static ServerRequestHandler acceptDefaults() {
        return accepting(params -> McpJson.object());
    }

    /**
     * Answers with what {@code answer} returns, completed by the schema's defaults for every property
     * it left out (SEP-1034: a client applies the defaults of omitted fields). {@code answer} gets the
     * request's params and may block (to ask a person); it returns the content, or {@code null} to
     * decline. The request is declined too when a required property is still missing, and when it is a
     * URL-mode request.
     *
     * @param answer the content for a request's params, possibly partial, or {@code null}
     * @return the handler
     */
    public static ServerRequestHandler accepting(Function<JsonNode, JsonNode> answer) {
        Objects.requireNonNull(answer, "answer");
        return params -> {
            if (params != null && "url".equals(params.path("mode").asString(""))) {
                return action("decline");
            }
            JsonNode schema = params == null ? null : params.get("requestedSchema");
            JsonNode given = answer.apply(params);
            if (given == null || given.isNull()) {
                return action("decline");
            }
            ObjectNode content = applyDefaults(schema, given);
            for (JsonNode required : schema == null ? McpJson.mapper().createArrayNode() : schema.path("required")) {
                if (required.isString() && !content.has(required.asString())) {
                    return action("decline");
                }
            }
            ObjectNode result = action("accept");
            result.set("content", content);
            return result;
        };
    }

    /** @return a handler that declines every request */
    public static ServerRequestHandler decline() {
        return params -> action("decline");
    }

    /**
     * Completes content with a requested schema's defaults: a copy of {@code content} in which every
     * property of the schema that {@code content} lacks and that has a {@code default} gets that default.
     *
     * @param requestedSchema the request's {@code requestedSchema}, or {@code null}
     * @param content the content so far (an object), or {@code null} for none
     * @return a new object; {@code content} is not changed
     */
    public static ObjectNode applyDefaults(JsonNode requestedSchema, JsonNode content) {
        ObjectNode result = content != null && content.isObject() ? ((ObjectNode) content).deepCopy() : McpJson.object();
        JsonNode properties = requestedSchema == null ? null : requestedSchema.get("properties");
        if (properties == null || !properties.isObject()) {
            return result;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = properties.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> property = it.next();
            JsonNode defaultValue = property.getValue().get("default");
            if (defaultValue != null && !defaultValue.isNull() && !result.has(property.getKey())) {
                result.set(property.getKey(), defaultValue.deepCopy());
            }
        }
        return result;
    }

    private static ObjectNode action(String action) {
        return McpJson.object().put("action", action);
    }
}

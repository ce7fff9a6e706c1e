package mcp.server;

import java.util.Objects;
import mcp.api.McpJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Something a server asks of the client while it serves a request: a {@code sampling/createMessage}, an
 * {@code elicitation/create} or a {@code roots/list}. The handshake era sends it as a request of the server's own;
 * the stateless revision as one of the {@code inputRequests} of an {@code input_required} result
 * ({@link RequestContext#ask}).
 *
 * @param method the method
 * @param params its params (an empty object for none)
 */
public record InputRequest(String method, JsonNode params) {

    /** Validates. */
    public InputRequest {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(params, "params");
    }

    /**
     * @param params an {@code ElicitRequestParams} ({@code message}, {@code requestedSchema}; or URL mode)
     * @return the request
     */
    public static InputRequest elicitation(JsonNode params) {
        return new InputRequest("elicitation/create", params);
    }

    /**
     * @param params a {@code CreateMessageRequestParams} ({@code messages}, {@code maxTokens}, ...)
     * @return the request
     */
    public static InputRequest sampling(JsonNode params) {
        return new InputRequest("sampling/createMessage", params);
    }

    /** @return a {@code roots/list} request */
    public static InputRequest roots() {
        return new InputRequest("roots/list", McpJson.object());
    }

    /** @return the JSON form of an {@code InputRequest} of the stateless revision ({@code method}, {@code params}) */
    public ObjectNode toJson() {
        ObjectNode json = McpJson.object().put("method", method);
        json.set("params", params);
        return json;
    }
}

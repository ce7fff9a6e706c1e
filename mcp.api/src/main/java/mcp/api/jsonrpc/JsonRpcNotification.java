package mcp.api.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A notification, which gets no response.
 *
 * @param method the method name
 * @param params the parameters, or {@code null} when absent
 */
public record JsonRpcNotification(String method, JsonNode params) implements JsonRpcMessage {
    /** Validates. */
    public JsonRpcNotification {
        Objects.requireNonNull(method, "method");
    }
}

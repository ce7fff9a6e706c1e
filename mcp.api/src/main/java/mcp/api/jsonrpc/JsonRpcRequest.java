package mcp.api.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A request, which expects a response with the same id.
 *
 * @param id the request id
 * @param method the method name
 * @param params the parameters, or {@code null} when absent
 */
public record JsonRpcRequest(RequestId id, String method, JsonNode params) implements JsonRpcMessage {
    /** Validates. */
    public JsonRpcRequest {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(method, "method");
    }
}

package mcp.api.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A successful response.
 *
 * @param id the id of the request answered
 * @param result the result (a JSON {@code null} is a {@code NullNode}, never Java {@code null})
 */
public record JsonRpcSuccess(RequestId id, JsonNode result) implements JsonRpcResponse {
    /** Validates. */
    public JsonRpcSuccess {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(result, "result");
    }
}

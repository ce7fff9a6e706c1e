package mcp.api.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * An error response.
 *
 * @param id the id of the request answered; {@code null} when the request could not be read
 * @param code the error code (see the constants)
 * @param message a short description
 * @param data more detail, or {@code null} when absent
 */
public record JsonRpcError(RequestId id, int code, String message, JsonNode data) implements JsonRpcResponse {

    /** Invalid JSON was received. */
    public static final int PARSE_ERROR = -32700;
    /** The JSON sent is not a valid request object. */
    public static final int INVALID_REQUEST = -32600;
    /** The method does not exist or is not available. */
    public static final int METHOD_NOT_FOUND = -32601;
    /** Invalid method parameters. */
    public static final int INVALID_PARAMS = -32602;
    /** Internal error. */
    public static final int INTERNAL_ERROR = -32603;

    /** Validates. */
    public JsonRpcError {
        Objects.requireNonNull(message, "message");
    }
}

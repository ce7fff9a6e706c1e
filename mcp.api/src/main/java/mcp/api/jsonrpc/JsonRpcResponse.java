package mcp.api.jsonrpc;

/** The answer to a request: a {@link JsonRpcSuccess} or a {@link JsonRpcError}. */
public sealed interface JsonRpcResponse extends JsonRpcMessage permits JsonRpcSuccess, JsonRpcError {

    /** @return the id of the request answered; {@code null} only for an error about an unreadable request */
    RequestId id();
}

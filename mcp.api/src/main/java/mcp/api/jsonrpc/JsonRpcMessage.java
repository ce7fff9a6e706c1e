package mcp.api.jsonrpc;

/** A JSON-RPC 2.0 message: a request, a notification, or a response (success or error). */
public sealed interface JsonRpcMessage permits JsonRpcRequest, JsonRpcNotification, JsonRpcResponse {
}

/**
 * JSON-RPC 2.0 messages as sealed records ({@link mcp.api.jsonrpc.JsonRpcRequest},
 * {@link mcp.api.jsonrpc.JsonRpcNotification}, {@link mcp.api.jsonrpc.JsonRpcSuccess},
 * {@link mcp.api.jsonrpc.JsonRpcError}) and {@link mcp.api.jsonrpc.JsonRpcCodec}, which reads and
 * writes them on Jackson. Transports move these messages; they know nothing of MCP methods.
 */
package mcp.api.jsonrpc;

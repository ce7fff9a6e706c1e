/**
 * The client side of MCP. {@link mcp.manager.McpClient#connect} starts a transport, performs the
 * {@code initialize} handshake and returns a session that lists and calls tools. Every operation is
 * asynchronous ({@link java.util.concurrent.CompletableFuture}) with a blocking convenience, and
 * every wait is bounded.
 */
package mcp.manager;

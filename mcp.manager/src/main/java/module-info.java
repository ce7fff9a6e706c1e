/**
 * The MCP client protocol: one {@link mcp.manager.McpClient} session per server over any
 * {@link mcp.api.spi.Transport}, with request correlation, the {@code initialize} handshake,
 * answers to server requests, paginated {@code tools/list}, and {@code tools/call} with timeouts,
 * progress and cancellation.
 *
 * @uses mcp.api.spi.TransportProvider
 */
module mcp.manager {
    requires transitive mcp.api;
    requires org.slf4j;

    exports mcp.manager;

    uses mcp.api.spi.TransportProvider;
}

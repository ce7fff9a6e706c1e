/**
 * The server side of MCP: both eras (the {@code initialize} handshake up to 2025-11-25, and the stateless
 * 2026-07-28 revision) on one endpoint, over stdio and Streamable HTTP, with the protocol rules of
 * {@code mcp.protocol} that the client side uses too.
 *
 * <p>{@link mcp.server.McpServer} serves a {@link mcp.server.RequestHandler}: the typed
 * {@link mcp.server.ServerFeatures}, or a handler of one's own (a gateway's). Handlers see one
 * {@link mcp.server.RequestContext} in both eras; what a handler asks of the client becomes a server request of the
 * handshake era or an {@code input_required} round of the stateless one. The implementation lives in
 * {@code mcp.server.internal}.
 */
module mcp.server {
    // Transitive: the API takes and returns mcp.api values (ToolResult, ...) and mcp.protocol's (Era, CacheHints).
    requires transitive mcp.protocol;
    requires org.slf4j;
    // The embedded HTTP server, Jetty 12.1 core (behind mcp.server.internal.HttpBackend, so it can be swapped).
    requires org.eclipse.jetty.server;

    exports mcp.server;
}

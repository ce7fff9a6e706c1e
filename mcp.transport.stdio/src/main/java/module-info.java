/**
 * The stdio transport of mcp-host: it starts an MCP server as a child process (directly, never
 * through a shell) and exchanges newline-delimited JSON-RPC messages with it over stdin and stdout.
 *
 * <p>The transport drains the child's stderr into a bounded tail that explains failures, skips
 * stdout lines that are not JSON-RPC, closes the connection on an oversized message, and on close
 * ends the whole process tree (close stdin, terminate, kill; each step bounded). A JVM shutdown hook
 * kills the trees of transports still open when the JVM exits.
 *
 * <p>The exported package {@code mcp.transport.stdio} holds only {@link mcp.transport.stdio.StdioTransports}
 * (the provider id, the limits, and a factory for embedders that switch service discovery off); the
 * implementation lives in {@code mcp.transport.stdio.internal}.
 *
 * @provides mcp.api.spi.TransportProvider the {@code stdio} transport provider
 */
module mcp.transport.stdio {
    // Transitive: StdioTransports.provider() returns an mcp.api type.
    requires transitive mcp.api;
    requires org.slf4j;

    exports mcp.transport.stdio;

    provides mcp.api.spi.TransportProvider with mcp.transport.stdio.internal.StdioTransportProvider;
}

/**
 * The public surface of the stdio transport: {@link mcp.transport.stdio.StdioTransports}, which names
 * the provider id and the fixed limits, and creates the provider for embedders that pass provider
 * instances instead of relying on {@link java.util.ServiceLoader}.
 *
 * <p>Everything else (the process handling, the line reader, the stderr tail) is internal; the host
 * reaches it only through {@link mcp.api.spi.TransportProvider} and {@link mcp.api.spi.Transport}.
 */
package mcp.transport.stdio;

/**
 * The public surface of the HTTP transports: {@link mcp.transport.http.HttpTransports}, which names the
 * provider ids and the fixed limits, describes the behaviour, and creates the providers and the
 * {@code values} auth resolver for embedders that pass instances instead of relying on
 * {@link java.util.ServiceLoader}.
 *
 * <p>Everything else is internal; the host reaches it only through {@link mcp.api.spi.TransportProvider},
 * {@link mcp.api.spi.Transport} and {@link mcp.api.spi.AuthResolver}.
 */
package mcp.transport.http;

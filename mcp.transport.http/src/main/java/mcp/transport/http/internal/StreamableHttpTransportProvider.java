package mcp.transport.http.internal;

import java.util.Objects;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.transport.http.HttpTransports;

/**
 * The {@code http} transport provider: Streamable HTTP, falling back to legacy HTTP+SSE when the
 * server is not a Streamable HTTP endpoint. Opening sends nothing; the first message does.
 * Stateless and thread-safe; public with a public no-argument constructor for {@link java.util.ServiceLoader}.
 */
public final class StreamableHttpTransportProvider implements TransportProvider {

    /** Creates the provider. */
    public StreamableHttpTransportProvider() {
    }

    @Override
    public String id() {
        return HttpTransports.HTTP_PROVIDER_ID;
    }

    @Override
    public Transport open(TransportRequest request) {
        Objects.requireNonNull(request, "request");
        if (!(request.config() instanceof HttpServerConfig config)) {
            throw new McpException("The http transport cannot open MCP server \"" + request.serverName()
                    + "\": its config has type \"" + request.config().type() + "\" ("
                    + request.config().getClass().getSimpleName() + "), and only HttpServerConfig is supported; use "
                    + "the transport provider for that type");
        }
        HttpEndpoint endpoint = HttpEndpoint.of(request, config.url(), config.headers(), config.headerCommands(),
                config.timeout());
        endpoint.attachOAuth(request, config.auth());
        return new StreamableHttpTransport(endpoint, true);
    }
}

package mcp.transport.http.internal;

import java.util.Objects;
import mcp.api.McpException;
import mcp.api.SseServerConfig;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.transport.http.HttpTransports;

/**
 * The {@code sse} transport provider: the legacy HTTP+SSE transport. The SSE stream is opened by
 * {@link Transport#start}. Stateless and thread-safe; public with a public no-argument constructor
 * for {@link java.util.ServiceLoader}.
 */
public final class LegacySseTransportProvider implements TransportProvider {

    /** Creates the provider. */
    public LegacySseTransportProvider() {
    }

    @Override
    public String id() {
        return HttpTransports.SSE_PROVIDER_ID;
    }

    @Override
    public Transport open(TransportRequest request) {
        Objects.requireNonNull(request, "request");
        if (!(request.config() instanceof SseServerConfig config)) {
            throw new McpException("The sse transport cannot open MCP server \"" + request.serverName()
                    + "\": its config has type \"" + request.config().type() + "\" ("
                    + request.config().getClass().getSimpleName() + "), and only SseServerConfig is supported; use "
                    + "the transport provider for that type");
        }
        HttpEndpoint endpoint = HttpEndpoint.of(request, config.url(), config.headers(), config.headerCommands(),
                config.timeout());
        endpoint.attachOAuth(request, config.auth());
        return new LegacySseTransport(endpoint, null);
    }
}

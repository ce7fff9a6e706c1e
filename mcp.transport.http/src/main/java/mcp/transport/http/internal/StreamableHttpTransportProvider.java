package mcp.transport.http.internal;

import java.util.Objects;
import mcp.api.HttpServerConfig;
import mcp.api.McpException;
import mcp.api.spi.Transport;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.transport.http.HttpTransports;
import mcp.transport.http.internal.oauth.OAuthClient;

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
        HttpEndpoint endpoint = HttpEndpoint.of(request, config.url(), config.headers(), config.timeout());
        if (request.auth().isPresent() && (config.auth().isPresent() || config.headers().keySet().stream()
                .noneMatch("Authorization"::equalsIgnoreCase))) {
            // A server configured with its own Authorization header (and no "auth") manages its credentials itself.
            endpoint.oauth = OAuthClient.create(request.serverName(), endpoint.uri, config, request.auth().get(),
                    endpoint.client, endpoint.timeout, endpoint.executor, "mcp-host/" + HttpTransports.VERSION);
        }
        return new StreamableHttpTransport(endpoint, true);
    }
}

/**
 * The HTTP transports of mcp-host, on {@code java.net.http}: Streamable HTTP (provider {@code http})
 * and the legacy HTTP+SSE transport (provider {@code sse}), both with the OAuth 2.1 client of
 * {@code mcp.auth} (the MCP authorization spec); and the value-substitution auth resolver (id
 * {@code values}) that turns {@code !command} and environment-variable references in header and env
 * values, and stored bearer credentials, into concrete values just before connect.
 *
 * <p>The exported package {@code mcp.transport.http} holds only {@link mcp.transport.http.HttpTransports}
 * (the ids, the fixed limits, and factories for embedders that switch service discovery off, the file auth
 * storage of {@code mcp.auth} included); the implementation lives in {@code mcp.transport.http.internal}.
 * The OAuth client, the {@code file} auth storage and the authorization UIs live in module {@code mcp.auth},
 * whose implementation package is exported to this module alone.
 *
 * @provides mcp.api.spi.TransportProvider the {@code http} (Streamable HTTP) and {@code sse} (legacy HTTP+SSE)
 *     transport providers
 * @provides mcp.api.spi.AuthResolver the {@code values} resolver ({@code !command} values, environment-variable names,
 *     stored bearer credentials)
 */
module mcp.transport.http {
    // Transitive: HttpTransports' factories return mcp.api types.
    requires transitive mcp.api;
    // The protocol rules shared with the server side: header names and values, the envelope, the SSE format.
    requires mcp.protocol;
    // The OAuth client that authorizes the requests (a qualified export of mcp.auth.internal).
    requires mcp.auth;
    requires java.net.http;
    requires org.slf4j;

    exports mcp.transport.http;

    provides mcp.api.spi.TransportProvider with
            mcp.transport.http.internal.StreamableHttpTransportProvider,
            mcp.transport.http.internal.LegacySseTransportProvider;
    provides mcp.api.spi.AuthResolver with mcp.transport.http.internal.ValuesAuthResolver;
}

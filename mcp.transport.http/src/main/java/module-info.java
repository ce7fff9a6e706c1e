/**
 * The HTTP transports of mcp-host, on {@code java.net.http}: Streamable HTTP (provider {@code http})
 * and the legacy HTTP+SSE transport (provider {@code sse}), both with an OAuth 2.1 client (the MCP
 * authorization spec); the value-substitution auth resolver (id {@code values}) that turns
 * {@code !command} and environment-variable references in header and env values, and stored bearer
 * credentials, into concrete values just before connect; the file auth storage (id {@code file}) that
 * keeps credentials between runs; and the authorization UIs.
 *
 * <p>The exported package {@code mcp.transport.http} holds only {@link mcp.transport.http.HttpTransports}
 * (the ids, the fixed limits, and factories for embedders that switch service discovery off); the
 * implementation lives in {@code mcp.transport.http.internal} and its sub-package {@code oauth}.
 *
 * @provides mcp.api.spi.TransportProvider the {@code http} (Streamable HTTP) and {@code sse} (legacy HTTP+SSE)
 *     transport providers
 * @provides mcp.api.spi.AuthResolver the {@code values} resolver ({@code !command} values, environment-variable names,
 *     stored bearer credentials)
 * @provides mcp.api.spi.AuthStorage the {@code file} store (one owner-only JSON file per credential)
 * @provides mcp.api.spi.AuthorizationUi the {@code browser} (system browser, redirect received on 127.0.0.1) and
 *     {@code headless} (follows an immediate redirect itself) authorization UIs
 */
module mcp.transport.http {
    // Transitive: HttpTransports' factories return mcp.api types.
    requires transitive mcp.api;
    requires java.net.http;
    // The loopback receiver of the OAuth redirect.
    requires jdk.httpserver;
    requires org.slf4j;

    exports mcp.transport.http;

    provides mcp.api.spi.TransportProvider with
            mcp.transport.http.internal.StreamableHttpTransportProvider,
            mcp.transport.http.internal.LegacySseTransportProvider;
    provides mcp.api.spi.AuthResolver with mcp.transport.http.internal.ValuesAuthResolver;
    provides mcp.api.spi.AuthStorage with mcp.transport.http.internal.oauth.FileAuthStorage;
    provides mcp.api.spi.AuthorizationUi with
            mcp.transport.http.internal.oauth.BrowserAuthorizationUi,
            mcp.transport.http.internal.oauth.HeadlessAuthorizationUi;
}

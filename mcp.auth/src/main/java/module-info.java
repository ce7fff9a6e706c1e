/**
 * The OAuth 2.1 client of mcp-host (the MCP authorization spec): discovery of the protected resource and
 * authorization server metadata with the issuer checked, dynamic client registration, PKCE, the grants
 * (authorization code, client credentials, JWT bearer, workload identity, cross-app access), DPoP with
 * server nonces, refresh and step-up; the {@code file} auth storage that keeps credentials between runs;
 * and the {@code browser} and {@code headless} authorization UIs with their loopback redirect receiver.
 * The HTTP transports move bytes; this module decides what authorizes them.
 *
 * <p>The exported package {@code mcp.auth} holds only {@link mcp.auth.AuthProviders} (the id of the file
 * auth storage and factories for embedders that switch service discovery off). The services are reached
 * through the SPIs of {@code mcp.api} ({@link mcp.api.spi.AuthStorage}, {@link mcp.api.spi.AuthorizationUi}),
 * found by {@link java.util.ServiceLoader} under the ids they had when they lived in
 * {@code mcp.transport.http}. The one client of the OAuth client itself is the HTTP transport, which
 * presents its tokens and hands it the challenges: it gets the implementation package
 * {@code mcp.auth.internal} through a qualified export, so that the OAuth client's working interface
 * (create, present, ready, challenged, nonce) is not offered to anyone else as a supported API, and no new
 * SPI in {@code mcp.api} is needed for a single caller.
 *
 * @provides mcp.api.spi.AuthStorage the {@code file} store (one owner-only JSON file per credential)
 * @provides mcp.api.spi.AuthorizationUi the {@code browser} (system browser, redirect received on 127.0.0.1) and
 *     {@code headless} (follows an immediate redirect itself) authorization UIs
 */
module mcp.auth {
    // Transitive: AuthProviders' factories and the OAuth client's signatures speak in mcp.api types.
    requires transitive mcp.api;
    requires java.net.http;
    // The loopback receiver of the OAuth redirect.
    requires jdk.httpserver;
    requires org.slf4j;

    exports mcp.auth;
    // The OAuth client for the HTTP transports, and the helpers both share (URL redaction, bounded bodies).
    exports mcp.auth.internal to mcp.transport.http;

    provides mcp.api.spi.AuthStorage with mcp.auth.internal.FileAuthStorage;
    provides mcp.api.spi.AuthorizationUi with
            mcp.auth.internal.BrowserAuthorizationUi,
            mcp.auth.internal.HeadlessAuthorizationUi;
}

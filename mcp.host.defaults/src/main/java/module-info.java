/**
 * The host with its default providers, in one module to require or to name in {@code jlink --add-modules}: the
 * embedding facade ({@code mcp.host}, read transitively), the {@code stdio} transport, the {@code http} and
 * {@code sse} transports, the OAuth client with the {@code file} auth storage and the authorization UIs, and the
 * {@code file} tool cache. It has no code: like the JDK's {@code java.se}, it only names modules, so that a module
 * graph (and a jlink image) that reads it holds every provider the host looks up by default.
 *
 * <p>No logging backend comes with it: the embedder chooses one (mcp-host logs through SLF4J).
 */
module mcp.host.defaults {
    requires transitive mcp.host;

    // Providers: required so that they are in the module graph (and the image); nothing of them is read here.
    requires mcp.transport.stdio;
    requires mcp.transport.http;
    requires mcp.auth;
    requires mcp.cache;
    // The JSON Schema validator of structured tool results requires it only statically (date-time formats).
    requires com.ethlo.time;
    // ES256 client assertions and DPoP proofs of the OAuth client: a separate JDK module on Java 17.
    requires jdk.crypto.ec;
}

/**
 * The rules of MCP that its client side ({@code mcp.manager}, {@code mcp.transport.http}) and its server side
 * ({@code mcp.server}) share, in one place so that the two never drift apart: which protocol versions exist and to
 * which era each belongs, and how a version is agreed; the {@code _meta} envelope of the stateless revision; the
 * error codes beyond JSON-RPC's own; {@code resultType} and the caching hints of a result; the subscription filter
 * of {@code subscriptions/listen}; the HTTP header names and the encoding of their values; and the framing of
 * server-sent events, written by the server and read by the client.
 *
 * <p>The JSON-RPC messages and their codec stay in {@code mcp.api} ({@link mcp.api.jsonrpc}): transports that know
 * nothing of MCP use them too. This module holds rules and small values, no I/O and no threads.
 */
module mcp.protocol {
    // Transitive: the rules read and write mcp.api's JSON-RPC messages and Jackson trees.
    requires transitive mcp.api;

    // Optional: spans and metrics when the application has OpenTelemetry (McpTelemetry); guarded, never loaded without.
    requires static io.opentelemetry.api;
    requires static io.opentelemetry.context;

    exports mcp.protocol;
    // The tracing both sides run, on one implementation of the conventions.
    exports mcp.protocol.internal to mcp.manager, mcp.server, mcp.gateway;
}

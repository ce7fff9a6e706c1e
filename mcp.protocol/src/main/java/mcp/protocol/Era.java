package mcp.protocol;

/**
 * The two ways MCP is spoken. A protocol version belongs to exactly one of them
 * ({@link ProtocolVersions#eraOf(String)}).
 */
public enum Era {
    /**
     * The revisions up to 2025-11-25: an {@code initialize} handshake agrees on a version and the capabilities once
     * per session; over HTTP the session has an {@code Mcp-Session-Id}; the server may send requests of its own
     * (sampling, elicitation, roots) while it serves a call.
     */
    HANDSHAKE,
    /**
     * The 2026-07-28 revision: no handshake and no session; every request carries the protocol version, the client's
     * capabilities and identity in its {@code _meta} ({@link RequestEnvelope}); {@code server/discover} tells what the
     * server offers; a server that needs input from the client answers {@code input_required} and the client sends
     * the request again with the answers (multi round-trip requests).
     */
    STATELESS
}

package mcp.protocol;

import java.util.List;
import java.util.Optional;
import mcp.api.ServerConfig;
import tools.jackson.databind.JsonNode;

/**
 * Which MCP protocol versions exist for mcp-host, to which {@link Era} each belongs, and how the two sides agree on
 * one. The list itself is {@link ServerConfig#PROTOCOL_VERSIONS} (a config names one of them, and {@code mcp.api}
 * validates configs without this module); every other rule about versions lives here.
 */
public final class ProtocolVersions {

    /** Every version mcp-host speaks, newest first: the stateless one, then those of the handshake. */
    public static final List<String> ALL = ServerConfig.PROTOCOL_VERSIONS;

    /** The stateless revision (2026-07-28). */
    public static final String STATELESS = ALL.get(0);

    /** The versions of the stateless era, newest first. */
    public static final List<String> STATELESS_VERSIONS = List.of(STATELESS);

    /** The versions of the handshake era, newest first. */
    public static final List<String> HANDSHAKE_VERSIONS = ALL.subList(1, ALL.size());

    /** The newest version of the handshake era: what a client offers in {@code initialize}. */
    public static final String LATEST_HANDSHAKE = HANDSHAKE_VERSIONS.get(0);

    private ProtocolVersions() {
    }

    /**
     * @param version a protocol version
     * @return its era, or empty when mcp-host does not know the version
     */
    public static Optional<Era> eraOf(String version) {
        if (STATELESS_VERSIONS.contains(version)) {
            return Optional.of(Era.STATELESS);
        }
        if (HANDSHAKE_VERSIONS.contains(version)) {
            return Optional.of(Era.HANDSHAKE);
        }
        return Optional.empty();
    }

    /**
     * The version a server answers to {@code initialize}: the one the client asked for when the server speaks it,
     * else the newest of the handshake era (the client then decides whether it can go on with that one). A client
     * that asks for a stateless version in {@code initialize} gets the newest handshake version too: the handshake
     * itself is of that era.
     *
     * @param requested the {@code protocolVersion} of the client's {@code initialize}, or {@code null}
     * @return the version to answer
     */
    public static String negotiateHandshake(String requested) {
        return requested != null && HANDSHAKE_VERSIONS.contains(requested) ? requested : LATEST_HANDSHAKE;
    }

    /**
     * @param version the version a server answered to {@code initialize}
     * @return whether a client of mcp-host can go on with it
     */
    public static boolean acceptableHandshake(String version) {
        return HANDSHAKE_VERSIONS.contains(version);
    }

    /**
     * The newest stateless version in a list a server gave ({@code supportedVersions} of {@code server/discover}, or
     * {@code supported} of {@link ErrorCodes#UNSUPPORTED_PROTOCOL_VERSION}) that mcp-host speaks too.
     *
     * @param versions a JSON array of version strings (anything else counts as empty)
     * @return the version both speak, or empty
     */
    public static Optional<String> mutualStateless(JsonNode versions) {
        if (versions != null && versions.isArray()) {
            for (String ours : STATELESS_VERSIONS) {
                for (JsonNode v : versions) {
                    if (v.isString() && v.asString().equals(ours)) {
                        return Optional.of(ours);
                    }
                }
            }
        }
        return Optional.empty();
    }
}

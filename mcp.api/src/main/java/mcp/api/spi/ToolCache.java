package mcp.api.spi;

import java.util.List;
import java.util.Optional;
import mcp.api.ToolDefinition;

/**
 * The last known tools of each server, so that a slow server's tools can be offered before it
 * has connected. An entry is keyed by server name and valid only for the same unresolved config,
 * which the caller identifies by a hash.
 *
 * <p>A cache never throws: a failure to read is a miss, a failure to write is a logged warning.
 */
public interface ToolCache {

    /**
     * @param serverName the server's name
     * @param configHash the hash of the server's unresolved config
     * @return the tools stored for this server and hash, unless missing, expired or unreadable
     */
    Optional<List<ToolDefinition>> read(String serverName, String configHash);

    /**
     * @param serverName the server's name
     * @param configHash the hash of the server's unresolved config
     * @param tools the tools to store, replacing what was stored
     */
    void write(String serverName, String configHash, List<ToolDefinition> tools);

    /** @param serverName the server whose entry to drop */
    void remove(String serverName);

    /**
     * What the cache holds for a server beside its tools.
     *
     * @param tools the tools, as {@link #read} returns them
     * @param protocolVersion the protocol version the server spoke when they were saved, if the cache kept it:
     *     a warm start that knows a server speaks the 2025 handshake sends it no {@code server/discover} probe
     */
    record Entry(List<ToolDefinition> tools, Optional<String> protocolVersion) {
        /** Copies. */
        public Entry {
            tools = List.copyOf(tools);
            java.util.Objects.requireNonNull(protocolVersion, "protocolVersion");
        }
    }

    /**
     * Like {@link #read}, with what else the entry holds. The default has no protocol version.
     *
     * @param serverName the server's name
     * @param configHash the hash of the server's config
     * @return the entry, or empty on a miss
     */
    default Optional<Entry> readEntry(String serverName, String configHash) {
        return read(serverName, configHash).map(tools -> new Entry(tools, Optional.empty()));
    }

    /**
     * Like {@link #write}, also keeping the protocol version the server spoke. The default drops the version.
     *
     * @param serverName the server's name
     * @param configHash the hash of the server's config
     * @param tools its tools
     * @param protocolVersion the protocol version it spoke
     */
    default void write(String serverName, String configHash, List<ToolDefinition> tools, Optional<String> protocolVersion) {
        write(serverName, configHash, tools);
    }
}

package mcp.api.spi;

import java.util.List;
import java.util.Optional;
import mcp.api.ServerSurface;
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
     * @param freshness how long the server let the list be taken as current ({@code ttlMs} of the 2026-07-28
     *     revision), if it did and the cache kept it
     * @param surface the server's resources, resource templates and prompts when they were saved, if the cache
     *     kept them: offered (deferred) at the startup gate like the tools
     */
    record Entry(List<ToolDefinition> tools, Optional<String> protocolVersion, Optional<Freshness> freshness,
            Optional<ServerSurface> surface) {
        /** Copies. */
        public Entry {
            tools = List.copyOf(tools);
            java.util.Objects.requireNonNull(protocolVersion, "protocolVersion");
            java.util.Objects.requireNonNull(freshness, "freshness");
            java.util.Objects.requireNonNull(surface, "surface");
        }

        /**
         * An entry without a surface.
         *
         * @param tools the tools
         * @param protocolVersion the protocol version the server spoke
         * @param freshness how long the list may be taken as current
         */
        public Entry(List<ToolDefinition> tools, Optional<String> protocolVersion, Optional<Freshness> freshness) {
            this(tools, protocolVersion, freshness, Optional.empty());
        }

        /**
         * An entry without freshness.
         *
         * @param tools the tools
         * @param protocolVersion the protocol version the server spoke
         */
        public Entry(List<ToolDefinition> tools, Optional<String> protocolVersion) {
            this(tools, protocolVersion, Optional.empty());
        }
    }

    /**
     * Until when a server let its tool list be taken as current, and by whom ({@code ttlMs} and
     * {@code cacheScope} of the 2026-07-28 revision). A warm start within it lists no tools.
     *
     * @param until the instant the list goes stale
     * @param shared whether the server said {@code cacheScope: "public"}: any authorization context may reuse it
     * @param context for a private list, the fingerprint of the authorization context it was listed in (an
     *     opaque hash from the caller, never a secret); reused only in the same one
     */
    record Freshness(java.time.Instant until, boolean shared, String context) {
        /** Checks. */
        public Freshness {
            java.util.Objects.requireNonNull(until, "until");
            java.util.Objects.requireNonNull(context, "context");
        }

        /**
         * @param now the time now
         * @param currentContext the fingerprint of the authorization context now
         * @return whether the list may be taken as current: not yet stale, and shared or listed in this context
         */
        public boolean isFresh(java.time.Instant now, String currentContext) {
            return now.isBefore(until) && (shared || context.equals(currentContext));
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

    /**
     * Like {@link #write}, with everything the entry holds. The default keeps the tools and the protocol version
     * (a cache that keeps no surface offers no deferred resources or prompts; nothing else is lost).
     *
     * @param serverName the server's name
     * @param configHash the hash of the server's config
     * @param entry the tools, the protocol version and the freshness
     */
    default void write(String serverName, String configHash, Entry entry) {
        write(serverName, configHash, entry.tools(), entry.protocolVersion());
    }
}

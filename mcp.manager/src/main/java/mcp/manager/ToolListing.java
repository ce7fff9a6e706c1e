package mcp.manager;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import mcp.api.ToolDefinition;

/**
 * A server's whole tool list with the caching hints of the 2026-07-28 revision ({@code ttlMs},
 * {@code cacheScope}), summed over its pages: the shortest time to live and, if any page is
 * {@code private} (or says nothing), private. A session of the handshake era has no hints: a time to live
 * of zero, private.
 *
 * @param tools the tools, in the server's order
 * @param ttl how long the server lets the list be taken as current, at most {@link #MAX_TTL}; zero when stale
 *     at once
 * @param shared whether every page was {@code cacheScope: "public"}: the list may be reused by another
 *     authorization context
 */
public record ToolListing(List<ToolDefinition> tools, Duration ttl, boolean shared) {

    /** The longest time to live mcp-host takes from a server: a day; larger hints are cut to it. */
    public static final Duration MAX_TTL = Duration.ofHours(24);

    /** Copies; clamps the time to live to zero and {@link #MAX_TTL}. */
    public ToolListing {
        tools = List.copyOf(tools);
        Objects.requireNonNull(ttl, "ttl");
        ttl = ttl.isNegative() ? Duration.ZERO : ttl.compareTo(MAX_TTL) > 0 ? MAX_TTL : ttl;
    }

    /**
     * @param tools the tools
     * @return a list without hints: stale at once, private
     */
    public static ToolListing unhinted(List<ToolDefinition> tools) {
        return new ToolListing(tools, Duration.ZERO, false);
    }
}

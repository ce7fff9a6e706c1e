package mcp.protocol;

import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The caching hints of the stateless revision on a cacheable result: how long the client may take it as current
 * ({@code ttlMs}) and who may share a cached copy ({@code cacheScope}).
 *
 * @param ttlMs milliseconds the result may be reused for; 0: stale at once
 * @param shared whether any client or intermediary may serve the cached copy across authorization contexts
 *     ({@code "public"}); otherwise only within the same one ({@code "private"})
 */
public record CacheHints(long ttlMs, boolean shared) {

    /** The member holding the time to live. */
    public static final String TTL_MS = "ttlMs";
    /** The member holding the scope. */
    public static final String CACHE_SCOPE = "cacheScope";

    /** The results a server of the stateless revision must give hints on, by the method of their request. */
    public static final Set<String> CACHEABLE_METHODS = Set.of("server/discover", "tools/list", "prompts/list",
            "resources/list", "resources/templates/list", "resources/read");

    /** No reuse, and no sharing: what a result without readable hints means. */
    public static final CacheHints NONE = new CacheHints(0, false);

    /** Validates. */
    public CacheHints {
        if (ttlMs < 0) {
            throw new IllegalArgumentException("ttlMs must not be negative: " + ttlMs);
        }
    }

    /**
     * Reads the hints of a result leniently, as a client must: an absent or malformed {@code ttlMs} is 0, a negative
     * one floors to 0; only {@code "public"} shares.
     *
     * @param result a result
     * @return its hints
     */
    public static CacheHints read(JsonNode result) {
        JsonNode ttl = result == null ? null : result.get(TTL_MS);
        long ms = ttl != null && ttl.isIntegralNumber() && ttl.canConvertToLong() ? Math.max(0, ttl.longValue()) : 0;
        JsonNode scope = result == null ? null : result.get(CACHE_SCOPE);
        return new CacheHints(ms, scope != null && scope.isString() && scope.asString().equals("public"));
    }

    /**
     * The hints of several pages of one listing: the shortest time, and shared only when every page is.
     *
     * @param other the hints of another page
     * @return the hints of both
     */
    public CacheHints and(CacheHints other) {
        Objects.requireNonNull(other, "other");
        return new CacheHints(Math.min(ttlMs, other.ttlMs), shared && other.shared);
    }

    /** @return the scope as MCP spells it */
    public String scope() {
        return shared ? "public" : "private";
    }

    /**
     * Puts these hints in a result, leaving any the result states already.
     *
     * @param result a result object
     * @return the same object
     */
    public ObjectNode stateIn(ObjectNode result) {
        if (!result.has(TTL_MS)) {
            result.put(TTL_MS, ttlMs);
        }
        if (!result.has(CACHE_SCOPE)) {
            result.put(CACHE_SCOPE, scope());
        }
        return result;
    }
}

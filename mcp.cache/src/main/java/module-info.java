/**
 * The default tool cache of mcp-host: the last tool definitions of every MCP server, kept as one
 * owner-only JSON file per server so that a slow server's tools can be offered before it has
 * connected.
 *
 * <p>An entry is valid only for the same unresolved config (by hash) and for a limited time (30 days
 * by default). Reads never fail: anything wrong with a file is a miss. Writes are atomic (temp file
 * and rename) and never fail either: a problem is a logged warning.
 *
 * <p>The exported package {@code mcp.cache} holds only {@link mcp.cache.FileToolCaches} (the provider
 * id, the defaults, the location rule, and a factory for embedders that switch service discovery
 * off); the implementation lives in {@code mcp.cache.internal}.
 *
 * @provides mcp.api.spi.ToolCacheProvider the {@code file} tool cache provider
 */
module mcp.cache {
    // Transitive: FileToolCaches.provider() returns an mcp.api type.
    requires transitive mcp.api;
    requires org.slf4j;

    exports mcp.cache;

    provides mcp.api.spi.ToolCacheProvider with mcp.cache.internal.FileToolCacheProvider;
}

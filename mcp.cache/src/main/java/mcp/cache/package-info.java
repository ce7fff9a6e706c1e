/**
 * The public surface of the file tool cache: {@link mcp.cache.FileToolCaches}, which names the
 * provider id, the default time to live, the file format version and the default location, and
 * creates the provider for embedders that pass provider instances instead of relying on
 * {@link java.util.ServiceLoader}.
 *
 * <p>Everything else is internal; the host reaches it only through
 * {@link mcp.api.spi.ToolCacheProvider} and {@link mcp.api.spi.ToolCache}.
 */
package mcp.cache;

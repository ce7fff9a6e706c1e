/**
 * The mcp-host embedding facade: {@link mcp.host.McpHost} discovers server configs, connects them through the
 * manager and hands back tools; {@link mcp.host.ToolSession} keeps MCP tools beside the application's own, reloads
 * them live and serves subagents.
 *
 * <p>Providers (transports, the tool cache, the auth storage, capability sources, config filters) are found with
 * {@link java.util.ServiceLoader} through {@link mcp.api.spi.Providers}, or passed to the builder. This module
 * requires none of them: {@code mcp.host.defaults} brings the default ones. It logs through SLF4J only and never
 * writes to stdout or stderr.
 *
 * <p>Tool search ranks with words ({@code mcp.search}); a second ranking, such as an embedding model's, is fused with
 * them when a {@link mcp.search.spi.ToolRankerProvider} is passed to the builder or found.
 *
 * @uses mcp.search.spi.ToolRankerProvider
 */
module mcp.host {
    requires transitive mcp.manager;
    requires transitive mcp.config;
    requires transitive mcp.search;
    requires org.slf4j;

    exports mcp.host;

    uses mcp.search.spi.ToolRankerProvider;
}

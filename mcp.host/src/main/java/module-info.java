/**
 * The mcp-host facade and command line: {@link mcp.host.McpHost} discovers server configs, connects
 * them through the manager and hands back tools; {@link mcp.host.ToolSession} keeps MCP tools beside
 * the application's own, reloads them live and serves subagents. The {@code mcp-host} command is
 * built on the same API.
 *
 * <p>Providers (transports, the tool cache, the auth storage, capability sources, config filters)
 * are found with {@link java.util.ServiceLoader} through {@link mcp.api.spi.Providers}, or passed to
 * the builder.
 */
module mcp.host {
    requires transitive mcp.manager;
    requires transitive mcp.config;
    requires mcp.search;
    requires org.slf4j;
    requires info.picocli;

    exports mcp.host;

    // picocli reads and writes the command classes' annotated fields reflectively.
    opens mcp.host.internal.cli to info.picocli;
}

/**
 * Discovery of MCP server configs. {@link mcp.config.Discovery#builder()} takes the working
 * directory, home, environment and options (project config, Exa filtering) and the capability
 * sources and filters to use; {@link mcp.config.Discovery#discover()} returns a
 * {@link mcp.config.DiscoveryResult}: the winning {@link mcp.api.ServerConfig} per server name with
 * its {@link mcp.api.SourceMetadata}, the Exa API keys found, the problems met
 * ({@link mcp.config.DiscoveryProblem}), and every entry not used with why
 * ({@link mcp.config.SkippedServer}).
 *
 * <p>The order of work follows SPEC §3: sources by priority, {@code ${VAR}} expansion, filters,
 * validation, and only then de-duplication by name, so that an invalid or filtered entry never hides
 * a valid one of the same name.
 */
package mcp.config;

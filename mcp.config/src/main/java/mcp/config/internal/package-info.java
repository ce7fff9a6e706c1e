/**
 * The implementation of discovery; not exported.
 *
 * <p>{@link mcp.config.internal.Expansion} expands {@code ${VAR}} references,
 * {@link mcp.config.internal.Validation} turns a loose entry into a config or the SPEC §3 messages,
 * and {@link mcp.config.internal.EnabledFilter}, {@link mcp.config.internal.ProjectFilter} and
 * {@link mcp.config.internal.ExaFilter} are the built-in {@link mcp.api.spi.ConfigFilter} providers.
 */
package mcp.config.internal;

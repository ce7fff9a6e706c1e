/**
 * The {@code mcp-host} command line, built with picocli on the embedding API: {@link
 * mcp.cli.internal.Main} wires the commands; every command that connects servers closes its
 * {@link mcp.host.McpHost} before it returns, and config edits go through {@link
 * mcp.cli.internal.ConfigFileEditor} (atomic, owner-only writes).
 */
package mcp.cli.internal;

/**
 * The client that the official MCP conformance suite drives ({@code interop/conformance-client}); not
 * exported. It is mcp-host's own client code (the {@code http} transport found through
 * {@link mcp.api.spi.Providers}, {@link mcp.manager.McpClient}, the SEP-1034 elicitation handler), not a
 * second implementation.
 */
package mcp.cli.internal.conformance;

/**
 * The gateway: {@link mcp.gateway.Gateway} serves the host's servers to MCP clients through an
 * {@link mcp.server.McpServer}.
 */
package mcp.gateway;

/**
 * Embedding mcp-host in an agent: {@link mcp.host.McpHost#builder()} configures discovery, the
 * cache, the startup gate and the providers; {@link mcp.host.McpHost#load()} discovers and connects
 * in one call; {@link mcp.host.ToolSession} holds the agent's tools (its own and the MCP ones),
 * follows servers that connect late or change their tools, reloads, and creates subagent sessions
 * that share the parent's connections; {@link mcp.host.ConfigWatcher} reloads what changed whenever a
 * config file does.
 */
package mcp.host;

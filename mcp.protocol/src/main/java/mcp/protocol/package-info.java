/**
 * The rules both sides of MCP follow: {@link mcp.protocol.ProtocolVersions} and {@link mcp.protocol.Era} (which
 * versions exist, the era of each, the agreement on one), {@link mcp.protocol.RequestEnvelope} and
 * {@link mcp.protocol.Meta} (the per-request {@code _meta} of the stateless revision and its keys),
 * {@link mcp.protocol.ErrorCodes}, {@link mcp.protocol.ResultType}, {@link mcp.protocol.CacheHints},
 * {@link mcp.protocol.SubscriptionFilter}, {@link mcp.protocol.McpMethods} (what a method may do in each era),
 * {@link mcp.protocol.McpHeaders} (the Streamable HTTP header names and value encoding), and the server-sent
 * events format ({@link mcp.protocol.SseFrames} writes it, {@link mcp.protocol.SseParser} reads it).
 */
package mcp.protocol;

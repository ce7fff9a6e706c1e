/**
 * The server side of MCP. {@link mcp.server.McpServer} (built with {@link mcp.server.McpServer.Builder}) serves
 * stdio ({@link mcp.server.McpServer#serveStdio}) and Streamable HTTP ({@link mcp.server.McpServer#serveHttp},
 * {@link mcp.server.HttpOptions}) in both eras at once; {@link mcp.server.RequestHandler} is what answers the
 * requests (the typed {@link mcp.server.ServerFeatures}, or a gateway's own), with one
 * {@link mcp.server.RequestContext} per request that hides the era; {@link mcp.server.ServerLimits} bounds what a
 * client can make it hold; {@link mcp.server.ReplicaKeys} makes servers behind one load balancer serve each other's
 * sessions and input rounds.
 */
package mcp.server;

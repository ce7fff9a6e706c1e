/**
 * The OAuth resource server's settings and entry point: {@link mcp.resourceserver.OAuthResourceServer#builder}
 * gives the {@link mcp.server.HttpAuthenticator} to pass to {@link mcp.server.HttpOptions#withAuthenticator}.
 */
package mcp.resourceserver;

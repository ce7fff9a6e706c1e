/**
 * The OAuth 2.1 client of the Streamable HTTP transport ({@link mcp.transport.http.internal.oauth.OAuthClient}:
 * discovery, client registration, the grants, refresh and step-up), the JWT and cross-app access
 * pieces it uses, the {@code file} auth storage, and the {@code browser} and {@code headless}
 * authorization UIs with their loopback redirect receiver. See {@code docs/oauth.md}.
 */
package mcp.transport.http.internal.oauth;

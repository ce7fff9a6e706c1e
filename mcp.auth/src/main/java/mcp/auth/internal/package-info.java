/**
 * The implementation of module {@code mcp.auth}, exported to {@code mcp.transport.http} alone.
 *
 * <p>{@link mcp.auth.internal.OAuthClient} is the OAuth 2.1 client of the HTTP transports (discovery,
 * client registration, the grants, DPoP, refresh and step-up): the transport creates one per connection,
 * asks it what to present on each request ({@code present}), waits for it before the first message
 * ({@code ready}), hands it every authorization challenge ({@code challenged}) and the DPoP nonces of the
 * MCP server ({@code nonce}). The JWT, DPoP and cross-app access pieces it uses live beside it, with the
 * {@code file} auth storage and the {@code browser} and {@code headless} authorization UIs and their
 * loopback redirect receiver. {@link mcp.auth.internal.Urls} (URLs safe for messages, canonical server
 * URLs) and {@link mcp.auth.internal.BoundedBody} (size-bounded response bodies) serve the transport too.
 * See {@code docs/oauth.md}.
 */
package mcp.auth.internal;

/**
 * The public surface of module {@code mcp.auth}: {@link mcp.auth.AuthProviders}, which names the id of
 * the file auth storage and creates it for embedders that pass instances instead of relying on
 * {@link java.util.ServiceLoader}.
 *
 * <p>Everything else is internal; the host reaches it only through {@link mcp.api.spi.AuthStorage} and
 * {@link mcp.api.spi.AuthorizationUi}, and the HTTP transports through the qualified export of
 * {@code mcp.auth.internal}.
 */
package mcp.auth;

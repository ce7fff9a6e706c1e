/**
 * The public contract of mcp-host: value types (server configs, source metadata, tool definitions,
 * tool results and their content), JSON-RPC 2.0 messages with their codec, the exception root, and
 * the service interfaces that plugins implement.
 *
 * <p>This module holds no behaviour beyond values and the codec. Implementations of the service
 * interfaces live in other modules and are found with {@link java.util.ServiceLoader}.
 *
 * @uses mcp.api.spi.CapabilitySource
 * @uses mcp.api.spi.ConfigFilter
 * @uses mcp.api.spi.TransportProvider
 * @uses mcp.api.spi.AuthResolver
 * @uses mcp.api.spi.ToolCacheProvider
 * @uses mcp.api.spi.AuthStorage
 * @uses mcp.api.spi.AuthorizationUi
 * @uses mcp.api.spi.ElicitationUi
 */
module mcp.api {
    requires transitive tools.jackson.databind;

    exports mcp.api;
    exports mcp.api.jsonrpc;
    exports mcp.api.spi;
    // Owner-only, atomic file writes (for the stores) and the masking of secret-looking arguments and URLs
    // (for every module that shows a command line or a URL), shared by mcp-host's own modules and no one else's.
    exports mcp.api.internal to mcp.auth, mcp.cache, mcp.consent, mcp.config, mcp.manager, mcp.transport.stdio,
            mcp.transport.http, mcp.gateway, mcp.cli;

    // The one lookup point, mcp.api.spi.Providers, loads every service of mcp-host.
    uses mcp.api.spi.CapabilitySource;
    uses mcp.api.spi.ConfigFilter;
    uses mcp.api.spi.TransportProvider;
    uses mcp.api.spi.AuthResolver;
    uses mcp.api.spi.ToolCacheProvider;
    uses mcp.api.spi.AuthStorage;
    uses mcp.api.spi.AuthorizationUi;
    uses mcp.api.spi.ElicitationUi;
}

package mcp.api.spi;

/**
 * Opens transports for one config type. The provider's {@link #id()} is the
 * {@link mcp.api.ServerConfig#type()} it serves ({@code stdio}, {@code http}, {@code sse}).
 */
public interface TransportProvider {

    /** @return the config type this provider serves; stable, e.g. {@code stdio} */
    String id();

    /**
     * Opens a transport. For stdio this starts the process; for HTTP it may do nothing until the
     * first message. Failures that are already known (command not found) throw at once.
     *
     * @param request the server, its resolved config and the limits to apply
     * @return a transport that has not been started
     * @throws mcp.api.McpException if the transport cannot be opened; the message says why
     */
    Transport open(TransportRequest request);
}

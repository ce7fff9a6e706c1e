package mcp.api;

/**
 * A request that never reached its server: the transport could not open a connection to send it on (nothing
 * listens at the URL any more, or no connection within the timeout). Unlike a request lost in flight, it is safe
 * to send again: the server cannot have acted on it. mcp-host's manager sends a tool call that failed so to the
 * server's next connection, within the call's own timeout; a transport fails the request's send with this so that
 * its owner can tell.
 */
public class McpNotDeliveredException extends McpException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the server
     * @param cause the connection failure
     */
    public McpNotDeliveredException(String message, Throwable cause) {
        super(message, cause);
    }
}

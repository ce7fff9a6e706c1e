package mcp.api;

/**
 * A transport that closed, by request or because its peer went away. The message reads
 * {@code Transport closed: <reason>}, where the reason carries what is known (exit code, the last
 * lines the server wrote to stderr, an HTTP status).
 */
public class TransportClosedException extends McpException {
    private static final long serialVersionUID = 1L;

    private final String reason;

    /** @param reason why the transport closed, without the {@code Transport closed} prefix */
    public TransportClosedException(String reason) {
        this(reason, null);
    }

    /**
     * @param reason why the transport closed, without the {@code Transport closed} prefix
     * @param cause the underlying failure, or {@code null}
     */
    public TransportClosedException(String reason, Throwable cause) {
        super("Transport closed: " + reason, cause);
        this.reason = reason;
    }

    /** @return why the transport closed */
    public String reason() {
        return reason;
    }
}

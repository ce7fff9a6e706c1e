package mcp.api;

/**
 * The root of every exception mcp-host throws. It is unchecked: callers decide where to handle
 * failures, and every message says what happened and, where it can, what to do about it.
 */
public class McpException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what happened, for a person to read */
    public McpException(String message) {
        super(message);
    }

    /**
     * @param message what happened, for a person to read
     * @param cause the underlying failure
     */
    public McpException(String message, Throwable cause) {
        super(message, cause);
    }
}

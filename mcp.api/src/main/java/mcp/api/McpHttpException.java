package mcp.api;

/**
 * An HTTP answer that ended an exchange with an MCP server: a status that is not success, or a success whose body
 * the protocol cannot use. The message says the method, the URL (secrets hidden), the status and an excerpt of the
 * body. The status is kept apart so that a caller can tell an answer another try may change (408, 429, 5xx: the
 * server is busy, restarting or behind a failing proxy) from one it will not (any other 4xx: a wrong URL,
 * credentials the server refuses).
 */
public class McpHttpException extends McpException {
    private static final long serialVersionUID = 1L;

    private final int status;

    /**
     * @param status the HTTP status of the answer
     * @param message what was answered, for a person to read
     */
    public McpHttpException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** @return the HTTP status of the answer */
    public int status() {
        return status;
    }

    /**
     * @return whether another try may be answered otherwise: 408 (request timeout), 429 (too many requests) and
     *     every 5xx (a server error, a gateway that could not reach it, a service unavailable for now)
     */
    public boolean isTransient() {
        return status == 408 || status == 429 || status >= 500 && status <= 599;
    }
}

package mcp.api;

/**
 * A request of the stateless revision (2026-07-28) whose response stream broke before the answer. That
 * revision resumes no stream: the request is lost, and the client re-issues it as a new request with a new
 * id (mcp-host's client does so once). A transport fails the request's send with this so that the client
 * can tell it from other failures.
 */
public class McpStreamLostException extends McpException {
    private static final long serialVersionUID = 1L;

    /** @param message what broke, naming the server and the request */
    public McpStreamLostException(String message) {
        super(message);
    }
}

package mcp.api;

/**
 * A message the server refused for want of credentials, after mcp-host tried to obtain them (the OAuth flow
 * failed, was declined, or gave up). It says nothing of the server's protocol: a client probing the server's
 * era reports it instead of falling back to another revision.
 */
public class McpAuthorizationException extends McpException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what was refused and why the credentials could not be obtained
     * @param cause the failure of the authorization
     */
    public McpAuthorizationException(String message, Throwable cause) {
        super(message, cause);
    }
}

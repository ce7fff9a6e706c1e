package mcp.api;

import java.util.Objects;

/**
 * Content a server sent is not what it described: a skill file whose size or SHA-256 digest is not its entry's, a
 * {@code SKILL.md} whose frontmatter differs from the entry's, or a file the held entry does not list. The content
 * is never used. The message names the server, the URI and what differed; the session stays up.
 */
public class McpVerificationException extends McpException {
    private static final long serialVersionUID = 1L;

    private final String uri;

    /**
     * @param message what differed, naming the server and the URI
     * @param uri the URI of the content that failed
     */
    public McpVerificationException(String message, String uri) {
        super(message);
        this.uri = Objects.requireNonNull(uri, "uri");
    }

    /** @return the URI of the content that failed verification */
    public String uri() {
        return uri;
    }
}

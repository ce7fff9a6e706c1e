package mcp.api;

import java.time.Duration;

/** A request that got no answer in time. The message reads {@code Request timeout after <ms>ms}. */
public class McpTimeoutException extends McpException {
    private static final long serialVersionUID = 1L;

    private final Duration timeout;

    /** @param timeout the bound that expired */
    public McpTimeoutException(Duration timeout) {
        this("Request timeout after " + timeout.toMillis() + "ms", timeout);
    }

    /**
     * @param message what timed out
     * @param timeout the bound that expired
     */
    public McpTimeoutException(String message, Duration timeout) {
        super(message);
        this.timeout = timeout;
    }

    /** @return the bound that expired */
    public Duration timeout() {
        return timeout;
    }
}

package mcp.api;

import java.time.Duration;

/**
 * A request that got no answer in time. The message reads {@code Request timeout after <ms>ms}, or for a tool
 * call names the server, the tool and the bound that ended it.
 */
public class McpTimeoutException extends McpException {
    private static final long serialVersionUID = 1L;

    /** Which bound of a call ended it. */
    public enum Bound {
        /** the call's timeout (restarted by progress when it is set to) */
        TIMEOUT,
        /** no response and no progress for the idle timeout */
        IDLE_TIMEOUT,
        /** the absolute cap, which progress never extends */
        MAX_TOTAL_TIMEOUT
    }

    private final Duration timeout;
    private final Bound bound;

    /** @param timeout the bound that expired */
    public McpTimeoutException(Duration timeout) {
        this("Request timeout after " + timeout.toMillis() + "ms", timeout);
    }

    /**
     * @param message what timed out
     * @param timeout the bound that expired
     */
    public McpTimeoutException(String message, Duration timeout) {
        this(message, timeout, Bound.TIMEOUT);
    }

    /**
     * @param message what timed out
     * @param timeout the bound that expired
     * @param bound which bound it is
     */
    public McpTimeoutException(String message, Duration timeout, Bound bound) {
        super(message);
        this.timeout = timeout;
        this.bound = java.util.Objects.requireNonNull(bound, "bound");
    }

    /** @return which bound expired */
    public Bound bound() {
        return bound;
    }

    /** @return the bound that expired */
    public Duration timeout() {
        return timeout;
    }
}

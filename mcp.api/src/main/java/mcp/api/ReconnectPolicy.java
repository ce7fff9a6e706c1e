package mcp.api;

import java.time.Duration;
import java.util.Objects;

/**
 * How a server whose connection closed by itself (process exit, HTTP failure, session loss) is started
 * again: up to {@code attempts} tries in a row, the first after {@code initialDelay}, each later one after
 * twice the delay before it, never more than {@code maxDelay}, each varied by up to {@code jitter} of
 * itself either way. A run of attempts ends when a reconnected server stays up for {@code crashWindow}:
 * one that dies again sooner is crash-looping, so its attempts go on counting (and its delay on growing to
 * the maximum) until the limit, where the server's status becomes {@code failed}.
 *
 * <p>The same delays space the retries of a first connect that failed for a transient reason (the process
 * exited during its start, a connection refused or reset, an HTTP 408, 429 or 5xx, a timeout): up to
 * {@code startupRetries} more tries after the first, so that a server whose first start met a passing
 * failure still comes up. A failure that another try cannot fix (a command that does not exist, a config
 * the transport refuses, an authorization that needs the user, any other HTTP 4xx, a protocol error) is
 * never retried.
 *
 * @param attempts the most tries in a row after a drop; 0 turns reconnects off
 * @param initialDelay the delay before the first try
 * @param maxDelay the longest delay
 * @param jitter the fraction (0 to 1) each delay is varied by at random, either way
 * @param crashWindow how long a reconnected server must stay up for its run of attempts to end
 * @param startupRetries the most tries after a first connect that failed for a transient reason; 0 turns
 *     them off
 */
public record ReconnectPolicy(int attempts, Duration initialDelay, Duration maxDelay, double jitter,
        Duration crashWindow, int startupRetries) {

    /** How often a first connect that failed for a transient reason is tried again by default (as Claude Code does). */
    public static final int DEFAULT_STARTUP_RETRIES = 3;

    /**
     * The default: 5 attempts, 500 ms doubling to 30 s, 20 % jitter, a crash loop is a death within 10 s; 3 retries
     * of a first connect.
     */
    public static final ReconnectPolicy DEFAULT = new ReconnectPolicy(5, Duration.ofMillis(500), Duration.ofSeconds(30),
            0.2, Duration.ofSeconds(10), DEFAULT_STARTUP_RETRIES);

    /**
     * Never started again by mcp-host: a server whose connection closes stays disconnected, and one whose first
     * connect fails stays failed.
     */
    public static final ReconnectPolicy OFF = new ReconnectPolicy(0, DEFAULT.initialDelay, DEFAULT.maxDelay, 0,
            DEFAULT.crashWindow, 0);

    /**
     * A policy with the default retries of a first connect ({@value #DEFAULT_STARTUP_RETRIES}).
     *
     * @param attempts the most tries in a row after a drop; 0 turns reconnects off
     * @param initialDelay the delay before the first try
     * @param maxDelay the longest delay
     * @param jitter the fraction (0 to 1) each delay is varied by at random, either way
     * @param crashWindow how long a reconnected server must stay up for its run of attempts to end
     */
    public ReconnectPolicy(int attempts, Duration initialDelay, Duration maxDelay, double jitter,
            Duration crashWindow) {
        this(attempts, initialDelay, maxDelay, jitter, crashWindow, DEFAULT_STARTUP_RETRIES);
    }

    /** Validates. */
    public ReconnectPolicy {
        Objects.requireNonNull(initialDelay, "initialDelay");
        Objects.requireNonNull(maxDelay, "maxDelay");
        Objects.requireNonNull(crashWindow, "crashWindow");
        if (attempts < 0) {
            throw new IllegalArgumentException("reconnect attempts must not be negative, got " + attempts);
        }
        if (startupRetries < 0) {
            throw new IllegalArgumentException("startup retries must not be negative, got " + startupRetries);
        }
        if (initialDelay.isNegative() || maxDelay.isNegative() || crashWindow.isNegative()) {
            throw new IllegalArgumentException("reconnect delays must not be negative");
        }
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new IllegalArgumentException("reconnect maxDelay (" + maxDelay.toMillis()
                    + " ms) must not be less than initialDelay (" + initialDelay.toMillis() + " ms)");
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("reconnect jitter must be between 0 and 1, got " + jitter);
        }
    }

    /** @return whether a server is reconnected at all */
    public boolean enabled() {
        return attempts > 0;
    }

    /**
     * @param retries the most tries after a first connect that failed for a transient reason; 0 for none
     * @return this policy with that many
     */
    public ReconnectPolicy withStartupRetries(int retries) {
        return new ReconnectPolicy(attempts, initialDelay, maxDelay, jitter, crashWindow, retries);
    }

    /**
     * @param attempt the try, from 1
     * @param random a number in [0, 1): where in the jitter range the delay falls
     * @return the delay before that try: {@code initialDelay * 2^(attempt-1)}, at most {@code maxDelay}, jittered
     *     (and never above {@code maxDelay})
     */
    public Duration delay(int attempt, double random) {
        long initial = initialDelay.toMillis();
        long max = maxDelay.toMillis();
        int doublings = Math.max(0, Math.min(attempt - 1, 40));
        long base = initial == 0 ? 0 : (initial > (max >> doublings) ? max : Math.min(max, initial << doublings));
        double varied = base * (1 + jitter * (2 * random - 1));
        return Duration.ofMillis(Math.max(0, Math.min(max, Math.round(varied))));
    }

    @Override
    public String toString() {
        if (!enabled() && startupRetries == 0) {
            return "ReconnectPolicy[off]";
        }
        return "ReconnectPolicy[attempts=" + attempts + ", initialDelay=" + initialDelay.toMillis() + "ms, maxDelay="
                + maxDelay.toMillis() + "ms, jitter=" + jitter + ", crashWindow=" + crashWindow.toMillis()
                + "ms, startupRetries=" + startupRetries + "]";
    }
}

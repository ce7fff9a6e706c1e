package mcp.manager;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What the manager knows of one server.
 *
 * @param state the state
 * @param error the last error: why a connect failed, or why a connection dropped (for a server that failed
 *     after its reconnect attempts, the last exit code and stderr lines are in it)
 * @param reconnect where a server being started again is in its run of attempts: always with
 *     {@link State#RECONNECTING}; with {@link State#CONNECTING} when its first connect failed for a passing reason
 *     and is tried again; never with another state
 */
public record ServerStatus(State state, Optional<String> error, Optional<Reconnect> reconnect) {

    /** Validates. */
    public ServerStatus {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(reconnect, "reconnect");
        if (state == State.RECONNECTING && reconnect.isEmpty()
                || reconnect.isPresent() && state != State.RECONNECTING && state != State.CONNECTING) {
            throw new IllegalArgumentException("reconnect is present when the state is RECONNECTING, and only then or"
                    + " with CONNECTING");
        }
    }

    /**
     * A status without reconnect information.
     *
     * @param state any state but {@link State#RECONNECTING}
     * @param error the last error
     */
    public ServerStatus(State state, Optional<String> error) {
        this(state, error, Optional.empty());
    }

    /**
     * Where a server being started again is.
     *
     * @param attempt the attempt made next, or in flight: of a reconnect from 1; of a first connect tried again
     *     from 2 (the first connect was attempt 1)
     * @param attempts the most attempts: of a reconnect, its policy's; of a first connect, 1 + its startup retries
     * @param nextTry when that attempt starts; empty when it is in flight
     */
    public record Reconnect(int attempt, int attempts, Optional<Instant> nextTry) {
        /** Validates. */
        public Reconnect {
            Objects.requireNonNull(nextTry, "nextTry");
        }

        /** @return e.g. {@code attempt 2 of 5, next try in 1.0 s}, or {@code attempt 2 of 5, connecting} */
        public String describe(Instant now) {
            return "attempt " + attempt + " of " + attempts + nextTry.map(at -> {
                long millis = Math.max(0, Duration.between(now, at).toMillis());
                return ", next try in " + String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0);
            }).orElse(", connecting");
        }
    }

    /** The states of a server. */
    public enum State {
        /** Connected: its tools are live. */
        CONNECTED,
        /**
         * A connect or a tool load is in flight, or its first connect failed for a passing reason and is tried again
         * (see {@link ServerStatus#reconnect()}: the attempt, and {@link ServerStatus#error()}: why the last failed).
         */
        CONNECTING,
        /**
         * Its connection closed by itself and it is being started again (see {@link ServerStatus#reconnect()}):
         * its last tools stay as deferred tools, whose calls wait for the reconnect.
         */
        RECONNECTING,
        /** Not connected: never started, disconnected, or its connection dropped (see the error). */
        DISCONNECTED,
        /** Its last connect failed, or its reconnect attempts ran out (see the error). */
        FAILED,
        /**
         * A lazy server that is not running ({@link mcp.api.ServerConfig#lazy()}): its cached tools stand for it as
         * deferred tools, and the first call of one of them starts it. Not an error; {@link ServerStatus#error()}
         * says why its last start for a call failed, if it did.
         */
        STOPPED
    }

    static ServerStatus of(State state) {
        return new ServerStatus(state, Optional.empty());
    }
}

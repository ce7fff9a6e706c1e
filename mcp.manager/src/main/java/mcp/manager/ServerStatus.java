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
 * @param reconnect where a reconnecting server is in its run of attempts; present only with
 *     {@link State#RECONNECTING}
 */
public record ServerStatus(State state, Optional<String> error, Optional<Reconnect> reconnect) {

    /** Validates. */
    public ServerStatus {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(reconnect, "reconnect");
        if (reconnect.isPresent() != (state == State.RECONNECTING)) {
            throw new IllegalArgumentException("reconnect is present exactly when the state is RECONNECTING");
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
     * Where a reconnecting server is.
     *
     * @param attempt the attempt made next, or in flight (from 1)
     * @param attempts the most attempts of the server's reconnect policy
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
        /** A connect or a tool load is in flight. */
        CONNECTING,
        /**
         * Its connection closed by itself and it is being started again (see {@link ServerStatus#reconnect()}):
         * its last tools stay as deferred tools, whose calls wait for the reconnect.
         */
        RECONNECTING,
        /** Not connected: never started, disconnected, or its connection dropped (see the error). */
        DISCONNECTED,
        /** Its last connect failed, or its reconnect attempts ran out (see the error). */
        FAILED
    }

    static ServerStatus of(State state) {
        return new ServerStatus(state, Optional.empty());
    }
}

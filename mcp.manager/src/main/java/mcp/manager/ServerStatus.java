package mcp.manager;

import java.util.Objects;
import java.util.Optional;

/**
 * What the manager knows of one server.
 *
 * @param state the state
 * @param error the last error: why a connect failed, or why a connection dropped
 */
public record ServerStatus(State state, Optional<String> error) {

    /** Validates. */
    public ServerStatus {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(error, "error");
    }

    /** The states of a server. */
    public enum State {
        /** Connected: its tools are live. */
        CONNECTED,
        /** A connect or a tool load is in flight. */
        CONNECTING,
        /** Not connected: never started, disconnected, or its connection dropped (see the error). */
        DISCONNECTED,
        /** Its last connect failed (see the error). */
        FAILED
    }

    static ServerStatus of(State state) {
        return new ServerStatus(state, Optional.empty());
    }
}

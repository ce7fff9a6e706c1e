package mcp.manager.internal;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import mcp.manager.ServerActivity;

/**
 * The counts behind one server's {@link ServerActivity}: one instance per server name for the manager's life, shared
 * by every session of that server, so that a reconnect keeps them. Adders rather than atomics: every call of every
 * client of a gateway adds to them, and they are read only by a status request. Memory is bounded: counters, and the
 * last error of each kind, cut to {@link #MAX_MESSAGE} characters.
 */
public final class ActivityCounters {

    /** The most characters of a last error kept: a message can carry a server's stderr. */
    static final int MAX_MESSAGE = 2_000;

    private final LongAdder calls = new LongAdder();
    private final LongAdder toolErrors = new LongAdder();
    private final LongAdder callErrors = new LongAdder();
    private final LongAdder drops = new LongAdder();
    private final LongAdder reconnectAttempts = new LongAdder();
    private final LongAdder reconnects = new LongAdder();
    private final AtomicReference<ServerActivity.ErrorAt> lastError = new AtomicReference<>();
    private final AtomicReference<ServerActivity.ErrorAt> lastCallError = new AtomicReference<>();

    /** A tool call was sent. */
    public void callSent() {
        calls.increment();
    }

    /** A call ended with a result whose {@code isError} is true. */
    public void toolError() {
        toolErrors.increment();
    }

    /**
     * A call ended without a result.
     *
     * @param message why
     */
    public void callError(String message) {
        callErrors.increment();
        lastCallError.set(errorAt(message));
    }

    /**
     * The connection closed by itself.
     *
     * @param message why
     */
    public void dropped(String message) {
        drops.increment();
        lastError.set(errorAt(message));
    }

    /**
     * A connect failed, or a run of attempts ended: the server's last error.
     *
     * @param message why
     */
    public void failed(String message) {
        lastError.set(errorAt(message));
    }

    /**
     * A reconnect attempt ended.
     *
     * @param connected whether it connected
     * @param message why it failed, or {@code null}
     */
    public void reconnectAttempt(boolean connected, String message) {
        reconnectAttempts.increment();
        if (connected) {
            reconnects.increment();
        } else if (message != null) {
            lastError.set(errorAt(message));
        }
    }

    /** @return the counts now */
    public ServerActivity snapshot() {
        return new ServerActivity(calls.sum(), toolErrors.sum(), callErrors.sum(), drops.sum(),
                reconnectAttempts.sum(), reconnects.sum(), Optional.ofNullable(lastError.get()),
                Optional.ofNullable(lastCallError.get()));
    }

    private static ServerActivity.ErrorAt errorAt(String message) {
        String text = message == null ? "unknown" : message;
        return new ServerActivity.ErrorAt(text.length() > MAX_MESSAGE ? text.substring(0, MAX_MESSAGE) + "…" : text,
                Instant.now());
    }
}

package mcp.manager;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import mcp.api.CallLimits;

/**
 * Options of one request. The bounds of a call (see {@code docs/long-calls.md}): the {@code timeout}, measured
 * from the start, or from the last progress when {@code resetTimeoutOnProgress} is set; the {@code idleTimeout},
 * measured from the last response or progress; the {@code maxTotalTimeout}, measured from the start and never
 * extended. Whichever ends first fails the call with an {@link mcp.api.McpTimeoutException} naming that bound,
 * and the server is told ({@code notifications/cancelled}, or {@code tasks/cancel} for a task).
 *
 * @param timeout how long to wait for the answer; absent: the session's request timeout (for a tool call, the
 *     server's tool-call timeout)
 * @param resetTimeoutOnProgress whether each progress notification (or a task's new status) restarts the
 *     timeout (default {@code false})
 * @param maxTotalTimeout the absolute cap, which progress never extends; it holds whether or not
 *     {@code resetTimeoutOnProgress} is set. Absent: the server's setting, else ten times the timeout when
 *     {@code resetTimeoutOnProgress} is set, else the timeout
 * @param onProgress receives progress notifications; when set, the request carries a
 *     {@code progressToken}. Called in order on the session's event thread, before the result completes;
 *     coalesced: updates that arrive while the consumer is still busy are replaced by the latest, so a slow
 *     consumer sees the newest progress and a flood holds one update per request, not all of them
 * @param idleTimeout a call that gets no response and no progress for this long fails; absent: the server's
 *     setting, else none. A request with an idle timeout or {@code resetTimeoutOnProgress} carries a
 *     {@code progressToken} even without {@code onProgress}, so that the server's progress counts
 * @param handlers the answers of this call's caller to what the server asks while it works on the call
 *     ({@link ClientOptions#SAMPLING_METHOD}, {@link ClientOptions#ELICITATION_METHOD}, {@code roots/list}), over
 *     the session's own ({@link ClientOptions#handlers()}): a gateway passes those of the client whose call it
 *     is. A server request is the call's when it comes as an input request of the call's own result (the
 *     2026-07-28 era) or on the call's own stream (Streamable HTTP), or when this is the only call with handlers
 *     in flight; when several are and the transport cannot tell which it belongs to (stdio in the 2025 era),
 *     it is refused with an error that says so, and reaches no caller. Default: none, the session's
 */
public record CallOptions(Optional<Duration> timeout, boolean resetTimeoutOnProgress,
        Optional<Duration> maxTotalTimeout, Optional<Consumer<ProgressUpdate>> onProgress,
        Optional<Duration> idleTimeout, Map<String, ServerRequestHandler> handlers) {

    /** No options: the session's timeout, no progress. */
    public static final CallOptions DEFAULT = new CallOptions(Optional.empty(), false, Optional.empty(),
            Optional.empty(), Optional.empty());

    /** Validates and copies. */
    public CallOptions {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(maxTotalTimeout, "maxTotalTimeout");
        Objects.requireNonNull(onProgress, "onProgress");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        handlers = Map.copyOf(handlers);
    }

    /** Options whose server requests the session's handlers answer. */
    public CallOptions(Optional<Duration> timeout, boolean resetTimeoutOnProgress, Optional<Duration> maxTotalTimeout,
            Optional<Consumer<ProgressUpdate>> onProgress, Optional<Duration> idleTimeout) {
        this(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, idleTimeout, Map.of());
    }

    /** Options without an idle timeout of their own. */
    public CallOptions(Optional<Duration> timeout, boolean resetTimeoutOnProgress, Optional<Duration> maxTotalTimeout,
            Optional<Consumer<ProgressUpdate>> onProgress) {
        this(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, Optional.empty());
    }

    /** @return a copy with this timeout */
    public CallOptions withTimeout(Duration value) {
        return new CallOptions(Optional.of(value), resetTimeoutOnProgress, maxTotalTimeout, onProgress, idleTimeout,
                handlers);
    }

    /** @return a copy that delivers progress to this consumer */
    public CallOptions withProgress(Consumer<ProgressUpdate> consumer) {
        return new CallOptions(timeout, resetTimeoutOnProgress, maxTotalTimeout, Optional.of(consumer), idleTimeout,
                handlers);
    }

    /** @return a copy whose timeout restarts on progress, up to {@code maxTotal} */
    public CallOptions withResetTimeoutOnProgress(Duration maxTotal) {
        return new CallOptions(timeout, true, Optional.of(maxTotal), onProgress, idleTimeout, handlers);
    }

    /** @return a copy with this absolute cap */
    public CallOptions withMaxTotalTimeout(Duration value) {
        return new CallOptions(timeout, resetTimeoutOnProgress, Optional.of(value), onProgress, idleTimeout, handlers);
    }

    /** @return a copy that fails when neither a response nor progress comes for this long */
    public CallOptions withIdleTimeout(Duration value) {
        return new CallOptions(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, Optional.of(value),
                handlers);
    }

    /**
     * @param value the caller's answers to the server's requests during this call, by method
     * @return a copy whose server requests these answer
     */
    public CallOptions withHandlers(Map<String, ServerRequestHandler> value) {
        return new CallOptions(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, idleTimeout, value);
    }

    /**
     * Fills what this call leaves unset: the timeout from {@code defaultTimeout}, the idle timeout and the cap
     * from {@code limits}, and the cap, when neither sets it, from the timeout (ten times it when it restarts on
     * progress). {@code resetTimeoutOnProgress} is on when this or {@code limits} says so.
     *
     * @return options whose timeout and cap are both present
     */
    public CallOptions withDefaults(Duration defaultTimeout, CallLimits limits) {
        Duration bound = timeout.orElse(defaultTimeout);
        boolean reset = resetTimeoutOnProgress || limits.resetTimeoutOnProgress().orElse(false);
        Duration cap = maxTotalTimeout.or(limits::maxTotalTimeout).orElse(reset ? bound.multipliedBy(10) : bound);
        return new CallOptions(Optional.of(bound), reset, Optional.of(cap), onProgress,
                idleTimeout.or(limits::idleTimeout), handlers);
    }
}

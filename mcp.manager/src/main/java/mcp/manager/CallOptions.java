package mcp.manager;

import java.time.Duration;
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
 * @param caller who the call is made for, when it is not the session's own user: what the server asks while it works
 *     on the call reaches that caller ({@link Caller}). Default: none, the session's handlers answer
 */
public record CallOptions(Optional<Duration> timeout, boolean resetTimeoutOnProgress,
        Optional<Duration> maxTotalTimeout, Optional<Consumer<ProgressUpdate>> onProgress,
        Optional<Duration> idleTimeout, Optional<Caller> caller) {

    /** No options: the session's timeout, no progress. */
    public static final CallOptions DEFAULT = new CallOptions(Optional.empty(), false, Optional.empty(),
            Optional.empty(), Optional.empty());

    /** Validates and copies. */
    public CallOptions {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(maxTotalTimeout, "maxTotalTimeout");
        Objects.requireNonNull(onProgress, "onProgress");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(caller, "caller");
    }

    /** Options of a call made for the session's own user. */
    public CallOptions(Optional<Duration> timeout, boolean resetTimeoutOnProgress, Optional<Duration> maxTotalTimeout,
            Optional<Consumer<ProgressUpdate>> onProgress, Optional<Duration> idleTimeout) {
        this(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, idleTimeout, Optional.empty());
    }

    /** Options without an idle timeout of their own. */
    public CallOptions(Optional<Duration> timeout, boolean resetTimeoutOnProgress, Optional<Duration> maxTotalTimeout,
            Optional<Consumer<ProgressUpdate>> onProgress) {
        this(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, Optional.empty());
    }

    /** @return a copy with this timeout */
    public CallOptions withTimeout(Duration value) {
        return new CallOptions(Optional.of(value), resetTimeoutOnProgress, maxTotalTimeout, onProgress, idleTimeout,
                caller);
    }

    /** @return a copy that delivers progress to this consumer */
    public CallOptions withProgress(Consumer<ProgressUpdate> consumer) {
        return new CallOptions(timeout, resetTimeoutOnProgress, maxTotalTimeout, Optional.of(consumer), idleTimeout,
                caller);
    }

    /** @return a copy whose timeout restarts on progress, up to {@code maxTotal} */
    public CallOptions withResetTimeoutOnProgress(Duration maxTotal) {
        return new CallOptions(timeout, true, Optional.of(maxTotal), onProgress, idleTimeout, caller);
    }

    /** @return a copy with this absolute cap */
    public CallOptions withMaxTotalTimeout(Duration value) {
        return new CallOptions(timeout, resetTimeoutOnProgress, Optional.of(value), onProgress, idleTimeout, caller);
    }

    /** @return a copy that fails when neither a response nor progress comes for this long */
    public CallOptions withIdleTimeout(Duration value) {
        return new CallOptions(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, Optional.of(value),
                caller);
    }

    /**
     * @param value who the call is made for
     * @return a copy whose server questions go to that caller
     */
    public CallOptions withCaller(Caller value) {
        return new CallOptions(timeout, resetTimeoutOnProgress, maxTotalTimeout, onProgress, idleTimeout,
                Optional.of(value));
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
                idleTimeout.or(limits::idleTimeout), caller);
    }
}

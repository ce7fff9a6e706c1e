package mcp.manager;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Options of one request.
 *
 * @param timeout how long to wait for the answer; absent: the session's request timeout
 * @param resetTimeoutOnProgress whether each progress notification restarts the timeout (default
 *     {@code false})
 * @param maxTotalTimeout the bound that progress cannot extend, when {@code resetTimeoutOnProgress}
 *     is set; absent: ten times the timeout
 * @param onProgress receives progress notifications; when set, the request carries a
 *     {@code progressToken}. Called in order on the session's event thread, before the result completes;
 *     coalesced: updates that arrive while the consumer is still busy are replaced by the latest, so a slow
 *     consumer sees the newest progress and a flood holds one update per request, not all of them
 */
public record CallOptions(Optional<Duration> timeout, boolean resetTimeoutOnProgress,
        Optional<Duration> maxTotalTimeout, Optional<Consumer<ProgressUpdate>> onProgress) {

    /** No options: the session's timeout, no progress. */
    public static final CallOptions DEFAULT = new CallOptions(Optional.empty(), false, Optional.empty(),
            Optional.empty());

    /** Validates. */
    public CallOptions {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(maxTotalTimeout, "maxTotalTimeout");
        Objects.requireNonNull(onProgress, "onProgress");
    }

    /** @return a copy with this timeout */
    public CallOptions withTimeout(Duration value) {
        return new CallOptions(Optional.of(value), resetTimeoutOnProgress, maxTotalTimeout, onProgress);
    }

    /** @return a copy that delivers progress to this consumer */
    public CallOptions withProgress(Consumer<ProgressUpdate> consumer) {
        return new CallOptions(timeout, resetTimeoutOnProgress, maxTotalTimeout, Optional.of(consumer));
    }

    /** @return a copy whose timeout restarts on progress, up to {@code maxTotal} */
    public CallOptions withResetTimeoutOnProgress(Duration maxTotal) {
        return new CallOptions(timeout, true, Optional.of(maxTotal), onProgress);
    }
}

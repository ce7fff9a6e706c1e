package mcp.api;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The bounds of a long tool call besides its timeout, as a server's config or a host's builder sets them; each
 * one absent leaves the next layer's value (a call's own options, then the server's config, then the builder,
 * then the default). See {@code docs/long-calls.md}.
 *
 * @param idleTimeout a call that gets no response and no progress for this long fails; absent: no idle bound
 *     (the default)
 * @param maxTotalTimeout the absolute cap of a call from the moment it is sent, which progress never extends;
 *     absent: ten times the timeout when the timeout restarts on progress, else the timeout itself
 * @param resetTimeoutOnProgress whether each progress (a progress notification, or a task's new status)
 *     restarts the timeout; absent: no (the default)
 * @param resultBudget how much of a call's result reaches the agent ({@link ResultBudget}, see
 *     {@code docs/context-budget.md}); {@link ResultBudget#NONE}: the next layer's
 */
public record CallLimits(Optional<Duration> idleTimeout, Optional<Duration> maxTotalTimeout,
        Optional<Boolean> resetTimeoutOnProgress, ResultBudget resultBudget) {

    /** Nothing set: every bound comes from the next layer. */
    public static final CallLimits NONE = new CallLimits(Optional.empty(), Optional.empty(), Optional.empty());

    /** Bounds in time only: the result budget is the next layer's. */
    public CallLimits(Optional<Duration> idleTimeout, Optional<Duration> maxTotalTimeout,
            Optional<Boolean> resetTimeoutOnProgress) {
        this(idleTimeout, maxTotalTimeout, resetTimeoutOnProgress, ResultBudget.NONE);
    }

    /** Validates: the durations must be positive. */
    public CallLimits {
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(maxTotalTimeout, "maxTotalTimeout");
        Objects.requireNonNull(resetTimeoutOnProgress, "resetTimeoutOnProgress");
        Objects.requireNonNull(resultBudget, "resultBudget");
        idleTimeout.ifPresent(d -> positive("idleTimeout", d));
        maxTotalTimeout.ifPresent(d -> positive("maxTotalTimeout", d));
    }

    private static void positive(String name, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value.toMillis() + " ms");
        }
    }

    /** @return each bound this leaves unset taken from {@code fallback} */
    public CallLimits orElse(CallLimits fallback) {
        return new CallLimits(idleTimeout.or(fallback::idleTimeout), maxTotalTimeout.or(fallback::maxTotalTimeout),
                resetTimeoutOnProgress.or(fallback::resetTimeoutOnProgress), resultBudget.orElse(fallback.resultBudget));
    }

    /** @return a copy with this result budget */
    public CallLimits withResultBudget(ResultBudget budget) {
        return new CallLimits(idleTimeout, maxTotalTimeout, resetTimeoutOnProgress, budget);
    }

    /** @return whether no bound is set */
    public boolean isEmpty() {
        return idleTimeout.isEmpty() && maxTotalTimeout.isEmpty() && resetTimeoutOnProgress.isEmpty()
                && resultBudget.isEmpty();
    }

    @Override
    public String toString() {
        return "CallLimits[" + idleTimeout.map(d -> "idleTimeout=" + d.toMillis() + "ms ").orElse("")
                + maxTotalTimeout.map(d -> "maxTotalTimeout=" + d.toMillis() + "ms ").orElse("")
                + resetTimeoutOnProgress.map(r -> "resetTimeoutOnProgress=" + r + " ").orElse("")
                + (resultBudget.isEmpty() ? "" : resultBudget) + "]";
    }
}

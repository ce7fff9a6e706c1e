package mcp.manager.internal;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import mcp.api.McpTimeoutException.Bound;
import mcp.manager.CallOptions;

/**
 * The three bounds of one call on one timer: the timeout (from the start, or from the last activity when it
 * restarts on progress), the idle timeout (from the last activity) and the cap (from the start, never
 * extended). Activity is a progress notification or a task's changed status. Whichever bound comes first
 * fires {@code onExpire} once; on a tie the timeout is named, then the idle timeout.
 *
 * <p>A call made of several requests (a tool call answered with a task, then its polls) gets one clock per
 * phase, each made with the call's start: the bounds hold over the whole call.
 */
final class CallClock {

    /** Which bound ended a call, and its value. */
    record Expiry(Bound bound, Duration value) {
    }

    private final Duration timeout;
    private final boolean resetOnProgress;
    private final Duration maxTotal;
    private final Optional<Duration> idle;
    private final long startNanos;
    private final Consumer<Expiry> onExpire;
    /** Guarded by this. */
    private long lastActivityNanos;
    private ScheduledFuture<?> timer;
    /** Counts the timers armed: only the latest may fire. */
    private long generation;
    private boolean stopped;

    /**
     * @param options options whose timeout and cap are present ({@link CallOptions#withDefaults})
     * @param startNanos when the call started ({@link System#nanoTime()})
     * @param lastActivityNanos its last sign of life so far
     */
    CallClock(CallOptions options, long startNanos, long lastActivityNanos, Consumer<Expiry> onExpire) {
        this.timeout = options.timeout().orElseThrow();
        this.resetOnProgress = options.resetTimeoutOnProgress();
        this.maxTotal = options.maxTotalTimeout().orElse(timeout);
        this.idle = options.idleTimeout();
        this.startNanos = startNanos;
        this.lastActivityNanos = lastActivityNanos;
        this.onExpire = onExpire;
    }

    /** @return whether progress matters to this clock (so that a request should carry a progress token) */
    static boolean countsProgress(CallOptions options) {
        return options.resetTimeoutOnProgress() || options.idleTimeout().isPresent();
    }

    long startNanos() {
        return startNanos;
    }

    /** Arms the timer. */
    synchronized void start() {
        arm();
    }

    /** A sign of life: the idle timeout, and the timeout when it restarts on progress, start again. */
    synchronized void activity() {
        if (stopped) {
            return;
        }
        lastActivityNanos = System.nanoTime();
        if (resetOnProgress || idle.isPresent()) {
            arm();
        }
    }

    /** Disarms for good: the call has its answer, or ended otherwise. */
    synchronized void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** @return the time left before the earliest bound, from now */
    synchronized Duration remaining() {
        return Duration.ofNanos(Math.max(0, next().at - System.nanoTime()));
    }

    private record Next(long at, Bound bound, Duration value) {
    }

    private Next next() {
        Next next = new Next((resetOnProgress ? lastActivityNanos : startNanos) + timeout.toNanos(), Bound.TIMEOUT,
                timeout);
        if (idle.isPresent() && lastActivityNanos + idle.get().toNanos() < next.at) {
            next = new Next(lastActivityNanos + idle.get().toNanos(), Bound.IDLE_TIMEOUT, idle.get());
        }
        if (startNanos + maxTotal.toNanos() < next.at) {
            next = new Next(startNanos + maxTotal.toNanos(), Bound.MAX_TOTAL_TIMEOUT, maxTotal);
        }
        return next;
    }

    private void arm() {
        if (stopped) {
            return;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        Next next = next();
        long armed = ++generation;
        timer = ClientThreads.TIMERS.schedule(() -> fire(armed, next), Math.max(0, next.at - System.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    private void fire(long armed, Next next) {
        synchronized (this) {
            // A timer armed before the last activity, which its cancel came too late for, is stale.
            if (stopped || armed != generation) {
                return;
            }
            stopped = true;
        }
        onExpire.accept(new Expiry(next.bound, next.value));
    }

    /**
     * The message of a tool call that a bound ended: the server, the tool and the bound.
     *
     * @param server the server's name
     * @param tool the tool's name
     */
    static String message(String server, String tool, Expiry expiry, boolean resetOnProgress) {
        String prefix = "MCP server \"" + server + "\": tool \"" + AgentText.clean(tool, 64).text() + "\" ";
        long ms = expiry.value().toMillis();
        return switch (expiry.bound()) {
            case TIMEOUT -> prefix + (resetOnProgress
                    ? "sent neither its result nor progress within its timeout of " + ms + " ms (timeout, restarted on progress)"
                    : "did not answer within its timeout of " + ms + " ms (timeout)");
            case IDLE_TIMEOUT -> prefix + "sent no response and no progress for " + ms + " ms (idleTimeout)";
            case MAX_TOTAL_TIMEOUT -> prefix + "ran past its maximum total time of " + ms
                    + " ms (maxTotalTimeout; progress does not extend it)";
        };
    }
}

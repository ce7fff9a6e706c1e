package mcp.manager.internal;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Rate-limits the warnings that one server's misbehaviour causes, so that a server sending junk as fast
 * as it can leaves a bounded number of log lines: at most {@link #BURST} warnings per
 * {@link #PERIOD_MILLIS}; the others are logged at DEBUG and counted, and the next warning let through,
 * or {@link #flush()} at the session's close, says how many were left out.
 *
 * <p>Thread-safe: the warnings of one server come from its reader and from timers.
 */
public final class WarningLimiter {

    /** The warnings let through per period. */
    public static final int BURST = 5;
    /** The period, in milliseconds. */
    public static final long PERIOD_MILLIS = 10_000;

    private final Logger log;
    private final String serverName;
    private final LongSupplier nanoClock;
    private long windowStart;
    private int inWindow;
    private long suppressedSinceLast;
    private long suppressedTotal;

    /**
     * @param log where the warnings go
     * @param serverName the server whose warnings these are
     */
    public WarningLimiter(Logger log, String serverName) {
        this(log, serverName, System::nanoTime);
    }

    WarningLimiter(Logger log, String serverName, LongSupplier nanoClock) {
        this.log = log;
        this.serverName = serverName;
        this.nanoClock = nanoClock;
        this.windowStart = nanoClock.getAsLong();
    }

    /**
     * Logs a warning, or counts it when {@link #BURST} were logged in this period already.
     *
     * @param format an SLF4J format, without the server's name (added in front)
     * @param args its arguments
     */
    public void warn(String format, Object... args) {
        long suppressed;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (now - windowStart >= TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS)) {
                windowStart = now;
                inWindow = 0;
            }
            if (inWindow >= BURST) {
                suppressedSinceLast++;
                suppressedTotal++;
                if (log.isDebugEnabled()) {
                    log.debug("MCP server \"{}\" " + format, withServer(args));
                }
                return;
            }
            inWindow++;
            suppressed = suppressedSinceLast;
            suppressedSinceLast = 0;
        }
        String note = suppressed == 0 ? "" : " (" + suppressed + " similar warnings about this server left out before this one)";
        if (log.isWarnEnabled()) {
            log.warn("MCP server \"{}\" " + format + note, withServer(args));
        }
    }

    private Object[] withServer(Object[] args) {
        Object[] all = new Object[args.length + 1];
        all[0] = serverName;
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }

    /** Logs how many warnings were left out since the last one let through, if any. */
    public void flush() {
        long suppressed;
        synchronized (this) {
            suppressed = suppressedSinceLast;
            suppressedSinceLast = 0;
        }
        if (suppressed > 0) {
            log.warn("MCP server \"{}\": {} more warnings about its messages were left out (rate limit: {} per {} s)",
                    serverName, suppressed, BURST, PERIOD_MILLIS / 1000);
        }
    }

    /** @return how many warnings were left out in all */
    public synchronized long suppressed() {
        return suppressedTotal;
    }
}

package mcp.transport.stdio.internal;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM-wide safety net: every stdio transport that is open, so that their process trees end
 * when the JVM exits, even if the host was never closed.
 *
 * <p>Started lazily with the first transport: one shutdown hook ({@code mcp-stdio-shutdown}) that
 * closes the transports still open the normal way (stdin closed, then SIGTERM, then SIGKILL, each step
 * bounded), all at once, and kills what is left after {@link #SHUTDOWN_BOUND_MILLIS}: a host stopped
 * by SIGTERM, SIGINT or SIGHUP lets a well-behaved server end on its stdin EOF; and one daemon thread ({@code mcp-stdio-snapshots}) that records each
 * open transport's descendants every {@link #SNAPSHOT_INTERVAL_MILLIS} ms, from one scan of the
 * process table for all of them. The snapshots matter when
 * a server dies on its own: its children are reparented at that moment and can no longer be found
 * from it, but they are still in the last snapshot and get ended with the rest of the tree.
 *
 * <p>State: {@link #LIVE} is a concurrent set (a transport adds itself when it is created and
 * removes itself when its close has finished); {@link #STARTED} makes the start happen once.
 */
final class LiveTransports {

    private static final Logger LOG = LoggerFactory.getLogger(LiveTransports.class);

    static final long SNAPSHOT_INTERVAL_MILLIS = 1_000;
    /**
     * The bound of the graceful close of every open transport at JVM shutdown, all in parallel: a close
     * takes at most three steps of its close-step timeout (2 s by default) and a wait for the listener.
     */
    static final long SHUTDOWN_BOUND_MILLIS = 10_000;

    private static final Set<StdioTransport> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private LiveTransports() {
    }

    static void add(StdioTransport transport) {
        startOnce();
        LIVE.add(transport);
    }

    static void remove(StdioTransport transport) {
        LIVE.remove(transport);
    }

    /** @return the transports open now, for tests */
    static List<StdioTransport> snapshotOfLive() {
        return List.copyOf(LIVE);
    }

    private static void startOnce() {
        if (!STARTED.compareAndSet(false, true)) {
            return;
        }
        try {
            Runtime.getRuntime().addShutdownHook(new Thread(LiveTransports::closeAll, "mcp-stdio-shutdown"));
        } catch (IllegalStateException e) {
            // The JVM is already shutting down; nothing can be registered any more.
            LOG.debug("JVM shutdown in progress: no stdio shutdown hook registered");
        }
        Thread snapshots = new Thread(LiveTransports::snapshotLoop, "mcp-stdio-snapshots");
        snapshots.setDaemon(true);
        snapshots.start();
    }

    /** Closes every open transport the normal way, in parallel, within one bound; then kills what is left. */
    private static void closeAll() {
        List<Thread> closers = new java.util.ArrayList<>();
        for (StdioTransport transport : List.copyOf(LIVE)) {
            Thread closer = new Thread(() -> {
                try {
                    transport.close();
                } catch (RuntimeException | Error e) {
                    // The kill below ends it.
                }
            }, "mcp-stdio-shutdown-close");
            closer.setDaemon(true);
            closer.start();
            closers.add(closer);
        }
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(SHUTDOWN_BOUND_MILLIS);
        for (Thread closer : closers) {
            long left = deadline - System.nanoTime();
            if (left > 0) {
                try {
                    closer.join(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(left)));
                } catch (InterruptedException e) {
                    break;
                }
            }
        }
        killAll();
    }

    private static void killAll() {
        for (StdioTransport transport : List.copyOf(LIVE)) {
            try {
                transport.killTreeNow();
            } catch (RuntimeException | Error e) {
                // Keep going: the other trees must end too.
            }
        }
    }

    private static void snapshotLoop() {
        while (true) {
            Waits.sleep(SNAPSHOT_INTERVAL_MILLIS);
            List<StdioTransport> live = List.copyOf(LIVE);
            if (live.isEmpty()) {
                continue;
            }
            // One scan of the process table for every transport, not one per transport.
            List<Sessions.Stat> table;
            try {
                table = ProcessTree.table();
            } catch (RuntimeException e) {
                LOG.debug("process table scan failed", e);
                continue;
            }
            for (StdioTransport transport : live) {
                try {
                    transport.snapshotTree(table);
                } catch (RuntimeException e) {
                    LOG.debug("process snapshot failed", e);
                }
            }
        }
    }
}

package mcp.transport.http.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of the HTTP transports, every one a named daemon.
 *
 * <ul>
 *   <li>{@code mcp-http-<server>-<n>}: one pool per transport, the {@link java.net.http.HttpClient}'s
 *       executor (response handling, stream parsing, delivery to the listener); idle threads end after
 *       {@value #IDLE_SECONDS} s, so a closed transport leaves none behind for long;</li>
 *   <li>{@code mcp-http-<server>-close}: short-lived, a close the server caused (so that the thread that
 *       noticed is never blocked by the teardown);</li>
 *   <li>{@code mcp-http-timer}: one for the JVM, runs the delays (SSE {@code retry}, bounded waits); its
 *       tasks only start asynchronous work.</li>
 * </ul>
 * (The JDK's HttpClient adds a selector thread of its own per client, also a daemon.)
 */
final class HttpThreads {

    static final int IDLE_SECONDS = 5;

    /** The period of the timer's no-op task, shorter than the response timeouts it keeps. */
    static final long HEARTBEAT_MILLIS = 1_000;

    /** Delays and deadlines; tasks must not block. */
    static final ScheduledExecutorService TIMER = timer();

    private HttpThreads() {
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "mcp-http-timer");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        // A new task that becomes the head of the queue wakes the timer's thread; with one request at a time, each
        // request's response timeout would (armed into an empty queue, cancelled when answered). A no-op due within
        // the period always sits ahead of such timers, so arming and cancelling them wakes nobody.
        timer.scheduleAtFixedRate(() -> { }, HEARTBEAT_MILLIS, HEARTBEAT_MILLIS, TimeUnit.MILLISECONDS);
        return timer;
    }

    /** @return the executor of one transport's HttpClient */
    static ExecutorService pool(String serverName) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, "mcp-http-" + serverName + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
                factory);
    }

    /** Starts a short-lived named daemon thread. */
    static void run(String serverName, String role, Runnable body) {
        Thread thread = new Thread(body, "mcp-http-" + serverName + "-" + role);
        thread.setDaemon(true);
        thread.start();
    }
}

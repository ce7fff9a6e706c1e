package mcp.manager.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads every client session shares. Responses are completed here, not on a transport's
 * reader thread, so that code chained on a future may block (even on another request of the same
 * session) without stalling the reader.
 */
public final class ClientThreads {

    /** Completes futures and runs server-request handlers; grows on demand, idle threads die. */
    public static final ExecutorService WORKERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), daemonFactory("mcp-client-worker-"));

    /** Fires request timeouts. */
    public static final ScheduledThreadPoolExecutor TIMERS;

    /**
     * The period of a no-op task that always sits at the head of {@link #TIMERS}' queue. Why: the
     * executor wakes its thread whenever a newly scheduled task becomes the queue's head, which for
     * one request at a time is every request (its timer is armed into an empty queue and cancelled
     * when the response comes): a context switch per call for nothing. With a task due within this
     * period always queued, a request timer (30 s by default) is never the head, so arming and
     * cancelling it wakes nobody; the cost is one wake-up per period. Timers shorter than the
     * period still become the head and fire on time.
     */
    static final long HEARTBEAT_MILLIS = 1_000;

    static {
        TIMERS = new ScheduledThreadPoolExecutor(1, daemonFactory("mcp-client-timer-"));
        TIMERS.setRemoveOnCancelPolicy(true);
        TIMERS.scheduleAtFixedRate(() -> { }, HEARTBEAT_MILLIS, HEARTBEAT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private ClientThreads() {
    }

    static ThreadFactory daemonFactory(String prefix) {
        AtomicLong counter = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * An executor that runs tasks one at a time, in submission order, on {@link #WORKERS}: a
     * session's events keep their order without a thread of their own.
     *
     * <p>Bounded where a server decides how much goes in: {@link #execute} is for the tasks whose
     * number the client bounds itself (one per request in flight, one close), {@link #offer} for the
     * rest (a server's notifications), which is refused once {@link #capacity()} offered tasks wait.
     */
    public static final class Serial implements Executor {
        /** The offered tasks that may wait at once, by default. */
        public static final int DEFAULT_CAPACITY = 1_000;

        private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
        private final java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean();
        private final java.util.concurrent.atomic.AtomicInteger offered = new java.util.concurrent.atomic.AtomicInteger();
        private final int capacity;
        private final org.slf4j.Logger log;

        public Serial(org.slf4j.Logger log) {
            this(log, DEFAULT_CAPACITY);
        }

        public Serial(org.slf4j.Logger log, int capacity) {
            this.log = log;
            this.capacity = capacity;
        }

        @Override
        public void execute(Runnable task) {
            queue.add(task);
            schedule();
        }

        /**
         * Queues a task that may be dropped.
         *
         * @return false, and nothing queued, when {@link #capacity()} offered tasks are waiting already
         */
        public boolean offer(Runnable task) {
            if (offered.incrementAndGet() > capacity) {
                offered.decrementAndGet();
                return false;
            }
            queue.add(() -> {
                offered.decrementAndGet();
                task.run();
            });
            schedule();
            return true;
        }

        /** @return how many offered tasks may wait at once */
        public int capacity() {
            return capacity;
        }

        /** @return the tasks waiting now (of both kinds) */
        public int queued() {
            return queue.size();
        }

        private void schedule() {
            if (!queue.isEmpty() && running.compareAndSet(false, true)) {
                WORKERS.execute(this::drain);
            }
        }

        private void drain() {
            try {
                Runnable task;
                while ((task = queue.poll()) != null) {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        log.warn("An MCP event listener failed: {}", e.toString(), e);
                    }
                }
            } finally {
                running.set(false);
                schedule();
            }
        }
    }
}

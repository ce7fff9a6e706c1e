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
     * Where one session's responses complete their futures: a queue drained by one worker of
     * {@link #WORKERS} at a time, with a second worker started whenever the current one is blocked
     * or has been busy with one task for more than {@link #STUCK_NANOS}.
     *
     * <p>Why not one {@code WORKERS.execute} per response: that wakes (or creates) a thread for every
     * response, and with many calls in flight those wake-ups cost more than everything else the
     * client does (see BENCHMARKS.md). A drainer that is already running takes the next response
     * without a wake-up. Why the second worker: code chained on a future may block, even on another
     * request of the same session, whose response then needs a thread that is not blocked.
     *
     * <p>State: {@code tasks} is a concurrent queue; {@code active} counts drainers that may still
     * take tasks. A drainer leaves only after it has seen the queue empty with {@code active}
     * decremented, re-checking afterwards, so a task is never left without a drainer.
     */
    public static final class Completions implements Executor {
        /** A drainer busy with one task for longer than this counts as stuck. */
        static final long STUCK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

        private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> tasks =
                new java.util.concurrent.ConcurrentLinkedQueue<>();
        private final java.util.concurrent.atomic.AtomicInteger active = new java.util.concurrent.atomic.AtomicInteger();
        /** The drainer that started a task last, and when; for the stuck check. */
        private volatile Thread current;
        private volatile long taskStart;
        private final org.slf4j.Logger log;

        public Completions(org.slf4j.Logger log) {
            this.log = log;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
            int running = active.get();
            if (running == 0 || stuck()) {
                active.incrementAndGet();
                WORKERS.execute(this::drain);
            }
        }

        private boolean stuck() {
            Thread thread = current;
            if (thread == null) {
                return false;
            }
            Thread.State state = thread.getState();
            return state == Thread.State.BLOCKED || state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                    || System.nanoTime() - taskStart > STUCK_NANOS;
        }

        private void drain() {
            while (true) {
                Runnable task = tasks.poll();
                if (task == null) {
                    active.decrementAndGet();
                    // A task added after the poll may have seen this drainer as active: take it on.
                    if (tasks.isEmpty() || !claim()) {
                        return;
                    }
                    continue;
                }
                current = Thread.currentThread();
                taskStart = System.nanoTime();
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.warn("Completing an MCP response failed: {}", e.toString(), e);
                } finally {
                    current = null;
                }
            }
        }

        /** Becomes a drainer again unless another one is running. */
        private boolean claim() {
            int running;
            do {
                running = active.get();
                if (running > 0) {
                    return false;
                }
            } while (!active.compareAndSet(running, running + 1));
            return true;
        }
    }

    /**
     * An executor that runs tasks one at a time, in submission order, on {@link #WORKERS}: a
     * session's events keep their order without a thread of their own.
     */
    public static final class Serial implements Executor {
        private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
        private final java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean();
        private final org.slf4j.Logger log;

        public Serial(org.slf4j.Logger log) {
            this.log = log;
        }

        @Override
        public void execute(Runnable task) {
            queue.add(task);
            schedule();
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

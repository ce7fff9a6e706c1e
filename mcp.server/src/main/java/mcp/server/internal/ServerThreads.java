package mcp.server.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of one server, each named after it: workers that run handlers (which may block, so the pool grows with
 * the requests in flight, which {@code ServerLimits.maxConcurrentRequests} bounds, with some to spare for completing
 * what the blocked ones wait for) and one timer (expiries, idle sessions, keep-alives). All are daemons, and {@link #close()} ends them.
 */
final class ServerThreads implements AutoCloseable {

    /** The period of the timer's no-op task, shorter than the timers every request arms. */
    static final long HEARTBEAT_MILLIS = 1_000;

    final ExecutorService workers;
    final ScheduledExecutorService timer;

    ServerThreads(String serverName, int maxWorkers) {
        String base = "mcp-server-" + serverName.replaceAll("[^A-Za-z0-9_.-]", "_");
        // As many threads as requests may be served at once, and some to spare: a handler may block (waiting for a
        // client's input, for one), and what unblocks it (the client's answer) is completed on a worker too, so the
        // pool must grow to the bound rather than queue. Idle threads end after 30 s: a quiet server holds none.
        // A task goes to an idle worker when there is one, else to a new thread up to the bound, and only then waits in
        // the queue. (A pool whose core size is the bound would start a new thread for every task until it holds
        // them all, hundreds that a few calls at a time never need.)
        HandOff queue = new HandOff();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(0, maxWorkers + 16, 30, TimeUnit.SECONDS, queue,
                named(base + "-worker-"), (task, executor) -> {
                    if (executor.isShutdown()) {
                        throw new RejectedExecutionException("the server is closed");
                    }
                    queue.enqueue(task);
                });
        workers = pool;
        ScheduledThreadPoolExecutor scheduled = new ScheduledThreadPoolExecutor(1, named(base + "-timer-"));
        scheduled.setRemoveOnCancelPolicy(true);
        // The timer's thread is woken whenever a new task becomes the head of its queue, which for one HTTP request at
        // a time is every request (each arms a timer of several seconds and cancels it when answered): a context
        // switch per request for nothing. A no-op due within the period always sits ahead of such timers, so arming
        // and cancelling them wakes nobody; shorter timers still become the head and fire on time.
        scheduled.scheduleAtFixedRate(() -> { }, HEARTBEAT_MILLIS, HEARTBEAT_MILLIS, TimeUnit.MILLISECONDS);
        timer = scheduled;
    }

    /**
     * The workers' queue: {@code offer} succeeds only when an idle worker takes the task at once, so that the pool
     * starts a thread rather than queue while it is below its bound; at the bound, the pool's rejection queues it.
     */
    private static final class HandOff extends LinkedTransferQueue<Runnable> {
        @Override
        public boolean offer(Runnable task) {
            return tryTransfer(task);
        }

        void enqueue(Runnable task) {
            super.offer(task);
        }
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public void close() {
        workers.shutdownNow();
        timer.shutdownNow();
    }
}

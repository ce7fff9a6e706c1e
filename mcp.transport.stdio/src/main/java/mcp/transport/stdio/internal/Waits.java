package mcp.transport.stdio.internal;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Bounded waits that an interrupt does not cut short.
 *
 * <p>Closing must end the process tree even when the closing thread was interrupted; every wait
 * here is bounded, so finishing it costs at most its bound. The interrupt is kept and re-asserted.
 */
final class Waits {

    private Waits() {
    }

    /** Waits for a process to exit, at most {@code bound}; returns whether it has exited. */
    static boolean waitFor(Process process, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    return process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Waits for a latch, at most {@code bound}; returns whether it reached zero. */
    static boolean await(CountDownLatch latch, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                try {
                    return latch.await(Math.max(0, left), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Sleeps about {@code millis}. */
    static void sleep(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.sleep(left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

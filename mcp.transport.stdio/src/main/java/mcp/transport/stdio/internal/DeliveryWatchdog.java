package mcp.transport.stdio.internal;

import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Notices a stdio transport whose listener has been busy with one message for a while, and has that
 * transport go on reading on a new thread ({@link StdioTransport#checkDelivery()}).
 *
 * <p>Why: a transport delivers on its reader thread, and its listener (the client session) completes
 * futures right there, so that code chained on them runs without a thread hand-off, as on an event
 * loop. Such code may block, even on another request to the same server; this is what keeps that
 * server's other responses flowing then. A blocked delivery holds up the messages behind it for one
 * to two ticks ({@link #TICK_MILLIS}), once: the new thread reads on while the old one finishes its
 * delivery and ends.
 *
 * <p>One daemon thread ({@code mcp-stdio-watchdog}) for every transport, started with the first. It
 * looks at each open transport every tick while any of them delivers, and parks once none has
 * delivered for {@link #IDLE_TICKS} ticks; the next delivery to start wakes it
 * ({@link #deliveryStarted()}): on a busy connection the watchdog costs one wake-up a tick, on an idle
 * one nothing.
 *
 * <p>State: {@link #parked} is written by the watchdog (true just before it parks, false when it
 * wakes) and read by delivering threads. No wake-up is lost: the watchdog sets it, then looks at
 * every transport once more before parking; a delivering thread marks its delivery, then reads it.
 */
final class DeliveryWatchdog {

    /** How often a busy transport is looked at: a stalled delivery is moved on after one to two ticks. */
    static final long TICK_MILLIS = 10;

    /** Ticks without any delivery before the watchdog parks. */
    static final int IDLE_TICKS = 20;

    private static final Thread THREAD;
    private static volatile boolean parked;

    static {
        THREAD = new Thread(DeliveryWatchdog::loop, "mcp-stdio-watchdog");
        THREAD.setDaemon(true);
        THREAD.start();
    }

    private DeliveryWatchdog() {
    }

    /** A transport began a delivery: wakes the watchdog if it is parked. Cheap when it is not. */
    static void deliveryStarted() {
        if (parked) {
            LockSupport.unpark(THREAD);
        }
    }

    private static void loop() {
        int idle = 0;
        while (true) {
            Waits.sleep(TICK_MILLIS);
            idle = checkAll() ? 0 : idle + 1;
            if (idle >= IDLE_TICKS) {
                parked = true;
                // Once more after announcing the park: a delivery that began before it saw the flag
                // is seen here; one that begins after it sees the flag and unparks.
                if (!checkAll()) {
                    LockSupport.park(DeliveryWatchdog.class);
                }
                parked = false;
                idle = 0;
            }
        }
    }

    /** @return whether any transport delivered since the last look */
    private static boolean checkAll() {
        boolean active = false;
        List<StdioTransport> live = LiveTransports.snapshotOfLive();
        for (StdioTransport transport : live) {
            try {
                active |= transport.checkDelivery();
            } catch (RuntimeException e) {
                // One transport's trouble must not stop the watch over the others.
                active = true;
            }
        }
        return active;
    }
}

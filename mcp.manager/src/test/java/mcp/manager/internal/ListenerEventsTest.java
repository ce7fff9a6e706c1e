package mcp.manager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.manager.BridgedTool;
import mcp.manager.ManagerListener;
import mcp.manager.ServerStatus;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ListenerEventsTest {

    private static ServerStatus status(int n) {
        return new ServerStatus(ServerStatus.State.FAILED, Optional.of("event " + n));
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    @Test
    void eventsArriveInOrderOneByOneWhileTheListenerKeepsUp() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        List<ManagerListener> listeners = List.of(new ManagerListener() {
            @Override
            public void onStatusChange(String serverName, ServerStatus status) {
                seen.add(serverName + ":" + status.error().orElse(""));
            }
        });
        ListenerEvents events = new ListenerEvents(listeners, LoggerFactory.getLogger(getClass()), 10);
        for (int i = 0; i < 200; i++) {
            events.status("a", status(i));
            if (i % 5 == 4) {
                int delivered = i + 1;
                await("the listener is caught up", () -> seen.size() == delivered);
            }
        }
        assertEquals(200, seen.size());
        for (int i = 0; i < 200; i++) {
            assertEquals("a:event " + i, seen.get(i));
        }
        assertEquals(0, events.coalesced());
    }

    @Test
    void aBlockedListenerHoldsABoundedBacklogAndHearsEveryServersLatestStateAfterwards() throws Exception {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger delivered = new AtomicInteger();
        Map<String, String> last = new ConcurrentHashMap<>();
        List<String> toolEvents = new CopyOnWriteArrayList<>();
        List<ManagerListener> listeners = List.of(new ManagerListener() {
            @Override
            public void onStatusChange(String serverName, ServerStatus status) {
                blocked.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                delivered.incrementAndGet();
                last.put(serverName, status.error().orElse(""));
            }

            @Override
            public void onToolsChanged(String serverName, List<BridgedTool> tools) {
                toolEvents.add(serverName + ":" + tools.size());
            }
        });
        ListenerEvents events = new ListenerEvents(listeners, LoggerFactory.getLogger(getClass()), 10);
        events.status("a", status(-1));
        assertTrue(blocked.await(10, TimeUnit.SECONDS));
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            events.status(i % 2 == 0 ? "a" : "b", status(i));
        }
        events.toolsChanged("a", List.of());
        events.toolsChanged("b", List.of());
        assertEquals(n + 2 - 10, events.coalesced(), "all but the capacity coalesced");
        release.countDown();
        await("the latest states are delivered", () -> ("event " + (n - 2)).equals(last.get("a"))
                && ("event " + (n - 1)).equals(last.get("b")));
        Thread.sleep(100);
        assertEquals(1 + 10 + 2, delivered.get(), "the first, the capacity in order, then one per server");
        assertEquals(List.of("*:0"), toolEvents, "one tool set for the two servers' changes");

        // Caught up: one by one again.
        events.status("a", status(7));
        await("a new event arrives", () -> "event 7".equals(last.get("a")));
        assertEquals(1 + 10 + 2 + 1, delivered.get());
    }
}

package mcp.manager;

import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static mcp.manager.TestServerProcesses.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import mcp.api.Content;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.api.jsonrpc.JsonRpcNotification;
import mcp.manager.internal.ClientSession;
import mcp.manager.internal.ClientThreads;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server that floods the host (issue 17, item 6), a real testkit child process over the real stdio transport:
 * what it can fill stays bounded (asserted on the session's queue and counters, not on timing), its warnings
 * are rate-limited, and a malformed field never logs a stack trace.
 */
class FloodTest {

    private final List<McpClient> clients = new ArrayList<>();
    private final PrintStream originalErr = System.err;

    @AfterEach
    void closeEverything() throws InterruptedException {
        System.setErr(originalErr);
        clients.forEach(McpClient::close);
        assertNoChildProcessLeft();
    }

    private McpClient flooder(String name, ClientOptions.Builder options) {
        McpClient client = connect(name, options, "--fault", "flood");
        clients.add(client);
        return client;
    }

    private static ToolResult flood(McpClient client, String kind, long count, CallOptions options) {
        return McpClient.await(client.callTool("flood", McpJson.mapper().readTree(
                "{\"kind\":\"" + kind + "\",\"count\":" + count + "}"), options.withTimeout(Duration.ofMinutes(3))));
    }

    private static String text(ToolResult result) {
        return ((Content.Text) result.content().get(0)).text();
    }

    @Test
    void aConsumerSlowerThanTheServerStillGetsEveryUpdateInOrder() throws Exception {
        // A gateway passes each update on: a few that come faster than it forwards them must not be folded.
        McpClient client = flooder("progress", ClientOptions.builder("progress"));
        List<Double> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        ToolResult result = client.callTool("flood", McpJson.mapper().readTree("{\"kind\":\"progress\",\"count\":20}"),
                CallOptions.DEFAULT.withTimeout(Duration.ofMinutes(1)).withProgress(update -> {
                    seen.add(update.progress());
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                })).get(60, TimeUnit.SECONDS);
        assertEquals("flooded 20 progress", text(result));
        assertEquals(java.util.stream.IntStream.rangeClosed(1, 20).mapToObj(i -> (double) i).toList(), seen);
    }

    @Test
    void aMillionProgressUpdatesToABlockedConsumerAreCoalescedIntoABoundedQueue() throws Exception {
        long count = 1_000_000;
        McpClient client = flooder("progress", ClientOptions.builder("progress"));
        ClientSession session = (ClientSession) client;
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<ProgressUpdate> last = new AtomicReference<>();
        List<Double> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        long heapBefore = usedHeapAfterGc();
        CompletableFuture<ToolResult> call = client.callTool("flood", McpJson.mapper().readTree(
                "{\"kind\":\"progress\",\"count\":" + count + "}"), CallOptions.DEFAULT.withTimeout(Duration.ofMinutes(3))
                .withProgress(update -> {
                    seen.add(update.progress());
                    last.set(update);
                    try {
                        release.await(); // the consumer is blocked until every update has arrived
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
        // The consumer holds the first update; the next ones wait, up to the bound, the newest replacing the last.
        int queued = ClientSession.MAX_QUEUED_PROGRESS;
        await("the updates arrived while the consumer was blocked",
                () -> session.bounds().coalescedProgress() == count - 1 - queued, Duration.ofMinutes(3));
        long heapDuring = usedHeapAfterGc();
        ClientSession.Bounds bounds = session.bounds();
        originalErr.printf("flood bench: %,d progress updates to a blocked consumer: %d events queued, heap %+.1f MB"
                + " (used after GC: %.1f MB before, %.1f MB with the flood held)%n", count, bounds.queuedEvents(),
                (heapDuring - heapBefore) / 1e6, heapBefore / 1e6, heapDuring / 1e6);
        // One progress task and the response's completion at most, never a queue of updates.
        assertTrue(bounds.queuedEvents() <= 2, "events queued: " + bounds);
        assertFalse(call.isDone(), "the result waits for the progress before it");
        release.countDown();
        assertEquals("flooded " + count + " progress", text(call.get(60, TimeUnit.SECONDS)));
        // The update the consumer held, the ones that waited in order, then the latest: none of the rest was kept.
        assertEquals(1 + queued, seen.size(), "updates delivered: " + seen.size());
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i - 1) < seen.get(i), "in order: " + seen);
        }
        assertEquals(count, (long) last.get().progress());
    }

    @Test
    void junkStrayErrorsNotificationsAndMalformedTokensLeaveABoundedLogWithoutAStackTrace() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(new Tee(originalErr, captured), true, StandardCharsets.UTF_8));
        CountDownLatch release = new CountDownLatch(1);
        McpClient client = flooder("junky", ClientOptions.builder("junky").listener(new ClientListener() {
            @Override
            public void onNotification(JsonRpcNotification notification) {
                try {
                    release.await(); // a listener that does not keep up
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        ClientSession session = (ClientSession) client;
        long heapBefore = usedHeapAfterGc();
        try {
            assertEquals("flooded 100000 junk", text(flood(client, "junk", 100_000, CallOptions.DEFAULT)));
            assertEquals("flooded 100000 stray-errors", text(flood(client, "stray-errors", 100_000, CallOptions.DEFAULT)));
            assertEquals("flooded 20000 huge-token", text(flood(client, "huge-token", 20_000,
                    CallOptions.DEFAULT.withProgress(update -> { }))));
            assertEquals("flooded 100000 notifications", text(flood(client, "notifications", 100_000,
                    CallOptions.DEFAULT)));
            ClientSession.Bounds bounds = session.bounds();
            long heapDuring = usedHeapAfterGc();
            originalErr.printf("flood bench: 100,000 junk lines, 100,000 stray errors, 20,000 malformed progress and"
                    + " 100,000 notifications to a blocked listener: %d events queued, heap %+.1f MB (used after GC:"
                    + " %.1f MB before, %.1f MB with the listener still blocked); %s%n", bounds.queuedEvents(),
                    (heapDuring - heapBefore) / 1e6, heapBefore / 1e6, heapDuring / 1e6, bounds);
            assertTrue(bounds.queuedEvents() <= ClientThreads.Serial.DEFAULT_CAPACITY, "queued: " + bounds);
            assertTrue(bounds.droppedNotifications() >= 100_000 - ClientThreads.Serial.DEFAULT_CAPACITY - 1,
                    "dropped: " + bounds);
            assertTrue(bounds.suppressedWarnings() > 0, "rate-limited: " + bounds);
            // The session still works after all that.
            assertEquals("flooded 3 progress", text(flood(client, "progress", 3, CallOptions.DEFAULT)));
        } finally {
            release.countDown();
            client.close();
            System.setErr(originalErr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        List<String> lines = log.lines().filter(line -> !line.isBlank()).toList();
        assertFalse(log.contains("\tat "), "no stack trace:\n" + log);
        assertFalse(log.contains("Exception:") && log.contains("\n\tat"), log);
        // Stdout junk: the transport's capped warnings; the rest: the session's rate limit (per 10 s) and its summary.
        assertTrue(lines.size() <= 40, lines.size() + " log lines for 320,000 junk messages:\n" + log);
        assertTrue(log.contains("left out"), "the count of what the rate limit left out is said:\n" + log);
    }

    @Test
    void aServerCannotRunMoreThanTheBoundOfRequestsAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger handled = new java.util.concurrent.atomic.AtomicInteger();
        // A handler that blocks (as one that asks a person does) for every ping of the flood.
        McpClient client = flooder("asker", ClientOptions.builder("asker").handler("ping", params -> {
            handled.incrementAndGet();
            release.await();
            return McpJson.object();
        }));
        int count = 20_000;
        try {
            assertEquals("flooded " + count + " requests", text(flood(client, "requests", count, CallOptions.DEFAULT)));
            ClientSession session = (ClientSession) client;
            await("every request was taken or refused", () -> handled.get() + session.bounds().refusedRequests()
                    == count, Duration.ofMinutes(1));
            assertEquals(ClientSession.MAX_SERVER_REQUESTS, handled.get(), "handlers running at once");
            assertEquals(count - ClientSession.MAX_SERVER_REQUESTS, session.bounds().refusedRequests());
        } finally {
            release.countDown();
        }
        assertEquals("flooded 1 progress", text(flood(client, "progress", 1, CallOptions.DEFAULT)));
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }

    private static void await(String what, BooleanSupplier condition, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + ": not within " + bound);
            }
            Thread.sleep(20);
        }
    }

    /** Writes to two streams. */
    private static final class Tee extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        Tee(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public synchronized void write(int b) throws java.io.IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }
}

package mcp.manager;

import static mcp.manager.ReconnectTest.await;
import static mcp.manager.ReconnectTest.call;
import static mcp.manager.ReconnectTest.pid;
import static mcp.manager.ReconnectTest.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.ReconnectPolicy;
import org.junit.jupiter.api.Test;

/**
 * Kills a server again and again in one manager, idle and mid-call, and checks that it comes back each time while
 * another server is untouched, and that descriptors, threads and child processes stay flat. CI runs a few cycles
 * and asserts no timing; the soak of issue 17 (300 cycles, time to tools available again as p50/p95) is
 * {@code -Dreconnect.soak.cycles=300} (see BENCHMARKS.md).
 */
class ReconnectSoakTest {

    private static final ReconnectPolicy POLICY = new ReconnectPolicy(5, Duration.ofMillis(100), Duration.ofSeconds(2),
            0.2, Duration.ofMillis(200));

    @Test
    void aServerKilledAgainAndAgainComesBackEachTimeAndNothingLeaks() throws Exception {
        int cycles = Integer.getInteger("reconnect.soak.cycles", 12);
        int warmUp = Math.min(4, cycles / 3);
        List<Long> backMillis = new ArrayList<>();
        long[] baseline = null;
        java.util.concurrent.atomic.AtomicInteger reconnects = new java.util.concurrent.atomic.AtomicInteger();
        try (McpManager manager = McpManager.builder().workingDirectory(Path.of("").toAbsolutePath()).reconnect(POLICY)
                .listener(new ManagerListener() {
                    @Override
                    public void onStatusChange(String serverName, ServerStatus status) {
                        if (status.state() == ServerStatus.State.RECONNECTING && status.reconnect().get().attempt() == 1
                                && status.reconnect().get().nextTry().isPresent()) {
                            assertEquals("victim", serverName, "only the victim drops");
                            reconnects.incrementAndGet();
                        }
                    }
                }).build()) {
            manager.connectServers(Map.of("victim", TestServerProcesses.config("--tools", "2"),
                    "bystander", TestServerProcesses.config("--tools", "2")), Map.of());
            long bystander = pid(manager, "bystander");
            for (int cycle = 0; cycle < cycles; cycle++) {
                if (cycle == warmUp) {
                    baseline = resources();
                }
                boolean midCall = cycle % 2 == 1;
                CompletableFuture<ToolOutput> inFlight = midCall
                        ? tool(manager, "mcp_victim_slow").call(McpJson.mapper().readTree("{\"ms\":30000}"))
                        : null;
                long killed = pid(manager, "victim");
                int drops = reconnects.get();
                // Killed from outside, as a crash or the OOM killer would.
                ProcessHandle.of(killed).orElseThrow().destroyForcibly();
                long start = System.nanoTime();
                if (inFlight != null) {
                    ToolOutput failed = inFlight.get(10, TimeUnit.SECONDS);
                    assertTrue(failed.isError(), "cycle " + cycle + ": the call in flight fails: " + failed.text());
                }
                await("cycle " + cycle + ": the victim's tools are live again",
                        () -> reconnects.get() > drops && manager.status("victim").state() == ServerStatus.State.CONNECTED
                                && !manager.toolsOf("victim").isEmpty()
                                && manager.toolsOf("victim").stream().noneMatch(BridgedTool::deferred));
                backMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                ToolOutput echo = call(tool(manager, "mcp_bystander_echo"), "{\"message\":\"still here\"}");
                assertEquals("still here", echo.text());
                // Past the crash window, so that the next kill starts a fresh run of attempts.
                Thread.sleep(250);
            }
            assertEquals(bystander, pid(manager, "bystander"), "the other server was never restarted");
            assertEquals(cycles, reconnects.get(), "each kill was one drop and one fresh run of attempts");
            assertFalse(manager.toolsOf("bystander").isEmpty());
            long[] after = resources();
            List<Long> sorted = backMillis.stream().sorted().toList();
            System.out.printf("reconnect soak: %d kills, tools available again p50 %d ms, p95 %d ms, max %d ms;"
                    + " fds %d -> %d, threads %d -> %d, children %d -> %d%n", cycles, percentile(sorted, 50),
                    percentile(sorted, 95), sorted.get(sorted.size() - 1), baseline[0], after[0], baseline[1], after[1],
                    baseline[2], after[2]);
            assertEquals(2, after[2], "one child process per server");
            // Flat: a leak of a descriptor or thread per cycle would show as a growth of the cycles' count.
            int measured = cycles - warmUp;
            assertTrue(after[0] - baseline[0] < Math.max(16, measured / 2), "fds grew: " + baseline[0] + " -> " + after[0]);
            assertTrue(after[1] - baseline[1] < Math.max(16, measured / 2),
                    "threads grew: " + baseline[1] + " -> " + after[1]);
        }
        TestServerProcesses.assertNoChildProcessLeft();
    }

    /** @return open file descriptors, live threads, live child processes of this JVM */
    private static long[] resources() throws IOException {
        long fds;
        try (Stream<Path> list = Files.list(Path.of("/proc/self/fd"))) {
            fds = list.count();
        }
        // The stdio transport's watchdog (a shell that outlives no server) is not a server.
        long children = ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(p -> !p.info().commandLine().orElse("").endsWith("mcp-stdio-watchdog")).count();
        return new long[] {fds, Thread.activeCount(), children};
    }

    private static long percentile(List<Long> sorted, int p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}

package mcp.manager;

import static mcp.manager.TestServerProcesses.assertNoChildProcessLeft;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wait for a server whose tools nothing vouches for is bounded: past it the start goes on without them, and
 * they arrive later through the tool-list change path. Real testkit processes; the only timing asserted is that the
 * call returned long before the slow server could have been ready (a generous bound).
 */
class UncachedWaitTest {

    @TempDir
    Path temp;

    private McpManager manager;

    @AfterEach
    void close() throws InterruptedException {
        if (manager != null) {
            manager.close();
        }
        assertNoChildProcessLeft();
    }

    @Test
    void anUncachedSlowServerDoesNotHoldTheStartBeyondTheBoundAndItsToolsArriveAfterwards() throws Exception {
        List<String> changes = new CopyOnWriteArrayList<>();
        manager = McpManager.builder().workingDirectory(temp).uncachedWait(Duration.ofMillis(300))
                .listener(new ManagerListener() {
                    @Override
                    public void onToolsChanged(String serverName, List<BridgedTool> tools) {
                        if (tools.stream().anyMatch(t -> t.serverName().equals("slow") && !t.deferred())) {
                            changes.add(serverName);
                        }
                    }
                }).build();
        long start = System.nanoTime();
        ConnectResult result = manager.connectServers(Map.of(
                "slow", TestServerProcesses.config("--tools", "2", "--init-delay-ms", "6000")), Map.of());
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertTrue(millis < 5_000, "returned after " + millis + " ms; the server needs more than 6 s");
        assertEquals(Map.of(), result.errors(), "still connecting is no error");
        assertTrue(result.tools().stream().noneMatch(t -> t.serverName().equals("slow")), "none of its tools yet");
        assertEquals(ServerStatus.State.CONNECTING, manager.status("slow").state());

        ReconnectTest.await("slow's tools arrive", () -> !manager.toolsOf("slow").isEmpty());
        assertTrue(manager.toolsOf("slow").stream().noneMatch(BridgedTool::deferred), "live tools");
        // Listeners are told on their own thread, in order: the event may come a moment after the view changed.
        ReconnectTest.await("the listener hears of them", () -> !changes.isEmpty());
        assertEquals(List.of("slow"), changes.stream().distinct().toList(),
                "the listeners heard of them as of any tool-list change");
        assertEquals(ServerStatus.State.CONNECTED, manager.status("slow").state());
    }

    @Test
    void theBoundIsNeverNegative() {
        assertThrows(IllegalArgumentException.class, () -> McpManager.builder().uncachedWait(Duration.ofMillis(-1)));
        assertEquals(Duration.ofSeconds(10), McpManager.DEFAULT_UNCACHED_WAIT);
    }
}

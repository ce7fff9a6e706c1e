package mcp.gateway;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What one gateway test opened (hosts, gateways, servers, clients), closed last first when the test ends. */
final class Opened {

    private final List<AutoCloseable> open = new ArrayList<>();

    /** @return the closeable, closed by {@link #closeAll} */
    <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    /** Closes everything tracked, last opened first. */
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }

    /** Fails unless every server process this JVM started has ended within 10 s. */
    static void awaitNoServerProcess() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.current().descendants().anyMatch(ProcessHandle::isAlive)) {
            assertTrue(System.nanoTime() < deadline, "a server process outlived the host");
            Thread.sleep(50);
        }
    }
}

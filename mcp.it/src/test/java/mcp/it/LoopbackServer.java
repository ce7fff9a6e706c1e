package mcp.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A peer's HTTP server process on a free port of 127.0.0.1, ready once the port accepts connections (30 s at most),
 * with its merged output kept for failure messages; closing ends it and its descendants.
 */
final class LoopbackServer implements AutoCloseable {

    private final Process process;
    private final int port;
    private final List<String> output = new CopyOnWriteArrayList<>();

    /** Starts the command that {@code command} gives for a free port and waits until it listens there. */
    LoopbackServer(IntFunction<List<String>> command) throws Exception {
        this(freePort(), command);
    }

    /**
     * Starts the command that {@code command} gives for this port (one a stopped server used, to start it again)
     * and waits until it listens there.
     */
    LoopbackServer(int port, IntFunction<List<String>> command) throws Exception {
        this.port = port;
        List<String> line = command.apply(port);
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true);
        // Should the build itself run under an mcp-host (a terminal server of an agent), a gateway started here
        // would take itself for that mcp-host's server and refuse to start.
        builder.environment().remove("MCP_HOST_UPSTREAM_OF");
        process = builder.start();
        process.getOutputStream().close();
        drain(process.getInputStream());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    close();
                    fail(String.join(" ", line) + " did not listen within 30 s: " + output);
                }
                Thread.sleep(100);
            }
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    /** @return the server's process */
    Process process() {
        return process;
    }

    int port() {
        return port;
    }

    /** @return what the process printed so far */
    List<String> output() {
        return List.copyOf(output);
    }

    private void drain(InputStream stream) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String text;
                while ((text = reader.readLine()) != null) {
                    output.add(text);
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, "loopback-server-output");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
    }
}

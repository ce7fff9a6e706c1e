package mcp.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The test server as a real child process, spoken to in raw JSON lines; close() always kills it. */
final class ServerProcess implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    private final Process process;
    private final OutputStream stdin;
    private final List<JsonNode> inbox = new ArrayList<>(); // guarded by this
    private final StringBuffer stderr = new StringBuffer();

    ServerProcess(String... serverArgs) throws IOException {
        process = new ProcessBuilder(TestServers.command(serverArgs)).start();
        stdin = process.getOutputStream();
        daemon("stdout", () -> readStdout(process.getInputStream()));
        daemon("stderr", () -> drain(process.getErrorStream()));
    }

    Process process() {
        return process;
    }

    String stderr() {
        return stderr.toString();
    }

    void send(String json) throws IOException {
        stdin.write((json.strip().replace("\n", " ") + "\n").getBytes(UTF_8));
        stdin.flush();
    }

    /** Sends a request with a numeric id and waits for its response. */
    JsonNode request(int id, String method, String paramsJson) throws IOException {
        send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + paramsJson + "}");
        return await(responseTo(id));
    }

    JsonNode callTool(int id, String name, String argumentsJson) throws IOException {
        return request(id, "tools/call", "{\"name\":\"" + name + "\",\"arguments\":" + argumentsJson + "}");
    }

    static Predicate<JsonNode> responseTo(int id) {
        return m -> !m.has("method") && m.path("id").isNumber() && m.path("id").asInt() == id;
    }

    static Predicate<JsonNode> method(String method) {
        return m -> m.path("method").isString() && method.equals(m.path("method").stringValue());
    }

    /** Takes the first received message that matches, waiting for it up to {@link #TIMEOUT}. */
    synchronized JsonNode await(Predicate<JsonNode> wanted) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            for (Iterator<JsonNode> it = inbox.iterator(); it.hasNext(); ) {
                JsonNode m = it.next();
                if (wanted.test(m)) {
                    it.remove();
                    return m;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no matching message; received " + inbox + "; stderr: " + stderr);
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted");
            }
        }
    }

    /** True when nothing matching arrives within the given time. */
    synchronized boolean silentFor(Predicate<JsonNode> unwanted, Duration duration) throws InterruptedException {
        long deadline = System.nanoTime() + duration.toNanos();
        for (long left = duration.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return inbox.stream().noneMatch(unwanted);
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void readStdout(InputStream in) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                JsonNode msg;
                try {
                    msg = MAPPER.readTree(line);
                } catch (JacksonException e) {
                    continue; // tolerated, like a client should: the garbage-stdout fault writes such lines
                }
                synchronized (this) {
                    inbox.add(msg);
                    notifyAll();
                }
            }
        } catch (IOException e) {
            // the process was killed: nothing more to read
        }
    }

    private void drain(InputStream in) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                stderr.append(line).append('\n');
            }
        } catch (IOException e) {
            // the process was killed: nothing more to read
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, "server-" + name);
        t.setDaemon(true);
        t.start();
    }
}

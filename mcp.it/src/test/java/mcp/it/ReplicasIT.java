package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ToolResult;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * Replicas of {@code mcp-host serve --http} (the runtime image) behind HAProxy on 127.0.0.1, round robin, no affinity:
 * three replicas given the same keys (two from {@code MCP_HOST_GATEWAY_KEYS}, one from {@code --keys FILE}), each with
 * its own stdio test server that logs every execution to one shared file. Clients of both eras call through the
 * balancer while one replica is killed with SIGKILL: the calls in flight on it fail with an error, every call started
 * after the kill succeeds, no call runs twice, and the 2025 sessions go on on the other replicas. The figures (calls,
 * failures in flight, p50 through the balancer) are printed on stderr for BENCHMARKS.md. Skipped, saying so, where
 * HAProxy is not installed ({@code .ci/packages} installs it).
 */
class ReplicasIT {

    private static final int REPLICAS = 3;
    /** Calls per client; the load is bounded by these, not by time. */
    private static final int CALLS = Integer.getInteger("replicas.calls", 40);
    private static final long CALL_MILLIS = 150;
    /** Calls of each Python SDK client (one per era), after the kill. */
    private static final int PYTHON_CALLS = 15;

    @TempDir
    Path temp;

    private final List<LoopbackServer> replicas = new ArrayList<>();
    private final List<McpClient> clients = new ArrayList<>();
    private Process balancer;

    @AfterEach
    void closeAll() throws Exception {
        for (McpClient client : clients) {
            client.close();
        }
        for (LoopbackServer replica : replicas) {
            replica.close();
        }
        if (balancer != null) {
            balancer.destroy();
            balancer.waitFor(10, TimeUnit.SECONDS);
            balancer.destroyForcibly();
        }
        EraPeer.assertNoChildLeft();
    }

    /** What one call did. */
    private record Outcome(String client, String tag, long startNanos, long endNanos, Optional<String> failure) {
    }

    @Test
    void aReplicaKilledMidLoadFailsOnlyItsCallsInFlight() throws Exception {
        Optional<Path> haproxy = haproxy();
        Assumptions.assumeTrue(haproxy.isPresent(), "ReplicasIT skipped: haproxy is not installed (Debian package "
                + "haproxy; .ci/packages installs it)");
        Path home = Files.createDirectories(temp.resolve("home"));
        Path callLog = temp.resolve("calls.log");
        Files.writeString(callLog, "");
        Path config = temp.resolve("servers.json");
        List<String> command = TestServers.command("--call-log", callLog.toString());
        ObjectNode entry = McpJson.object().put("command", command.get(0));
        command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        Files.writeString(config, McpJson.object().set("mcpServers", McpJson.object().set("kit", entry)).toString());
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String keys = "k1:" + Base64.getEncoder().encodeToString(secret);
        Path keyFile = temp.resolve("keys");
        Files.writeString(keyFile, "# the replicas' keys: the first seals\n" + keys + "\n");

        int front = LoopbackServer.freePort();
        for (int i = 0; i < REPLICAS; i++) {
            boolean fromFile = i == REPLICAS - 1;
            replicas.add(new LoopbackServer(port -> {
                List<String> line = new ArrayList<>(List.of("env", "HOME=" + home));
                if (!fromFile) {
                    line.add("MCP_HOST_GATEWAY_KEYS=" + keys);
                }
                line.addAll(List.of(Cli.IMAGE.resolve("bin/mcp-host").toString(), "--config", config.toString(),
                        "serve", "--http", "--no-token", "--port", Integer.toString(port),
                        "--allowed-host", "127.0.0.1:" + front));
                if (fromFile) {
                    line.addAll(List.of("--keys", keyFile.toString()));
                }
                return line;
            }));
        }
        startBalancer(haproxy.get(), front);
        URI url = URI.create("http://127.0.0.1:" + front + "/mcp");

        List<String> versions = List.of("2025-11-25", "2025-11-25", McpClient.AUTO, McpClient.AUTO);
        for (int i = 0; i < versions.size(); i++) {
            clients.add(EraPeer.connect("replicas", HttpServerConfig.of(url.toString()),
                    ClientOptions.builder("replicas").protocolVersion(versions.get(i)), temp, new ArrayList<>()));
        }
        assertTrue(clients.get(0).initializeResult().protocolVersion().startsWith("2025"));
        assertEquals("2026-07-28", clients.get(2).initializeResult().protocolVersion(),
                "the modern clients speak the stateless revision");

        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AtomicInteger done = new AtomicInteger();
        CountDownLatch quarter = new CountDownLatch(1);
        List<CompletableFuture<Void>> loads = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            McpClient client = clients.get(c);
            String name = "c" + c + "-" + (versions.get(c).startsWith("2025") ? "2025" : "2026");
            loads.add(CompletableFuture.runAsync(() -> {
                for (int n = 0; n < CALLS; n++) {
                    String tag = name + "-" + n;
                    long start = System.nanoTime();
                    Optional<String> failure;
                    try {
                        ToolResult result = client.callTool("slow", McpJson.object().put("ms", CALL_MILLIS)
                                .put("steps", 1).put("tag", tag)).get(30, TimeUnit.SECONDS);
                        failure = result.isError() ? Optional.of("tool error: " + EraPeer.text(result))
                                : Optional.empty();
                    } catch (Exception e) {
                        Throwable cause = e.getCause() != null ? e.getCause() : e;
                        failure = Optional.of(cause.getClass().getSimpleName() + ": " + cause.getMessage());
                    }
                    outcomes.add(new Outcome(name, tag, start, System.nanoTime(), failure));
                    if (done.incrementAndGet() >= clients.size() * CALLS / 4) {
                        quarter.countDown();
                    }
                }
            }));
        }
        assertTrue(quarter.await(120, TimeUnit.SECONDS), "a quarter of the load did not finish: " + outcomes);
        long killStart = System.nanoTime();
        killJvm(replicas.get(1).process().toHandle());
        long killed = System.nanoTime();
        // The Python SDK's client joins after the kill, in both eras, beside the load: each of its calls must succeed.
        List<Process> python = new ArrayList<>();
        Path interpreter = EraPeer.INTEROP.resolve("python/venv/bin/python");
        if (Files.isExecutable(interpreter)) {
            for (String era : List.of("2025", "2026")) {
                StringBuilder script = new StringBuilder("[");
                for (int n = 0; n < PYTHON_CALLS; n++) {
                    script.append(n == 0 ? "" : ",").append("{\"op\":\"call\",\"name\":\"slow\",\"arguments\":")
                            .append(McpJson.object().put("ms", CALL_MILLIS).put("steps", 1).put("tag", "py" + era
                                    + "-" + n)).append('}');
                }
                python.add(new ProcessBuilder(interpreter.toString(), EraPeer.INTEROP.resolve("python/probe_client.py")
                        .toString(), "--era", era, "--timeout", "120", "--script", script.append(']').toString(),
                        "--url", url.toString()).redirectErrorStream(true).start());
            }
        } else {
            System.err.println("ReplicasIT: the Python SDK's client left out: " + interpreter + " is missing (the "
                    + "build's interop/install.sh makes it)");
        }
        CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new)).get(300, TimeUnit.SECONDS);
        for (Process process : python) {
            assertTrue(process.waitFor(150, TimeUnit.SECONDS), "the Python client did not end");
            String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), "every call of the Python SDK's client after the kill succeeds: "
                    + output);
        }

        List<Outcome> failures = outcomes.stream().filter(outcome -> outcome.failure().isPresent()).toList();
        for (Outcome failure : failures) {
            assertTrue(failure.startNanos() < killed && failure.endNanos() > killStart,
                    "a call failed that was not in flight at the kill: " + failure);
            assertTrue(!failure.failure().get().isBlank(), "a failure says why: " + failure);
        }
        assertTrue(failures.size() <= clients.size(), "at most one call in flight per client: " + failures);
        for (Outcome outcome : outcomes) {
            if (outcome.startNanos() > killed) {
                assertTrue(outcome.failure().isEmpty(), "a call after the kill failed: " + outcome);
            }
        }
        for (String name : List.of("c0-2025", "c1-2025")) {
            assertTrue(outcomes.stream().anyMatch(o -> o.client().equals(name) && o.startNanos() > killed
                    && o.failure().isEmpty()), "the 2025 session of " + name + " went on after the kill");
        }
        assertEquals(clients.size() * CALLS, outcomes.size());

        // No call executed twice; every call answered was executed exactly once, in one of the replicas' servers.
        Map<String, Integer> executions = new TreeMap<>();
        for (String line : Files.readAllLines(callLog)) {
            int at = line.indexOf("\"tag\":\"");
            if (line.startsWith("slow ") && at >= 0) {
                String tag = line.substring(at + 7, line.indexOf('"', at + 7));
                executions.merge(tag, 1, Integer::sum);
            }
        }
        executions.forEach((tag, count) -> assertEquals(1, count, "call " + tag + " was executed " + count + " times"));
        for (int n = 0; n < (python.isEmpty() ? 0 : PYTHON_CALLS); n++) {
            for (String era : List.of("2025", "2026")) {
                assertEquals(1, executions.getOrDefault("py" + era + "-" + n, 0), "Python call " + era + "-" + n);
            }
        }
        for (Outcome outcome : outcomes) {
            if (outcome.failure().isEmpty()) {
                assertEquals(1, executions.getOrDefault(outcome.tag(), 0), "answered but not executed: " + outcome);
            }
        }

        List<Long> latencies = new ArrayList<>();
        outcomes.stream().filter(o -> o.failure().isEmpty()).forEach(o -> latencies.add(o.endNanos() - o.startNanos()));
        Collections.sort(latencies);
        System.err.printf(Locale.ROOT, "ReplicasIT: %d replicas behind HAProxy, %d clients (2 of 2025-11-25, 2 of "
                + "2026-07-28), %d calls of %d ms, one replica killed (SIGKILL) after %d: %d failed in flight, %d "
                + "succeeded, 0 executed twice; p50 %.1f ms, p95 %.1f ms through the balancer; and %d calls of the "
                + "Python SDK client after the kill, all succeeded%n", REPLICAS,
                clients.size(), outcomes.size(), CALL_MILLIS, clients.size() * CALLS / 4, failures.size(),
                latencies.size(), percentile(latencies, 50), percentile(latencies, 95),
                python.size() * PYTHON_CALLS);
        failures.forEach(failure -> System.err.println("ReplicasIT: failed in flight: " + failure.tag() + ": "
                + failure.failure().get()));
    }

    private static double percentile(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return Double.NaN;
        }
        return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100)) / 1e6;
    }

    /** SIGKILL to the JVM of a replica (the launcher's child, or the launcher itself), then to what is left. */
    private static void killJvm(ProcessHandle launcher) throws Exception {
        List<ProcessHandle> all = new ArrayList<>();
        all.add(launcher);
        launcher.descendants().forEach(all::add);
        ProcessHandle jvm = all.stream().filter(handle -> handle.info().command().map(c -> c.endsWith("/java"))
                .orElse(false)).findFirst().orElse(launcher);
        jvm.destroyForcibly();
        jvm.onExit().get(10, TimeUnit.SECONDS);
    }

    private void startBalancer(Path haproxy, int front) throws Exception {
        StringBuilder cfg = new StringBuilder();
        cfg.append("global\n  maxconn 512\n\n");
        cfg.append("defaults\n  mode http\n  timeout connect 2s\n  timeout client 60s\n  timeout server 60s\n");
        // Retries only where the request never reached a replica (the connection failed): a POST that reached one is
        // never sent again, so no call runs twice; a server connection is never reused, so none of them can be a
        // connection to a replica that died.
        cfg.append("  retries 3\n  retry-on conn-failure\n  option redispatch 1\n  http-reuse never\n\n");
        cfg.append("frontend mcp\n  bind 127.0.0.1:").append(front).append("\n  default_backend replicas\n\n");
        cfg.append("backend replicas\n  balance roundrobin\n  option httpchk GET /readyz\n");
        cfg.append("  http-check expect status 200\n  default-server inter 500ms fall 2 rise 1\n");
        for (int i = 0; i < replicas.size(); i++) {
            cfg.append("  server r").append(i).append(" 127.0.0.1:").append(replicas.get(i).port()).append(" check\n");
        }
        Path file = temp.resolve("haproxy.cfg");
        Files.writeString(file, cfg.toString());
        Path out = temp.resolve("haproxy.out");
        balancer = new ProcessBuilder(haproxy.toString(), "-db", "-f", file.toString()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        while (true) {
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), front)) {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + front
                        + "/readyz")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // Not listening yet.
            }
            assertTrue(balancer.isAlive() && System.nanoTime() < deadline, "haproxy did not start: "
                    + Files.readString(out));
            Thread.sleep(100);
        }
    }

    private static Optional<Path> haproxy() {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
        return dirs.stream().filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, "haproxy"))
                .filter(Files::isExecutable).findFirst();
    }
}

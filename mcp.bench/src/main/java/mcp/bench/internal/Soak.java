package mcp.bench.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.ReconnectPolicy;
import mcp.api.ServerConfig;
import mcp.api.StdioServerConfig;
import mcp.bench.ClientRun;
import mcp.manager.BridgedTool;
import mcp.manager.ConnectResult;
import mcp.manager.ManagerListener;
import mcp.manager.McpManager;
import mcp.manager.ServerStatus;
import mcp.manager.ToolOutput;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The recovery soak of issue 17 in one host process: one {@link McpManager} with a {@code bystander} server that a
 * thread calls all along, then {@code --connect-cycles} cycles that connect a third server, call it once and
 * disconnect it, then {@code --kill-cycles} cycles that kill the {@code victim} server from outside (SIGKILL),
 * idle and, every other cycle, with a {@code slow} call in flight, and wait until its tools are live again.
 *
 * <p>After every cycle it samples the process's open file descriptors ({@code /proc/self/fd}), live Java threads
 * and live child processes (the stdio watchdog, a {@code /bin/sh} whose command line ends with
 * {@code mcp-stdio-watchdog}, counted apart). Per kill it records the time until the victim's tools are live again,
 * the reconnect attempt that brought it back, how long the call in flight took to fail, and whether the victim's
 * new process received that call again (its {@code received} tool: a retry would show as a second
 * {@code tools/call}). The bystander's calls are counted, failures apart.
 *
 * <p>Command line: {@code [--connect-cycles N] [--kill-cycles N] [--initial-delay-ms MS] [--max-delay-ms MS]
 * [--jitter J] [--crash-window-ms MS] [--attempts N] -- TESTKIT SERVER COMMAND...} (the testkit command without
 * per-server options: this adds {@code --tools 2 --name NAME}, and {@code --era legacy} for the victim). Prints
 * one line per 50 cycles on stderr and {@code BENCH-RESULT {json}} at the end; exits 1 when a check failed.
 */
public final class Soak {

    private static final String WATCHDOG = "mcp-stdio-watchdog";

    private final Map<String, String> options;
    private final List<String> server;
    private final ReconnectPolicy policy;
    private final ObjectNode result = Proc.JSON.createObjectNode();
    private final ArrayNode problems = result.putArray("problems");
    private final AtomicInteger drops = new AtomicInteger();
    /** Per drop of the victim: the highest attempt seen while reconnecting. */
    private final Map<Integer, Integer> attemptOfDrop = new ConcurrentHashMap<>();
    private final AtomicBoolean failed = new AtomicBoolean();
    private McpManager manager;

    private Soak(Map<String, String> options, List<String> server) {
        this.options = options;
        this.server = server;
        policy = new ReconnectPolicy(number("--attempts", 5), Duration.ofMillis(number("--initial-delay-ms", 100)),
                Duration.ofMillis(number("--max-delay-ms", 2000)), Double.parseDouble(options.getOrDefault("--jitter", "0.2")),
                Duration.ofMillis(number("--crash-window-ms", 200)));
    }

    private int number(String name, int fallback) {
        return Integer.parseInt(options.getOrDefault(name, String.valueOf(fallback)));
    }

    /**
     * @param args see the class comment
     * @throws Exception if the soak cannot run at all
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        int i = 0;
        for (; i + 1 < args.length && !args[i].equals("--"); i += 2) {
            options.put(args[i], args[i + 1]);
        }
        Soak soak = new Soak(options, List.of(args).subList(i + 1, args.length));
        soak.run();
        System.out.println(ClientRun.RESULT_PREFIX + Proc.JSON.writeValueAsString(soak.result));
        System.out.flush();
        System.exit(soak.failed.get() ? 1 : 0);
    }

    private StdioServerConfig config(String name, String... extra) {
        List<String> args = new ArrayList<>(server.subList(1, server.size()));
        args.addAll(List.of("--tools", "2", "--name", name));
        args.addAll(List.of(extra));
        return StdioServerConfig.of(server.get(0), args);
    }

    private void problem(String text) {
        System.err.println("soak: PROBLEM: " + text);
        if (problems.size() < 50) {
            problems.add(text);
        }
        failed.set(true);
    }

    private void run() throws Exception {
        int connectCycles = number("--connect-cycles", 1000);
        int killCycles = number("--kill-cycles", 300);
        result.put("connectCycles", connectCycles);
        result.put("killCycles", killCycles);
        result.put("policy", policy.toString());
        ObjectNode start = result.putObject("start");
        sample(start, true);
        Bystander bystander;
        try (McpManager m = McpManager.builder().workingDirectory(Path.of("").toAbsolutePath()).reconnect(policy)
                .listener(new ManagerListener() {
                    @Override
                    public void onStatusChange(String serverName, ServerStatus status) {
                        if (status.state() != ServerStatus.State.RECONNECTING || status.reconnect().isEmpty()) {
                            return;
                        }
                        if (!serverName.equals("victim")) {
                            problem(serverName + " reconnected: only the victim is ever killed");
                            return;
                        }
                        ServerStatus.Reconnect r = status.reconnect().get();
                        if (r.attempt() == 1 && r.nextTry().isPresent()) {
                            drops.incrementAndGet();
                        }
                        attemptOfDrop.merge(drops.get(), r.attempt(), Math::max);
                    }
                }).build()) {
            manager = m;
            Map<String, ServerConfig> first = new LinkedHashMap<>();
            first.put("victim", config("victim", "--era", "legacy"));
            first.put("bystander", config("bystander"));
            ConnectResult connected = manager.connectServers(first, Map.of());
            if (!connected.errors().isEmpty()) {
                throw new IllegalStateException("the soak's servers did not connect: " + connected.errors());
            }
            long bystanderPid = pid("bystander");
            int bystanderTools = manager.toolsOf("bystander").size();
            bystander = new Bystander(manager);
            bystander.start();
            connectCycles(connectCycles);
            killCycles(killCycles);
            bystander.stop();
            if (pid("bystander") != bystanderPid) {
                problem("the bystander's process changed");
            }
            if (manager.toolsOf("bystander").size() != bystanderTools) {
                problem("the bystander's tools changed: " + bystanderTools + " -> " + manager.toolsOf("bystander").size());
            }
            ObjectNode calls = result.putObject("bystanderCalls");
            calls.put("ok", bystander.ok.get());
            calls.put("failed", bystander.failures.get());
            calls.put("firstFailure", bystander.firstFailure);
            if (bystander.failures.get() != 0) {
                problem(bystander.failures.get() + " calls to the bystander failed; first: " + bystander.firstFailure);
            }
            sample(result.putObject("end"), true);
        }
        // After close: every server process (and the watchdog) is gone.
        awaitQuietly(() -> children(false) == 0 && children(true) == 0, Duration.ofSeconds(10));
        ObjectNode closed = result.putObject("afterClose");
        closed.put("children", children(false));
        closed.put("watchdogs", children(true));
        if (children(false) != 0 || children(true) != 0) {
            problem("processes left after close: " + children(false) + " servers, " + children(true) + " watchdogs");
        }
    }

    // ------------------------------------------------------------------ connect/close

    private void connectCycles(int cycles) throws Exception {
        ObjectNode phase = result.putObject("connect");
        Series series = new Series();
        List<Double> connectMs = new ArrayList<>();
        StdioServerConfig cycler = config("cycler");
        long phaseStart = System.nanoTime();
        for (int cycle = 0; cycle < cycles; cycle++) {
            long t0 = System.nanoTime();
            ConnectResult connected = manager.connectServers(Map.of("cycler", cycler), Map.of());
            connectMs.add((System.nanoTime() - t0) / 1e6);
            if (!connected.errors().isEmpty()) {
                problem("connect cycle " + cycle + ": " + connected.errors());
            } else {
                ToolOutput echo = call("mcp_cycler_echo", "{\"message\":\"cycle " + cycle + "\"}");
                if (echo.isError() || !echo.text().equals("cycle " + cycle)) {
                    problem("connect cycle " + cycle + ": echo answered " + echo.text());
                }
            }
            manager.disconnectServer("cycler");
            if (manager.status("cycler").state() == ServerStatus.State.CONNECTED || !manager.toolsOf("cycler").isEmpty()) {
                problem("connect cycle " + cycle + ": the cycler is still there after its disconnect");
            }
            series.add(cycle);
            progress("connect", cycle, cycles, phaseStart, series);
        }
        series.write(phase, cycles);
        phase.set("connectMs", Stats.of(connectMs));
    }

    // ------------------------------------------------------------------ kills

    private void killCycles(int cycles) throws Exception {
        ObjectNode phase = result.putObject("kill");
        Series series = new Series();
        List<Double> backMs = new ArrayList<>();
        List<Double> failFastMs = new ArrayList<>();
        int inFlightFailed = 0;
        int inFlightSucceeded = 0;
        int inFlightStuck = 0;
        int retried = 0;
        int notBack = 0;
        long phaseStart = System.nanoTime();
        for (int cycle = 0; cycle < cycles; cycle++) {
            boolean midCall = cycle % 2 == 1;
            CompletableFuture<ToolOutput> inFlight = null;
            if (midCall) {
                inFlight = tool("mcp_victim_slow").call(McpJson.mapper().readTree("{\"ms\":30000}"));
                Thread.sleep(100); // written and taken by the server before it dies
            }
            long killed = pid("victim");
            int dropsBefore = drops.get();
            ProcessHandle.of(killed).orElseThrow().destroyForcibly(); // from outside, as a crash or the OOM killer
            long t0 = System.nanoTime();
            if (inFlight != null) {
                try {
                    ToolOutput output = inFlight.get(10, TimeUnit.SECONDS);
                    failFastMs.add((System.nanoTime() - t0) / 1e6);
                    if (output.isError()) {
                        inFlightFailed++;
                    } else {
                        inFlightSucceeded++;
                        problem("kill cycle " + cycle + ": the call in flight succeeded: " + output.text());
                    }
                } catch (ExecutionException e) {
                    failFastMs.add((System.nanoTime() - t0) / 1e6);
                    inFlightFailed++; // failed as an exception rather than an error result: failed all the same
                } catch (TimeoutException e) {
                    inFlightStuck++;
                    problem("kill cycle " + cycle + ": the call in flight did not fail within 10 s");
                }
            }
            boolean back = awaitQuietly(() -> drops.get() > dropsBefore
                    && manager.status("victim").state() == ServerStatus.State.CONNECTED
                    && !manager.toolsOf("victim").isEmpty()
                    && manager.toolsOf("victim").stream().noneMatch(BridgedTool::deferred), Duration.ofSeconds(60));
            if (!back) {
                notBack++;
                problem("kill cycle " + cycle + ": the victim was not back within 60 s: " + manager.status("victim"));
                break;
            }
            backMs.add((System.nanoTime() - t0) / 1e6);
            if (midCall) {
                // The new process's own record of the requests it received: the call of "received" itself is the
                // only tools/call there unless the call in flight was sent again.
                JsonNode methods = McpJson.mapper().readTree(call("mcp_victim_received", null).text());
                long toolCalls = Stream.of(Proc.JSON.convertValue(methods, String[].class))
                        .filter("tools/call"::equals).count();
                if (toolCalls != 1) {
                    retried++;
                    problem("kill cycle " + cycle + ": the new victim received " + toolCalls + " tools/call: " + methods);
                }
            }
            series.add(cycle);
            progress("kill", cycle, cycles, phaseStart, series);
            Thread.sleep(policy.crashWindow().toMillis() + 50); // past the crash window: the next kill starts afresh
        }
        series.write(phase, cycles);
        phase.set("toolsBackMs", Stats.of(backMs));
        phase.set("inFlightFailMs", Stats.of(failFastMs));
        phase.put("drops", drops.get());
        phase.put("notBack", notBack);
        phase.put("inFlightFailed", inFlightFailed);
        phase.put("inFlightSucceeded", inFlightSucceeded);
        phase.put("inFlightStuck", inFlightStuck);
        phase.put("inFlightRetried", retried);
        Map<Integer, Integer> attempts = new TreeMap<>();
        attemptOfDrop.values().forEach(a -> attempts.merge(a, 1, Integer::sum));
        ObjectNode byAttempt = phase.putObject("backAtAttempt");
        attempts.forEach((attempt, count) -> byAttempt.put(String.valueOf(attempt), count));
        if (drops.get() != backMs.size()) {
            problem(backMs.size() + " kills but " + drops.get() + " drops seen");
        }
    }

    // ------------------------------------------------------------------ helpers

    private BridgedTool tool(String name) {
        return manager.getTools().stream().filter(t -> t.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no tool " + name));
    }

    private ToolOutput call(String name, String args) throws Exception {
        return tool(name).call(args == null ? null : McpJson.mapper().readTree(args)).get(60, TimeUnit.SECONDS);
    }

    private long pid(String serverName) throws Exception {
        ToolOutput output = call("mcp_" + serverName + "_pid", null);
        if (output.isError()) {
            throw new IllegalStateException(serverName + ": pid failed: " + output.text());
        }
        return Long.parseLong(output.text().trim().split("\\s+")[0]);
    }

    private void progress(String phase, int cycle, int cycles, long phaseStart, Series series) {
        if ((cycle + 1) % 50 == 0 || cycle + 1 == cycles) {
            System.err.printf("soak: %s %d/%d after %.0f s: fds %d, threads %d, children %d, watchdogs %d%n", phase,
                    cycle + 1, cycles, (System.nanoTime() - phaseStart) / 1e9, series.last(0), series.last(1),
                    series.last(2), series.last(3));
        }
    }

    private static void sample(ObjectNode into, boolean heap) {
        long[] r = resources();
        into.put("fds", r[0]);
        into.put("threads", r[1]);
        into.put("children", r[2]);
        into.put("watchdogs", r[3]);
        if (heap) {
            into.put("heapAfterGcMb", Flood.usedHeapAfterGc() / 1e6);
        }
    }

    /** @return open file descriptors, live Java threads, live child processes (servers), live stdio watchdogs */
    static long[] resources() {
        long fds;
        try (Stream<Path> list = Files.list(Path.of("/proc/self/fd"))) {
            fds = list.count();
        } catch (IOException e) {
            fds = -1;
        }
        return new long[] {fds, Thread.getAllStackTraces().size(), children(false), children(true)};
    }

    private static long children(boolean watchdogs) {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").endsWith(WATCHDOG) == watchdogs).count();
    }

    private static boolean awaitQuietly(BooleanSupplier condition, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /** A thread that calls the bystander's {@code echo} all along, one call at a time. */
    private static final class Bystander {
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        volatile String firstFailure;
        private final McpManager manager;
        private volatile boolean running = true;
        private final Thread thread;

        Bystander(McpManager manager) {
            this.manager = manager;
            thread = new Thread(this::loop, "soak-bystander");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(70_000);
        }

        private void loop() {
            long n = 0;
            while (running) {
                String message = "bystander " + n++;
                String outcome;
                try {
                    BridgedTool echo = manager.getTools().stream().filter(t -> t.name().equals("mcp_bystander_echo"))
                            .findFirst().orElse(null);
                    ToolOutput output = echo == null ? null
                            : echo.call(McpJson.object().put("message", message)).get(60, TimeUnit.SECONDS);
                    outcome = output == null ? "no tool mcp_bystander_echo"
                            : output.isError() || !output.text().equals(message) ? "answered " + output.text() : null;
                } catch (Exception e) {
                    outcome = e.toString();
                }
                if (outcome == null) {
                    ok.incrementAndGet();
                } else if (failures.incrementAndGet() == 1) {
                    firstFailure = outcome;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** Resource samples after each cycle of a phase, and what they say after its warm-up. */
    private static final class Series {
        private final List<long[]> samples = new ArrayList<>();

        void add(int cycle) {
            samples.add(resources());
        }

        long last(int index) {
            return samples.isEmpty() ? -1 : samples.get(samples.size() - 1)[index];
        }

        /** Warm-up: the first tenth of the cycles (at least 2, at most 50). */
        void write(ObjectNode phase, int cycles) {
            int warmUp = Math.max(2, Math.min(50, cycles / 10));
            phase.put("cycles", samples.size());
            phase.put("warmUpCycles", warmUp);
            String[] names = {"fds", "threads", "children", "watchdogs"};
            for (int k = 0; k < names.length; k++) {
                ObjectNode figure = phase.putObject(names[k]);
                if (samples.isEmpty()) {
                    continue;
                }
                int from = Math.min(warmUp, samples.size() - 1);
                figure.put("first", samples.get(0)[k]);
                figure.put("afterWarmUp", samples.get(from)[k]);
                figure.put("end", samples.get(samples.size() - 1)[k]);
                long max = 0;
                for (int i = from; i < samples.size(); i++) {
                    max = Math.max(max, samples.get(i)[k]);
                }
                figure.put("maxAfterWarmUp", max);
                figure.put("slopePer100Cycles", slope(samples.subList(from, samples.size()), k) * 100);
            }
        }

        /** Least-squares slope of one figure over the cycles. */
        private static double slope(List<long[]> points, int k) {
            int n = points.size();
            if (n < 2) {
                return 0;
            }
            double meanX = (n - 1) / 2.0;
            double meanY = points.stream().mapToLong(p -> p[k]).average().orElse(0);
            double num = 0;
            double den = 0;
            for (int i = 0; i < n; i++) {
                num += (i - meanX) * (points.get(i)[k] - meanY);
                den += (i - meanX) * (i - meanX);
            }
            return num / den;
        }
    }

    /** p50, p95, max and count of a list of milliseconds. */
    static final class Stats {
        private Stats() {
        }

        static ObjectNode of(List<Double> values) {
            ObjectNode node = Proc.JSON.createObjectNode();
            List<Double> sorted = values.stream().sorted().toList();
            node.put("count", sorted.size());
            if (!sorted.isEmpty()) {
                node.put("p50", percentile(sorted, 50));
                node.put("p95", percentile(sorted, 95));
                node.put("max", sorted.get(sorted.size() - 1));
            }
            return node;
        }

        static double percentile(List<Double> sorted, int p) {
            int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
            return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
        }
    }
}

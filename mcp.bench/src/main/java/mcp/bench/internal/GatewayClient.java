package mcp.bench.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import mcp.api.HttpServerConfig;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.StdioServerConfig;
import mcp.api.spi.Providers;
import mcp.api.spi.TransportProvider;
import mcp.api.spi.TransportRequest;
import mcp.bench.BenchClient;
import mcp.bench.ClientRun;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;

/**
 * The client process of the gateway comparison ({@link Gateways}): mcp-host's own {@link McpClient}, over its
 * Streamable HTTP transport (provider {@code http}, found by ServiceLoader as the host finds it) to a gateway's URL,
 * or over stdio to a command (the upstream itself for the direct row, or a gateway that speaks stdio); always on the
 * 2025-11-25 handshake (a stateful session, which both gateways keep). With {@code --client floor}, the calls mode
 * runs the floor instead ({@link FloorHttpClient} to a URL, {@link FloorClient} to a command).
 *
 * <ul>
 *   <li>{@code --mode calls} (one session): connect; {@code tools/list}; sequential {@code echo} calls for
 *       {@code --warmup-seconds} (0: none) and then {@code --warmup} more, untimed; {@code --calls} sequential calls,
 *       each timed; then {@code --inflight} calls in flight for {@code --seconds}, each timed (a lane sends its next call when the last one completed). Every answer is
 *       checked against {@code --expect-prefix} + the message.</li>
 *   <li>{@code --mode hold}: {@code --sessions} sessions over the comma-separated {@code --urls} in turn (5 connecting
 *       at a time), each lists its tools and calls {@code echo} once; prints {@code HOLDING <ok> <failed>}, keeps them
 *       open until its stdin ends or says something, then closes them.</li>
 * </ul>
 * Prints {@code BENCH-RESULT {json}} at the end. Command line: {@code --mode calls|hold [--client mcp-host|floor]
 * [--url URL | --urls U,U,...]
 * [--watch-pids P,P] [options] [-- COMMAND...]} (the command instead of a URL: stdio). {@code serverCpuUsPerCall} is
 * the CPU time per call of the process the client talks to, over the in-flight phase: the {@code --watch-pids} (an
 * HTTP gateway), else the client's child processes (the upstream directly, or a stdio gateway).
 */
public final class GatewayClient {

    /** The protocol version spoken to every gateway and to the direct upstream. */
    static final String PROTOCOL = "2025-11-25";

    private GatewayClient() {
    }

    /**
     * @param args the command line; see the class comment
     */
    public static void main(String[] args) {
        int split = Arrays.asList(args).indexOf("--");
        Map<String, String> options = Runner.options(split < 0 ? args : Arrays.copyOfRange(args, 0, split));
        List<String> command = split < 0 ? List.of() : List.of(Arrays.copyOfRange(args, split + 1, args.length));
        Map<String, Object> result = new LinkedHashMap<>();
        int exit = 0;
        try {
            if (options.getOrDefault("--mode", "calls").equals("hold")) {
                hold(options, command, result);
            } else {
                calls(options, command, result);
            }
            exit = ((Number) result.getOrDefault("mismatches", 0L)).longValue() == 0
                    && ((Number) result.getOrDefault("failures", 0L)).longValue() == 0 ? 0 : 1;
        } catch (Throwable e) {
            e.printStackTrace();
            result.put("error", String.valueOf(e));
            exit = 1;
        }
        System.out.println(ClientRun.RESULT_PREFIX + ClientRun.toJson(result));
        System.out.flush();
        System.exit(exit);
    }

    /** @return a connected session to the URL, or to the command over stdio when the URL is null */
    static McpClient connect(String name, String url, List<String> command) {
        List<TransportProvider> found = Providers.load(TransportProvider.class, GatewayClient.class.getClassLoader());
        Map<String, TransportProvider> byId = Providers.byId(TransportProvider.class, found, TransportProvider::id);
        ServerConfig config = url != null ? HttpServerConfig.of(url)
                : StdioServerConfig.of(command.get(0), command.subList(1, command.size()));
        TransportProvider provider = Providers.require(TransportProvider.class, byId, url != null ? "http" : "stdio");
        return McpClient.connectBlocking(provider.open(TransportRequest.of(name, config, Path.of("").toAbsolutePath())),
                ClientOptions.builder(name).protocolVersion(PROTOCOL).build());
    }

    private static void calls(Map<String, String> options, List<String> command, Map<String, Object> result) throws Exception {
        String url = options.get("--url");
        int warmup = Integer.parseInt(options.getOrDefault("--warmup", "2000"));
        int calls = Integer.parseInt(options.getOrDefault("--calls", "2000"));
        int inflight = Integer.parseInt(options.getOrDefault("--inflight", "16"));
        double seconds = Double.parseDouble(options.getOrDefault("--seconds", "5"));
        double warmupSeconds = Double.parseDouble(options.getOrDefault("--warmup-seconds", "0"));
        String prefix = options.getOrDefault("--expect-prefix", "");
        long mismatches = 0;
        long failures = 0;
        String firstProblem = null;
        long start = System.nanoTime();
        try (BenchClient client = client(options.getOrDefault("--client", "mcp-host"), url, command)) {
            client.connect();
            result.put("connectMs", (System.nanoTime() - start) / 1e6);
            result.put("protocolVersion", client.protocolVersion());
            result.put("tools", client.listTools());
            // Every gateway (its JIT, the JVM's or V8's) gets the same time of calls before anything is timed, one at a
            // time as the first timed part makes them.
            long warmupEnd = System.nanoTime() + (long) (warmupSeconds * 1e9);
            int timeWarmup = 0;
            while (warmupSeconds > 0 && System.nanoTime() < warmupEnd) {
                String message = "t" + timeWarmup++;
                try {
                    String text = client.echo(message).get(30, TimeUnit.SECONDS);
                    if (!(prefix + message).equals(text)) {
                        mismatches++;
                        firstProblem = firstProblem != null ? firstProblem : "echo " + message + " -> " + text;
                    }
                } catch (Exception e) {
                    failures++;
                    firstProblem = firstProblem != null ? firstProblem : "call failed: " + e;
                }
            }
            result.put("warmupCalls", timeWarmup + warmup);
            long[] seq = new long[calls];
            for (int i = 0; i < warmup + calls; i++) {
                String message = (i < warmup ? "w" : "s") + i;
                long begin = System.nanoTime();
                String text;
                try {
                    text = client.echo(message).get(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    failures++;
                    firstProblem = firstProblem != null ? firstProblem : "call failed: " + e;
                    continue;
                }
                if (i >= warmup) {
                    seq[i - warmup] = System.nanoTime() - begin;
                }
                if (!(prefix + message).equals(text)) {
                    mismatches++;
                    firstProblem = firstProblem != null ? firstProblem : "echo " + message + " -> " + text;
                }
            }
            Arrays.sort(seq);
            result.put("seqCalls", calls);
            result.put("seqP50Us", seq[calls / 2] / 1000.0);
            result.put("seqP99Us", seq[Math.min(calls - 1, (int) Math.ceil(calls * 0.99) - 1)] / 1000.0);

            InFlight tp = new InFlight(client, inflight, (long) (seconds * 1e9), prefix);
            double cpu = ServerProcess.cpuMs(ProcessHandle.current().pid());
            double serverCpu = serverCpuMs(options);
            tp.run();
            long[] all = tp.latencies();
            result.put("inflight", inflight);
            result.put("tpCalls", tp.completed.get());
            result.put("callsPerSec", tp.completed.get() / (tp.elapsedNanos / 1e9));
            result.put("tpP50Us", all.length == 0 ? -1 : all[all.length / 2] / 1000.0);
            result.put("tpP99Us", all.length == 0 ? -1 : all[Math.min(all.length - 1, (int) Math.ceil(all.length * 0.99) - 1)] / 1000.0);
            result.put("clientCpuUsPerCall", (ServerProcess.cpuMs(ProcessHandle.current().pid()) - cpu) * 1000
                    / Math.max(1, tp.completed.get()));
            result.put("serverCpuUsPerCall", (serverCpuMs(options) - serverCpu) * 1000 / Math.max(1, tp.completed.get()));
            mismatches += tp.mismatches.get();
            failures += tp.failures.get();
            if (firstProblem == null) {
                firstProblem = tp.firstProblem.get();
            }
        }
        result.put("mismatches", mismatches);
        result.put("failures", failures);
        if (firstProblem != null) {
            result.put("firstProblem", firstProblem);
        }
    }

    /**
     * @return the CPU time of the process this client talks to: the processes {@code --watch-pids} names (an HTTP
     *     gateway), else this process's children (over stdio: the upstream, or the gateway without its upstream)
     */
    private static double serverCpuMs(Map<String, String> options) {
        String pids = options.get("--watch-pids");
        if (pids != null) {
            return Arrays.stream(pids.split(",")).mapToLong(Long::parseLong).mapToDouble(ServerProcess::cpuMs).sum();
        }
        return ProcessHandle.current().children().mapToDouble(child -> ServerProcess.cpuMs(child.pid())).sum();
    }

    /**
     * @param kind {@code mcp-host} (its {@link McpClient}) or {@code floor} ({@link FloorClient} over stdio,
     *     {@link FloorHttpClient} over HTTP)
     * @return the client, not yet connected
     */
    private static BenchClient client(String kind, String url, List<String> command) {
        return switch (kind) {
            case "mcp-host" -> new HostClient(() -> GatewayClient.connect("gw", url, command));
            case "floor" -> url != null ? new FloorHttpClient(url) : new FloorClient(command);
            default -> throw new IllegalArgumentException("--client is mcp-host or floor, not " + kind);
        };
    }

    /** {@code lanes} calls in flight, each lane issuing its next call from the completion of the last, all timed. */
    private static final class InFlight {
        final BenchClient client;
        final int lanes;
        final long durationNanos;
        final String prefix;
        final AtomicLong completed = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final AtomicReference<String> firstProblem = new AtomicReference<>();
        final AtomicLong lastCompletion = new AtomicLong();
        final long[][] times;
        final int[] counts;
        final CountDownLatch done;
        long deadline;
        long elapsedNanos;

        InFlight(BenchClient client, int lanes, long durationNanos, String prefix) {
            this.client = client;
            this.lanes = lanes;
            this.durationNanos = durationNanos;
            this.prefix = prefix;
            this.times = new long[lanes][1024];
            this.counts = new int[lanes];
            this.done = new CountDownLatch(lanes);
        }

        void run() throws InterruptedException {
            long start = System.nanoTime();
            deadline = start + durationNanos;
            lastCompletion.set(start);
            for (int lane = 0; lane < lanes; lane++) {
                int id = lane;
                new Thread(() -> lane(id, 0), "bench-lane-start").start();
            }
            if (!done.await(durationNanos / 1_000_000 + 60_000, TimeUnit.MILLISECONDS)) {
                failures.incrementAndGet();
                firstProblem.compareAndSet(null, "lanes did not finish");
            }
            elapsedNanos = Math.max(1, lastCompletion.get() - start);
        }

        void lane(int lane, long seq) {
            while (true) {
                if (System.nanoTime() >= deadline) {
                    done.countDown();
                    return;
                }
                String message = "t" + lane + "-" + seq++;
                long sent = System.nanoTime();
                CompletableFuture<String> call = client.echo(message);
                if (!call.isDone()) {
                    long next = seq;
                    call.whenComplete((text, error) -> {
                        record(lane, sent, message, text, error);
                        lane(lane, next);
                    });
                    return;
                }
                String text = null;
                Throwable error = null;
                try {
                    text = call.join();
                } catch (RuntimeException e) {
                    error = e;
                }
                record(lane, sent, message, text, error);
            }
        }

        void record(int lane, long sent, String message, String text, Throwable error) {
            long now = System.nanoTime();
            lastCompletion.accumulateAndGet(now, Math::max);
            if (error != null) {
                failures.incrementAndGet();
                firstProblem.compareAndSet(null, "call failed: " + error);
                return;
            }
            completed.incrementAndGet();
            if (counts[lane] == times[lane].length) {
                times[lane] = Arrays.copyOf(times[lane], times[lane].length * 2);
            }
            times[lane][counts[lane]++] = now - sent;
            if (!(prefix + message).equals(text)) {
                mismatches.incrementAndGet();
                firstProblem.compareAndSet(null, "echo " + message + " -> " + text);
            }
        }

        long[] latencies() {
            long[] all = new long[Arrays.stream(counts).sum()];
            int at = 0;
            for (int lane = 0; lane < lanes; lane++) {
                System.arraycopy(times[lane], 0, all, at, counts[lane]);
                at += counts[lane];
            }
            Arrays.sort(all);
            return all;
        }
    }

    private static void hold(Map<String, String> options, List<String> command, Map<String, Object> result) throws Exception {
        List<String> urls = options.containsKey("--urls") ? List.of(options.get("--urls").split(",")) : List.of();
        int sessions = Integer.parseInt(options.getOrDefault("--sessions", "50"));
        String prefix = options.getOrDefault("--expect-prefix", "");
        List<McpClient> open = new ArrayList<>();
        long failures = 0;
        long mismatches = 0;
        String firstProblem = null;
        double[] connectMs = new double[sessions];
        ExecutorService connecting = Executors.newFixedThreadPool(5, r -> {
            Thread thread = new Thread(r, "bench-hold-connect");
            thread.setDaemon(true);
            return thread;
        });
        List<Future<McpClient>> futures = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            int n = i;
            String url = urls.isEmpty() ? null : urls.get(i % urls.size());
            futures.add(connecting.submit(() -> {
                long start = System.nanoTime();
                McpClient client = connect("s" + n, url, command);
                connectMs[n] = (System.nanoTime() - start) / 1e6;
                return client;
            }));
        }
        for (int i = 0; i < sessions; i++) {
            try {
                McpClient client = futures.get(i).get(120, TimeUnit.SECONDS);
                open.add(client);
                // One gateway process for several upstreams names each one's echo <upstream>_echo: spread the
                // sessions' calls over them.
                List<String> echoes = client.listToolsBlocking().stream().map(tool -> tool.name())
                        .filter(name -> name.equals("echo") || name.endsWith("_echo")).sorted().toList();
                String tool = echoes.isEmpty() ? "echo" : echoes.get(i % echoes.size());
                String text = client.callTool(tool, McpJson.object().put("message", "h" + i))
                        .thenApply(HostClient::text).get(30, TimeUnit.SECONDS);
                if (!(prefix + "h" + i).equals(text)) {
                    mismatches++;
                    firstProblem = firstProblem != null ? firstProblem : "echo h" + i + " -> " + text;
                }
            } catch (Exception e) {
                failures++;
                firstProblem = firstProblem != null ? firstProblem : "session " + i + ": " + e;
            }
        }
        connecting.shutdown();
        System.out.println("HOLDING " + open.size() + " " + failures);
        System.out.flush();
        // Until the runner has measured: a line or the end of stdin.
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        long closing = System.nanoTime();
        open.parallelStream().forEach(McpClient::close);
        double[] sorted = connectMs.clone();
        Arrays.sort(sorted);
        result.put("sessions", open.size());
        result.put("connectP50Ms", sorted[sessions / 2]);
        result.put("connectMaxMs", sorted[sessions - 1]);
        result.put("closeMs", (System.nanoTime() - closing) / 1e6);
        result.put("mismatches", mismatches);
        result.put("failures", failures);
        if (firstProblem != null) {
            result.put("firstProblem", firstProblem);
        }
    }
}

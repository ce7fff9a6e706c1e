package mcp.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The workload of one client process, the same for every Java client: connect, list the tools
 * (once cold, then a few times warm), call {@code echo} sequentially after a warm-up, then keep a
 * fixed number of calls in flight for a few seconds, and check every answer. Prints one line
 * {@code BENCH-RESULT {json}} on stdout; the Node client prints the same line.
 *
 * <p>Command line: {@code [--t0 NANOS] [--warmup N] [--calls N] [--inflight N] [--seconds S]
 * [--expect-prefix TEXT] [--expect-tools N] [--expect-protocol VERSION] -- SERVER COMMAND...}; a client that
 * speaks another protocol version than {@code --expect-protocol} (or does not tell) counts a mismatch. {@code --t0} is the runner's
 * {@link System#nanoTime()} just before it started this process (a system-wide monotonic clock on
 * Linux), so that launch-to-initialized includes the client's own start.
 */
public final class ClientRun {

    /** The prefix of the result line on stdout. */
    public static final String RESULT_PREFIX = "BENCH-RESULT ";

    private static final int WARM_LISTS = 5;

    private final Map<String, String> options;
    private final List<String> serverCommand;

    private ClientRun(Map<String, String> options, List<String> serverCommand) {
        this.options = options;
        this.serverCommand = serverCommand;
    }

    /**
     * Runs the workload with a client made from the server command, prints the result line and
     * exits (0 when every call was answered correctly, 1 otherwise).
     *
     * @param args the command line (see the class comment)
     * @param clientName the client's name in the report
     * @param factory makes the client for a server command
     */
    public static void main(String[] args, String clientName, Function<List<String>, BenchClient> factory) {
        int split = Arrays.asList(args).indexOf("--");
        if (split < 0 || split == args.length - 1) {
            System.err.println("usage: ... [options] -- SERVER COMMAND...");
            System.exit(2);
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < split; i += 2) {
            options.put(args[i], args[i + 1]);
        }
        List<String> command = List.of(Arrays.copyOfRange(args, split + 1, args.length));
        Map<String, Object> result;
        int exit;
        try {
            result = new ClientRun(options, command).run(clientName, factory);
            exit = ((Number) result.get("mismatches")).longValue() == 0 && ((Number) result.get("failures")).longValue() == 0
                    ? 0 : 1;
        } catch (Throwable e) {
            e.printStackTrace();
            result = new LinkedHashMap<>();
            result.put("client", clientName);
            result.put("error", String.valueOf(e));
            exit = 1;
        }
        System.out.println(RESULT_PREFIX + toJson(result));
        System.out.flush();
        // Daemon or not, a client's threads must not keep the process alive: the result is out. (exit, not
        // halt: a class-data archive is written at exit when one is being recorded.)
        System.exit(exit);
    }

    private long option(String name, long fallback) {
        String value = options.get(name);
        return value == null ? fallback : Long.parseLong(value);
    }

    private Map<String, Object> run(String clientName, Function<List<String>, BenchClient> factory) throws Exception {
        long t0 = option("--t0", -1);
        int warmup = (int) option("--warmup", 2000);
        int calls = (int) option("--calls", 5000);
        int inflight = (int) option("--inflight", 16);
        double seconds = Double.parseDouble(options.getOrDefault("--seconds", "3"));
        String prefix = options.getOrDefault("--expect-prefix", "");
        int expectTools = (int) option("--expect-tools", -1);
        String expectProtocol = options.get("--expect-protocol");

        Map<String, Object> result = new LinkedHashMap<>();
        result.put("client", clientName);
        long mismatches = 0;
        long failures = 0;
        String firstProblem = null;
        long spawnStart = System.nanoTime();
        try (BenchClient client = factory.apply(serverCommand)) {
            client.connect();
            long initialized = System.nanoTime();
            String version = client.protocolVersion();
            if (version != null) {
                result.put("protocolVersion", version);
            }
            if (expectProtocol != null && !expectProtocol.equals(version)) {
                mismatches++;
                firstProblem = "speaks protocol " + version + ", expected " + expectProtocol;
            }
            result.put("spawnToInitMs", ms(initialized - spawnStart));
            if (t0 > 0) {
                result.put("launchToInitMs", ms(initialized - t0));
            }

            long listStart = System.nanoTime();
            int tools = client.listTools();
            result.put("listColdMs", ms(System.nanoTime() - listStart));
            result.put("tools", tools);
            if (expectTools >= 0 && tools != expectTools) {
                mismatches++;
                firstProblem = "listed " + tools + " tools, expected " + expectTools;
            }
            double[] lists = new double[WARM_LISTS];
            for (int i = 0; i < WARM_LISTS; i++) {
                long start = System.nanoTime();
                int again = client.listTools();
                lists[i] = ms(System.nanoTime() - start);
                if (again != tools) {
                    mismatches++;
                }
            }
            result.put("listWarmMs", median(lists));

            // Sequential calls: warm-up, then measured one by one.
            for (int i = 0; i < warmup; i++) {
                String message = "w" + i;
                String text = client.echoBlocking(message);
                if (!(prefix + message).equals(text)) {
                    mismatches++;
                    firstProblem = firstProblem != null ? firstProblem : "echo " + message + " -> " + text;
                }
            }
            long[] latencies = new long[calls];
            long seqCpuStart = cpuNanos();
            for (int i = 0; i < calls; i++) {
                String message = "s" + i;
                long start = System.nanoTime();
                String text;
                try {
                    text = client.echoBlocking(message);
                } catch (Exception e) {
                    failures++;
                    firstProblem = firstProblem != null ? firstProblem : "call failed: " + e;
                    continue;
                }
                latencies[i] = System.nanoTime() - start;
                if (!(prefix + message).equals(text)) {
                    mismatches++;
                    firstProblem = firstProblem != null ? firstProblem : "echo " + message + " -> " + text;
                }
            }
            long seqCpu = cpuNanos() - seqCpuStart;
            Arrays.sort(latencies);
            result.put("seqCalls", calls);
            if (seqCpuStart >= 0) {
                result.put("seqCpuUsPerCall", seqCpu / 1000.0 / calls);
            }
            result.put("p50Us", latencies[calls / 2] / 1000.0);
            result.put("p99Us", latencies[Math.min(calls - 1, (int) Math.ceil(calls * 0.99) - 1)] / 1000.0);

            Throughput tp = new Throughput(client, inflight, (long) (seconds * 1e9), prefix);
            long tpCpuStart = cpuNanos();
            tp.run();
            long tpCpu = cpuNanos() - tpCpuStart;
            if (tpCpuStart >= 0 && tp.completed.get() > 0) {
                result.put("tpCpuUsPerCall", tpCpu / 1000.0 / tp.completed.get());
            }
            result.put("inflight", inflight);
            result.put("tpCalls", tp.completed.get());
            result.put("callsPerSec", tp.completed.get() / (tp.elapsedNanos / 1e9));
            mismatches += tp.mismatches.get();
            failures += tp.failures.get();
            if (firstProblem == null) {
                firstProblem = tp.firstProblem.get();
            }

            System.gc();
            Runtime rt = Runtime.getRuntime();
            result.put("heapMb", (rt.totalMemory() - rt.freeMemory()) / 1048576.0);
            Map<String, Long> status = procStatus();
            if (status.containsKey("VmHWM")) {
                result.put("rssPeakMb", status.get("VmHWM") / 1024.0);
                result.put("rssMb", status.get("VmRSS") / 1024.0);
            }
        }
        result.put("mismatches", mismatches);
        result.put("failures", failures);
        if (firstProblem != null) {
            result.put("firstProblem", firstProblem);
        }
        return result;
    }

    /** {@code inflight} lanes, each issuing its next call from the completion of the previous one. */
    private static final class Throughput {
        final BenchClient client;
        final int lanes;
        final long durationNanos;
        final String prefix;
        final AtomicLong completed = new AtomicLong();
        final AtomicLong mismatches = new AtomicLong();
        final AtomicLong failures = new AtomicLong();
        final AtomicReference<String> firstProblem = new AtomicReference<>();
        final CountDownLatch done;
        final AtomicLong lastCompletion = new AtomicLong();
        long deadline;
        long elapsedNanos;

        Throughput(BenchClient client, int lanes, long durationNanos, String prefix) {
            this.client = client;
            this.lanes = lanes;
            this.durationNanos = durationNanos;
            this.prefix = prefix;
            this.done = new CountDownLatch(lanes);
        }

        void run() throws InterruptedException {
            long start = System.nanoTime();
            deadline = start + durationNanos;
            for (int lane = 0; lane < lanes; lane++) {
                int id = lane;
                new Thread(() -> lane(id, 0), "bench-lane-start").start();
            }
            if (!done.await(durationNanos / 1_000_000 + 60_000, TimeUnit.MILLISECONDS)) {
                failures.incrementAndGet();
                firstProblem.compareAndSet(null, "throughput lanes did not finish");
            }
            elapsedNanos = Math.max(1, lastCompletion.get() - start);
        }

        /** Issues calls until the deadline; a call that completes at once is followed in this loop, not recursively. */
        void lane(int lane, long seq) {
            while (true) {
                if (System.nanoTime() >= deadline) {
                    done.countDown();
                    return;
                }
                String message = "t" + lane + "-" + seq++;
                CompletableFuture<String> call = client.echo(message);
                if (!call.isDone()) {
                    long next = seq;
                    call.whenComplete((text, error) -> {
                        record(message, text, error);
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
                record(message, text, error);
            }
        }

        void record(String message, String text, Throwable error) {
            lastCompletion.accumulateAndGet(System.nanoTime(), Math::max);
            if (error != null) {
                failures.incrementAndGet();
                firstProblem.compareAndSet(null, "call failed: " + error);
            } else {
                completed.incrementAndGet();
                if (!(prefix + message).equals(text)) {
                    mismatches.incrementAndGet();
                    firstProblem.compareAndSet(null, "echo " + message + " -> " + text);
                }
            }
        }
    }

    /** @return the CPU time this process used so far (all threads, user and system), or -1 */
    private static long cpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos()).orElse(-1L);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** @return the kB figures of {@code /proc/self/status} (VmRSS, VmHWM, ...), empty off Linux */
    public static Map<String, Long> procStatus() {
        Map<String, Long> values = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.ISO_8859_1)) {
                String[] parts = line.split("\\s+");
                if (parts.length >= 3 && parts[2].equals("kB")) {
                    values.put(parts[0].replace(":", ""), Long.parseLong(parts[1]));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no RSS figures
        }
        return values;
    }

    /**
     * A flat JSON object of strings, numbers and booleans.
     *
     * @param values the members
     * @return the JSON text
     */
    public static String toJson(Map<String, ?> values) {
        List<String> members = new ArrayList<>();
        values.forEach((key, value) -> members.add(quote(key) + ":" + jsonValue(value)));
        return "{" + String.join(",", members) + "}";
    }

    private static String jsonValue(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Double d) {
            return Double.isFinite(d) ? String.format(Locale.ROOT, "%.3f", d) : "null";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        return quote(value.toString());
    }

    private static String quote(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}

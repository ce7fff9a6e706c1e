package mcp.bench.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Which embedded HTTP server {@code mcp-host serve} should use: the JDK's {@code com.sun.net.httpserver} or Jetty
 * 12.1 core, measured on the same minimal Streamable HTTP endpoint (modules {@code mcp.bench.http.jdk} and
 * {@code mcp.bench.http.jetty}, each a server process of its own with its library alone on the module path).
 *
 * <p>Per round (servers alternated A B, B A, ...), a fresh server process: launch → {@code READY} and → first
 * answer; RSS idle; then with a {@link HttpClient} (HTTP/1.1, keep-alive) and {@code --inflight} requests in
 * flight, after a warm-up: POST answered {@code application/json}, POST answered as an SSE stream of one event
 * (each for {@code --seconds}: p50, p99, requests/s, server CPU per request, max RSS and threads); then pushes
 * onto a long-lived GET SSE stream, one at a time (time from the push request's start to the event's arrival).
 *
 * <p>Once per server, with an idle timeout of {@code --idle-timeout-ms} on both: a 2 MiB body (with and without
 * Content-Length); a client that opens a GET stream and never reads it while {@code --flood-mb} of events are
 * pushed onto it (the writer's progress, RSS, whether and when the write fails, the other clients' latency before
 * and during, whether an idle stream beside it outlives the idle timeout); {@code threads + 8} uploads that stall
 * after 10 bytes of their body (is a normal request still answered, when does the server close them) and an idle
 * keep-alive connection (when is it closed); for the JDK server, the never-read stream again with an app-level write
 * watchdog ({@code --write-timeout-ms}); and sequential requests with each library's own TCP_NODELAY default. Then, unless {@code --jlink false}: the size of a jlink image of each
 * server module alone, and of mcp-host's own image with each library added.
 *
 * <p>Command line: {@code --repo DIR --jdk-path MP --jetty-path MP [--out DIR] [--rounds N] [--seconds S]
 * [--warmup S] [--inflight N] [--pushes N] [--flood-mb N] [--idle-timeout-ms MS] [--threads N] [--jlink false]
 * [--image-modules DIR] [--checks false] [--smoke]}. {@code MP}: the module path of each server process (its module's classes
 * and, for Jetty, Jetty's jars and slf4j-api); {@code --image-modules}: the module path of mcp-host's image
 * ({@code mcp.cli/target/image-modules} and the mcp.cli jar). Writes {@code httpchoice.json} and
 * {@code httpchoice.md} into the output directory and prints the latter.
 */
public final class HttpChoice {

    /** The JVM flags of both server processes. */
    static final List<String> SERVER_JVM_FLAGS = List.of("-XX:+UseSerialGC", "-Xmx256m", "-Xlog:disable",
            "-Xlog:all=warning:stderr");

    private static final List<String> SERVERS = List.of("jdk", "jetty");

    private final Map<String, String> options;
    private final boolean smoke;
    private final Path repo;
    private final Path out;
    private final ObjectNode results = Proc.JSON.createObjectNode();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicLong ids = new AtomicLong();

    private HttpChoice(String[] args) {
        options = Runner.options(args);
        smoke = options.containsKey("--smoke");
        repo = Path.of(options.getOrDefault("--repo", ".")).toAbsolutePath().normalize();
        out = Path.of(options.getOrDefault("--out", repo.resolve("mcp.bench/target/httpchoice").toString())).toAbsolutePath();
    }

    /**
     * Runs the comparison; see the class comment.
     *
     * @param args the command line
     * @throws Exception if it cannot run at all
     */
    public static void main(String[] args) throws Exception {
        ObjectNode results = run(args);
        System.out.println(Files.readString(Path.of(results.path("report").asString())));
        System.exit(results.path("problems").isEmpty() ? 0 : 1);
    }

    /**
     * @param args the command line
     * @return the results (also in {@code httpchoice.json})
     * @throws Exception if it cannot run at all
     */
    public static ObjectNode run(String[] args) throws Exception {
        HttpChoice choice = new HttpChoice(args);
        choice.runAll();
        return choice.results;
    }

    private String option(String name, String full, String smokeValue) {
        return options.getOrDefault(name, smoke ? smokeValue : full);
    }

    private int intOption(String name, int full, int smokeValue) {
        return Integer.parseInt(option(name, String.valueOf(full), String.valueOf(smokeValue)));
    }

    private double seconds(String name, double full, double smokeValue) {
        return Double.parseDouble(option(name, String.valueOf(full), String.valueOf(smokeValue)));
    }

    private void problem(String text) {
        System.err.println("httpchoice: PROBLEM: " + text);
        results.withArray("/problems").add(text);
    }

    private static void log(String text) {
        System.err.println("httpchoice: " + text);
    }

    private void runAll() throws Exception {
        Files.createDirectories(out);
        results.put("date", LocalDate.now().toString());
        results.put("nproc", Runtime.getRuntime().availableProcessors());
        results.put("java", System.getProperty("java.vm.version"));
        results.putArray("problems");
        results.put("loadBefore", Runner.loadAverage());
        int rounds = intOption("--rounds", 5, 1);
        ObjectNode settings = results.putObject("settings");
        settings.put("rounds", rounds);
        settings.put("inflight", intOption("--inflight", 16, 16));
        settings.put("seconds", seconds("--seconds", 5, 0.3));
        settings.put("warmupSeconds", seconds("--warmup", 2, 0.2));
        settings.put("pushes", intOption("--pushes", 1000, 20));
        settings.put("floodMb", intOption("--flood-mb", 50, 2));
        settings.put("idleTimeoutMs", intOption("--idle-timeout-ms", 10_000, 500));
        settings.put("threads", intOption("--threads", 32, 32));
        settings.put("serverJvm", String.join(" ", SERVER_JVM_FLAGS));
        ObjectNode runs = results.putObject("rounds");
        SERVERS.forEach(runs::putArray);
        for (int round = 1; round <= rounds; round++) {
            List<String> order = round % 2 == 1 ? SERVERS : List.of(SERVERS.get(1), SERVERS.get(0));
            for (String server : order) {
                ObjectNode r = measureRound(server, round, settings);
                if (r != null) {
                    runs.withArray(server).add(r);
                }
            }
        }
        ObjectNode checks = results.putObject("checks");
        for (String server : "false".equals(options.get("--checks")) ? List.<String>of() : SERVERS) {
            ObjectNode c = checks.putObject(server);
            try {
                checks(server, c, settings);
            } catch (Exception e) {
                problem(server + " checks: " + e);
            }
        }
        if (!smoke && !"false".equals(options.get("--jlink"))) {
            images(results.putObject("images"));
        }
        results.put("loadAfter", Runner.loadAverage());
        Path report = out.resolve("httpchoice.md");
        Files.writeString(report, markdown(results));
        results.put("report", report.toString());
        Files.writeString(out.resolve("httpchoice.json"), Proc.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(results));
    }

    // ------------------------------------------------------------------ servers

    private List<String> serverCommand(String server, int idleTimeoutMs, int threads, String... extra) {
        List<String> command = new ArrayList<>(List.of(Proc.java()));
        command.addAll(SERVER_JVM_FLAGS);
        String path = options.get(server.equals("jdk") ? "--jdk-path" : "--jetty-path");
        if (path == null) {
            throw new IllegalArgumentException("--" + server + "-path is required");
        }
        command.addAll(List.of("-p", path, "-m", server.equals("jdk") ? "mcp.bench.http.jdk/mcp.bench.http.jdk.JdkServer"
                : "mcp.bench.http.jetty/mcp.bench.http.jetty.JettyServer"));
        command.addAll(List.of("--idle-timeout-ms", String.valueOf(idleTimeoutMs), "--threads", String.valueOf(threads)));
        command.addAll(List.of(extra));
        return command;
    }

    /** A started server: the process and its port. */
    private record Started(ServerProcess process, int port, double readyMs) {
        URI uri(String pathAndQuery) {
            return URI.create("http://127.0.0.1:" + port + pathAndQuery);
        }
    }

    private Started start(String server, String log, JsonNode settings, String... extra) throws IOException, InterruptedException {
        ServerProcess process = ServerProcess.start(serverCommand(server, settings.path("idleTimeoutMs").asInt(),
                settings.path("threads").asInt(), extra), repo, Map.of(), out.resolve("logs/" + log + ".err"));
        String ready = process.awaitLine("READY ", 30_000);
        if (ready == null) {
            process.close();
            throw new IOException(server + " did not say READY within 30 s (see logs/" + log + ".err)");
        }
        return new Started(process, Integer.parseInt(ready.substring(6).trim()), process.sinceStartMs());
    }

    private ObjectNode measureRound(String server, int round, JsonNode settings) {
        ObjectNode r = Proc.JSON.createObjectNode();
        try {
            Started s = start(server, server + "-" + round, settings);
            try (ServerProcess process = s.process()) {
                r.put("readyMs", s.readyMs());
                HttpResponse<String> first = client.send(post(s.uri("/mcp"), "tools/call", ""), HttpResponse.BodyHandlers.ofString());
                r.put("firstAnswerMs", process.sinceStartMs());
                if (first.statusCode() != 200 || !first.body().contains("\"ok\"")) {
                    problem(server + " round " + round + ": first answer " + first.statusCode() + " " + first.body());
                }
                Thread.sleep(smoke ? 200 : 1000);
                r.put("idleRssMb", ServerProcess.rssMb(process.pid()));
                r.put("idleThreads", process.status().getOrDefault("Threads", -1L));
                int inflight = settings.path("inflight").asInt();
                long warm = (long) (settings.path("warmupSeconds").asDouble() * 1e9);
                long measure = (long) (settings.path("seconds").asDouble() * 1e9);
                load(s.uri("/mcp"), false, inflight, warm);
                load(s.uri("/mcp?reply=sse"), true, inflight, warm);
                try (ServerProcess.Sampler sampler = new ServerProcess.Sampler(process.pid())) {
                    for (boolean sse : new boolean[] {false, true}) {
                        double cpu = process.cpuMs();
                        double clientCpu = ServerProcess.cpuMs(ProcessHandle.current().pid());
                        LoadResult result = load(s.uri(sse ? "/mcp?reply=sse" : "/mcp"), sse, inflight, measure);
                        long requests = Math.max(1, result.completed());
                        ObjectNode phase = r.putObject(sse ? "sse" : "json");
                        result.put(phase);
                        phase.put("serverCpuUsPerRequest", (process.cpuMs() - cpu) * 1000 / requests);
                        phase.put("clientCpuUsPerRequest", (ServerProcess.cpuMs(ProcessHandle.current().pid()) - clientCpu) * 1000 / requests);
                        check(server + " round " + round + (sse ? " SSE" : " JSON"), result);
                    }
                    r.put("loadRssMb", sampler.maxRssMb());
                    r.put("loadThreads", sampler.maxThreads());
                }
                pushes(s, settings.path("pushes").asInt(), r.putObject("push"), server + " round " + round);
                log(String.format(Locale.ROOT, "%s round %d: ready %.0f ms, first answer %.0f ms, RSS idle %.1f MB, load %.1f MB;"
                        + " JSON p50 %.0f us p99 %.0f us %.0f /s; SSE p50 %.0f us p99 %.0f us %.0f /s; push p50 %.0f us",
                        server, round, r.path("readyMs").asDouble(), r.path("firstAnswerMs").asDouble(),
                        r.path("idleRssMb").asDouble(), r.path("loadRssMb").asDouble(), r.path("json").path("p50Us").asDouble(),
                        r.path("json").path("p99Us").asDouble(), r.path("json").path("perSecond").asDouble(),
                        r.path("sse").path("p50Us").asDouble(), r.path("sse").path("p99Us").asDouble(),
                        r.path("sse").path("perSecond").asDouble(), r.path("push").path("p50Us").asDouble()));
            }
            return r;
        } catch (Exception e) {
            problem(server + " round " + round + ": " + e);
            return null;
        }
    }

    private void check(String what, LoadResult result) {
        if (result.failures() != 0 || result.mismatches() != 0 || result.completed() == 0) {
            problem(what + ": " + result.completed() + " answered, " + result.failures() + " failed, " + result.mismatches()
                    + " wrong (" + result.firstProblem() + ")");
        }
    }

    // ------------------------------------------------------------------ the client

    private HttpRequest post(URI uri, String method, String params) {
        return post(uri, ids.incrementAndGet(), method, params);
    }

    private static HttpRequest post(URI uri, long id, String method, String params) {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":{"
                + (params.isEmpty() ? "\"name\":\"echo\",\"arguments\":{\"message\":\"m" + id + "\"}" : params) + "}}";
        return HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** What a load phase did: every latency, in ns, sorted. */
    record LoadResult(long[] latencies, long completed, long failures, long mismatches, double seconds, String firstProblem) {
        double p50Us() {
            return latencies.length == 0 ? Double.NaN : latencies[latencies.length / 2] / 1000.0;
        }

        double p99Us() {
            return latencies.length == 0 ? Double.NaN
                    : latencies[Math.min(latencies.length - 1, (int) Math.ceil(latencies.length * 0.99) - 1)] / 1000.0;
        }

        void put(ObjectNode node) {
            node.put("requests", completed);
            node.put("failures", failures);
            node.put("mismatches", mismatches);
            node.put("p50Us", p50Us());
            node.put("p99Us", p99Us());
            node.put("perSecond", completed / seconds);
        }
    }

    /**
     * {@code lanes} requests in flight for a while: each completion checks its answer and sends the lane's next
     * request.
     */
    private LoadResult load(URI uri, boolean sse, int lanes, long nanos) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + nanos;
        AtomicLong completed = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong mismatches = new AtomicLong();
        AtomicLong last = new AtomicLong(start);
        AtomicReference<String> firstProblem = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(lanes);
        List<long[]> latencies = new ArrayList<>();
        int[] counts = new int[lanes];
        for (int lane = 0; lane < lanes; lane++) {
            latencies.add(new long[1024]);
        }
        for (int lane = 0; lane < lanes; lane++) {
            int l = lane;
            Runnable[] next = new Runnable[1];
            next[0] = () -> {
                if (System.nanoTime() >= deadline) {
                    done.countDown();
                    return;
                }
                long id = ids.incrementAndGet();
                long sent = System.nanoTime();
                client.sendAsync(post(uri, id, "tools/call", ""), HttpResponse.BodyHandlers.ofString()).whenComplete((response, error) -> {
                    long now = System.nanoTime();
                    last.accumulateAndGet(now, Math::max);
                    if (error != null) {
                        failures.incrementAndGet();
                        firstProblem.compareAndSet(null, String.valueOf(error));
                    } else {
                        String body = response.body();
                        boolean right = response.statusCode() == 200 && body.contains("\"id\":" + id + ",")
                                && body.contains("\"ok\"") && (!sse || body.startsWith("event: message\ndata: "));
                        if (!right) {
                            mismatches.incrementAndGet();
                            firstProblem.compareAndSet(null, response.statusCode() + " " + body);
                        }
                        completed.incrementAndGet();
                        long[] mine = latencies.get(l);
                        if (counts[l] == mine.length) {
                            mine = Arrays.copyOf(mine, mine.length * 2);
                            latencies.set(l, mine);
                        }
                        mine[counts[l]++] = now - sent;
                    }
                    next[0].run();
                });
            };
            next[0].run();
        }
        if (!done.await(nanos / 1_000_000 + 60_000, TimeUnit.MILLISECONDS)) {
            failures.incrementAndGet();
            firstProblem.compareAndSet(null, "lanes did not finish");
        }
        int total = 0;
        for (int count : counts) {
            total += count;
        }
        long[] all = new long[total];
        int at = 0;
        for (int lane = 0; lane < lanes; lane++) {
            System.arraycopy(latencies.get(lane), 0, all, at, counts[lane]);
            at += counts[lane];
        }
        Arrays.sort(all);
        return new LoadResult(all, completed.get(), failures.get(), mismatches.get(), Math.max(1, last.get() - start) / 1e9,
                firstProblem.get());
    }

    /** A GET stream read by a thread of its own, which notes when each pushed event arrives. */
    private final class EventStream implements AutoCloseable {
        final Map<Long, CompletableFuture<Long>> arrivals = new ConcurrentHashMap<>();
        final AtomicLong events = new AtomicLong();
        final InputStream body;

        EventStream(URI uri) throws IOException, InterruptedException {
            HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(uri).header("Accept", "text/event-stream")
                    .GET().build(), HttpResponse.BodyHandlers.ofInputStream());
            if (response.statusCode() != 200) {
                throw new IOException("GET stream answered " + response.statusCode());
            }
            body = response.body();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        int at = line.indexOf("\"seq\":");
                        if (line.startsWith("data: ") && at > 0) {
                            long now = System.nanoTime();
                            events.incrementAndGet();
                            long seq = Long.parseLong(line.substring(at + 6, line.indexOf('}', at)));
                            arrivals.computeIfAbsent(seq, k -> new CompletableFuture<>()).complete(now);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // closed
                }
            }, "bench-event-stream");
            reader.setDaemon(true);
            reader.start();
        }

        /** @return the arrival of event {@code seq}, or -1 when it did not come within the wait */
        long await(long seq, long waitMs) {
            try {
                return arrivals.computeIfAbsent(seq, k -> new CompletableFuture<>()).get(waitMs, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                return -1;
            }
        }

        @Override
        public void close() throws IOException {
            body.close();
        }
    }

    private void pushes(Started s, int count, ObjectNode node, String what) throws Exception {
        long[] latencies = new long[count];
        int lost = 0;
        try (EventStream stream = new EventStream(s.uri("/mcp?stream=push"))) {
            Thread.sleep(100); // registered
            for (int i = 0; i < count; i++) {
                long sent = System.nanoTime();
                HttpResponse<String> reply = client.send(post(s.uri("/mcp"), "bench/push",
                        "\"stream\":\"push\",\"seq\":" + i), HttpResponse.BodyHandlers.ofString());
                long arrived = stream.await(i, 5000);
                if (arrived < 0 || !reply.body().contains("\"pushed\"")) {
                    lost++;
                    latencies[i] = Long.MAX_VALUE;
                } else {
                    latencies[i] = arrived - sent;
                }
            }
        }
        Arrays.sort(latencies);
        node.put("pushes", count);
        node.put("lost", lost);
        node.put("p50Us", latencies[count / 2] / 1000.0);
        node.put("p99Us", latencies[Math.min(count - 1, (int) Math.ceil(count * 0.99) - 1)] / 1000.0);
        if (lost > 0) {
            problem(what + ": " + lost + " of " + count + " pushes did not arrive");
        }
    }

    // ------------------------------------------------------------------ checks

    private void checks(String server, ObjectNode c, JsonNode settings) throws Exception {
        int idleMs = settings.path("idleTimeoutMs").asInt();
        Started s = start(server, server + "-checks", settings);
        try (ServerProcess process = s.process()) {
            bodies(s, c.putObject("bodies"), server);
            slowReader(s, c.putObject("slowReader"), settings, server);
            stalledUploads(s, c.putObject("stalled"), settings, server);
            c.put("idleTimeoutMs", idleMs);
        }
        if (smoke) {
            return; // the two variants below find things out; they exercise no code the checks above do not
        }
        if (server.equals("jdk")) {
            // The JDK server has no write timeout: the app's own watchdog closes the exchange of a write blocked for
            // the idle timeout. Does that free the writer?
            Started w = start(server, server + "-watchdog", settings, "--write-timeout-ms", String.valueOf(idleMs));
            try (ServerProcess process = w.process()) {
                slowReader(w, c.putObject("slowReaderWatchdog"), settings, server + " with a write watchdog");
            }
        }
        // The library's own TCP_NODELAY default (the JDK's is off, which the measured server turns on; Jetty's is on):
        // sequential requests on one keep-alive connection.
        Started d = start(server, server + "-defaults", settings, server.equals("jdk") ? new String[] {"--nodelay", "false"}
                : new String[0]);
        try (ServerProcess process = d.process()) {
            int count = smoke ? 10 : 50;
            long[] latencies = new long[count];
            for (int i = 0; i < count + 5; i++) {
                long start = System.nanoTime();
                HttpResponse<String> response = client.send(post(d.uri("/mcp"), "tools/call", ""), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    problem(server + " with its defaults: " + response.statusCode());
                }
                if (i >= 5) {
                    latencies[i - 5] = System.nanoTime() - start;
                }
            }
            Arrays.sort(latencies);
            c.put("sequentialDefaultsP50Us", latencies[count / 2] / 1000.0);
            c.put("sequentialDefaultsRequests", count);
        }
    }

    /** A 2 MiB body with Content-Length, and one without (chunked). */
    private void bodies(Started s, ObjectNode node, String server) throws Exception {
        byte[] big = new byte[2 << 20];
        Arrays.fill(big, (byte) 'a');
        for (boolean chunked : new boolean[] {false, true}) {
            ObjectNode r = node.putObject(chunked ? "chunked" : "contentLength");
            long start = System.nanoTime();
            HttpRequest.BodyPublisher body = chunked
                    ? HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big))
                    : HttpRequest.BodyPublishers.ofByteArray(big);
            try {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(s.uri("/mcp")).timeout(Duration.ofSeconds(20))
                        .header("Content-Type", "application/json").POST(body).build(), HttpResponse.BodyHandlers.ofString());
                r.put("status", response.statusCode());
            } catch (IOException e) {
                r.put("status", -1);
                r.put("error", String.valueOf(e));
            }
            r.put("ms", (System.nanoTime() - start) / 1e6);
            // The connection, or a new one, still serves.
            HttpResponse<String> after = client.send(post(s.uri("/mcp"), "tools/call", ""), HttpResponse.BodyHandlers.ofString());
            r.put("nextAnswered", after.statusCode() == 200);
            if (r.path("status").asInt() != 413) {
                problem(server + ": a 2 MiB body " + (chunked ? "without" : "with") + " Content-Length got " + r.path("status").asInt()
                        + ", not 413");
            }
        }
    }

    private JsonNode stats(Started s) throws IOException, InterruptedException {
        return Proc.JSON.readTree(client.send(HttpRequest.newBuilder(s.uri("/stats")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    /**
     * A GET stream whose client never reads, flooded; an idle stream beside it; the others' latency before and
     * during.
     */
    private void slowReader(Started s, ObjectNode node, JsonNode settings, String server) throws Exception {
        int idleMs = settings.path("idleTimeoutMs").asInt();
        long floodBytes = settings.path("floodMb").asLong() << 20;
        int inflight = settings.path("inflight").asInt();
        long phase = (long) (Math.min(5, settings.path("seconds").asDouble()) * 1e9);
        long windowMs = smoke ? idleMs + 1000 : idleMs + 10_000L;
        try (EventStream idle = new EventStream(s.uri("/mcp?stream=idle"));
                Socket stuck = new Socket("127.0.0.1", s.port())) {
            long idleOpened = System.nanoTime();
            OutputStream request = stuck.getOutputStream();
            request.write(("GET /mcp?stream=stuck HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            request.flush();
            waitForStreams(s, 2);
            LoadResult before = load(s.uri("/mcp"), false, inflight, phase);
            before.put(node.putObject("before"));
            double rssBefore = ServerProcess.rssMb(s.process().pid());
            node.put("rssBeforeMb", rssBefore);
            try (ServerProcess.Sampler sampler = new ServerProcess.Sampler(s.process().pid())) {
                long floodStart = System.nanoTime();
                HttpResponse<String> started = client.send(post(s.uri("/mcp"), "bench/flood", "\"stream\":\"stuck\",\"bytes\":"
                        + floodBytes + ",\"event\":4096"), HttpResponse.BodyHandlers.ofString());
                if (!started.body().contains("\"flooding\"")) {
                    problem(server + ": the flood did not start: " + started.body());
                    return;
                }
                LoadResult during = load(s.uri("/mcp"), false, inflight, phase);
                during.put(node.putObject("during"));
                // Watch the writer until it ends or the window is over.
                long stalledAt = -1;
                double stalledAfterMs = -1;
                JsonNode flood = null;
                while ((System.nanoTime() - floodStart) / 1_000_000 < windowMs) {
                    flood = stats(s).path("floods").path("stuck");
                    if (stalledAt < 0 && flood.path("msSinceProgress").asLong() >= 1000) {
                        stalledAt = flood.path("written").asLong();
                        stalledAfterMs = (System.nanoTime() - floodStart) / 1e6 - flood.path("msSinceProgress").asLong();
                    }
                    if (!flood.path("state").asString().equals("writing")) {
                        break;
                    }
                    Thread.sleep(250);
                }
                node.put("floodBytes", floodBytes);
                node.put("writtenWhenStalled", stalledAt);
                node.put("stalledAfterMs", stalledAfterMs);
                node.put("stateAtWindowEnd", flood == null ? "" : flood.path("state").asString());
                node.put("writtenAtWindowEnd", flood == null ? -1 : flood.path("written").asLong());
                node.put("endedAfterMs", flood == null ? -1 : flood.path("endedAfterMs").asLong());
                node.put("error", flood == null ? "" : flood.path("error").asString());
                node.put("windowMs", windowMs);
                node.put("rssMaxMb", sampler.maxRssMb());
                node.put("threadsMax", sampler.maxThreads());
            }
            // The idle stream, beside it, after at least the idle timeout and a half without an event.
            long idleFor = (long) (idleMs * 1.5) + 1000 - (System.nanoTime() - idleOpened) / 1_000_000;
            if (idleFor > 0) {
                Thread.sleep(idleFor);
            }
            long quietMs = (System.nanoTime() - idleOpened) / 1_000_000;
            HttpResponse<String> pushed = client.send(post(s.uri("/mcp"), "bench/push", "\"stream\":\"idle\",\"seq\":1"),
                    HttpResponse.BodyHandlers.ofString());
            boolean alive = pushed.body().contains("\"pushed\"") && idle.await(1, 3000) > 0;
            node.put("idleStreamQuietMs", quietMs);
            node.put("idleStreamAlive", alive);
            // The stuck client goes away: does the writer learn it?
            stuck.close();
            long closed = System.nanoTime();
            JsonNode after = null;
            while (System.nanoTime() - closed < 5_000_000_000L) {
                after = stats(s).path("floods").path("stuck");
                if (!after.path("state").asString().equals("writing")) {
                    break;
                }
                Thread.sleep(100);
            }
            node.put("stateAfterClientClosed", after == null ? "" : after.path("state").asString());
            node.put("errorAfterClientClosed", after == null ? "" : after.path("error").asString());
            log(String.format(Locale.ROOT, "%s slow reader: stalled at %.1f MB after %.0f ms, at window end %s (%s) after %d ms;"
                    + " RSS %.1f -> max %.1f MB; others p50 %.0f -> %.0f us; idle stream alive after %d ms: %s; after close: %s",
                    server, node.path("writtenWhenStalled").asLong() / 1048576.0, node.path("stalledAfterMs").asDouble(),
                    node.path("stateAtWindowEnd").asString(), node.path("error").asString(), node.path("endedAfterMs").asLong(),
                    node.path("rssBeforeMb").asDouble(), node.path("rssMaxMb").asDouble(),
                    node.path("before").path("p50Us").asDouble(), node.path("during").path("p50Us").asDouble(), quietMs, alive,
                    node.path("stateAfterClientClosed").asString()));
        }
    }

    private void waitForStreams(Started s, int count) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (stats(s).path("streams").asInt() < count) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the GET streams did not open");
            }
            Thread.sleep(20);
        }
    }

    /** A raw connection watched for the server closing it. */
    private static final class Watched implements AutoCloseable {
        final Socket socket;
        final long opened = System.nanoTime();
        long closedAfterMs = -1;
        String firstLine = "";

        Watched(Socket socket) {
            this.socket = socket;
        }

        /** @return whether the server has closed it (read it for a moment) */
        boolean poll() {
            if (closedAfterMs >= 0) {
                return true;
            }
            try {
                socket.setSoTimeout(20);
                byte[] buffer = new byte[4096];
                int n = socket.getInputStream().read(buffer);
                if (n < 0) {
                    closedAfterMs = (System.nanoTime() - opened) / 1_000_000;
                } else if (firstLine.isEmpty()) {
                    String text = new String(buffer, 0, n, StandardCharsets.ISO_8859_1);
                    firstLine = text.lines().findFirst().orElse("");
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                closedAfterMs = (System.nanoTime() - opened) / 1_000_000;
            }
            return closedAfterMs >= 0;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Uploads that stop after 10 bytes of a 1,000-byte body; an idle keep-alive connection. */
    private void stalledUploads(Started s, ObjectNode node, JsonNode settings, String server) throws Exception {
        int count = settings.path("threads").asInt() + 8;
        int idleMs = settings.path("idleTimeoutMs").asInt();
        long windowMs = smoke ? idleMs + 1000 : idleMs + 10_000L;
        long requestWaitMs = smoke ? 1000 : 5000;
        List<Watched> stalled = new ArrayList<>();
        try (Watched keepAlive = new Watched(new Socket("127.0.0.1", s.port()))) {
            // One full request and its answer, then nothing.
            OutputStream ka = keepAlive.socket.getOutputStream();
            String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}";
            ka.write(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
                    + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII));
            ka.flush();
            keepAlive.socket.setSoTimeout(5000);
            byte[] buffer = new byte[4096];
            int n = keepAlive.socket.getInputStream().read(buffer);
            keepAlive.firstLine = n > 0 ? new String(buffer, 0, n, StandardCharsets.ISO_8859_1).lines().findFirst().orElse("") : "";
            long idleStart = System.nanoTime();
            for (int i = 0; i < count; i++) {
                Watched w = new Watched(new Socket("127.0.0.1", s.port()));
                stalled.add(w);
                w.socket.getOutputStream().write(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1000\r\n\r\n{\"jsonrpc\"").getBytes(StandardCharsets.US_ASCII));
                w.socket.getOutputStream().flush();
            }
            Thread.sleep(smoke ? 300 : 1000);
            node.put("stalled", count);
            node.put("threads", settings.path("threads").asInt());
            node.put("threadsWithStalled", s.process().status().getOrDefault("Threads", -1L));
            node.set("requestWhileStalled", timedRequest(s, requestWaitMs));
            long start = System.nanoTime();
            while ((System.nanoTime() - start) / 1_000_000 < windowMs) {
                boolean all = keepAlive.poll();
                for (Watched w : stalled) {
                    all &= w.poll();
                }
                if (all) {
                    break;
                }
            }
            double[] closedAfter = stalled.stream().filter(w -> w.closedAfterMs >= 0).mapToDouble(w -> w.closedAfterMs).toArray();
            node.put("closedByServer", closedAfter.length);
            node.put("closedAfterMsMedian", closedAfter.length == 0 ? -1 : Report.median(closedAfter));
            node.put("stalledAnswer", stalled.stream().map(w -> w.firstLine).filter(l -> !l.isEmpty()).findFirst().orElse(""));
            node.put("keepAliveFirstLine", keepAlive.firstLine);
            node.put("keepAliveClosedAfterMs", keepAlive.closedAfterMs < 0 ? -1
                    : keepAlive.closedAfterMs - (idleStart - keepAlive.opened) / 1_000_000);
            node.put("windowMs", windowMs);
        } finally {
            for (Watched w : stalled) {
                w.close();
            }
        }
        Thread.sleep(500);
        node.set("requestAfterClose", timedRequest(s, requestWaitMs));
        log(String.format(Locale.ROOT, "%s stalled uploads: %d of %d closed by the server (median %.0f ms) within %d ms;"
                + " a request meanwhile: %s; after they went: %s; idle keep-alive closed after %d ms",
                server, node.path("closedByServer").asInt(), count, node.path("closedAfterMsMedian").asDouble(), node.path("windowMs").asLong(),
                node.path("requestWhileStalled"), node.path("requestAfterClose"), node.path("keepAliveClosedAfterMs").asLong()));
    }

    private ObjectNode timedRequest(Started s, long waitMs) {
        ObjectNode r = Proc.JSON.createObjectNode();
        long start = System.nanoTime();
        try {
            HttpResponse<String> response = client.sendAsync(post(s.uri("/mcp"), "tools/call", ""), HttpResponse.BodyHandlers.ofString())
                    .get(waitMs, TimeUnit.MILLISECONDS);
            r.put("answered", response.statusCode() == 200);
            r.put("ms", (System.nanoTime() - start) / 1e6);
        } catch (Exception e) {
            r.put("answered", false);
            r.put("ms", (System.nanoTime() - start) / 1e6);
            r.put("error", e.getClass().getSimpleName());
        }
        return r;
    }

    // ------------------------------------------------------------------ jlink

    private void images(ObjectNode node) throws IOException, InterruptedException {
        Path jlink = Path.of(System.getProperty("java.home"), "bin", "jlink");
        Path dir = out.resolve("images");
        Runner.deleteTree(dir);
        Files.createDirectories(dir);
        List<String> flags = List.of("--strip-debug", "--no-header-files", "--no-man-pages", "--compress=2");
        node.put("flags", String.join(" ", flags));
        Map<String, List<String>> images = new LinkedHashMap<>();
        images.put("java.base", List.of("--add-modules", "java.base"));
        images.put("jdk", List.of("--module-path", options.get("--jdk-path"), "--add-modules", "mcp.bench.http.jdk"));
        images.put("jetty", List.of("--module-path", options.get("--jetty-path"), "--add-modules", "mcp.bench.http.jetty"));
        String hostModules = options.get("--image-modules");
        if (hostModules != null) {
            // mcp-host's own image, as mcp.cli/src/image/build-image.sh makes it (without its class-data archives), alone
            // and with each library's server module added.
            String roots = "mcp.cli,mcp.testkit,org.tinylog.api.slf4j,org.tinylog.impl";
            images.put("mcp-host", List.of("--module-path", hostModules, "--add-modules", roots));
            images.put("mcp-host+jdk", List.of("--module-path", hostModules + ":" + options.get("--jdk-path"), "--add-modules",
                    roots + ",mcp.bench.http.jdk"));
            images.put("mcp-host+jetty", List.of("--module-path", hostModules + ":" + options.get("--jetty-path"), "--add-modules",
                    roots + ",mcp.bench.http.jetty"));
        }
        for (Map.Entry<String, List<String>> image : images.entrySet()) {
            Path output = dir.resolve(image.getKey());
            List<String> command = new ArrayList<>(List.of(jlink.toString()));
            command.addAll(image.getValue());
            command.addAll(flags);
            command.addAll(List.of("--output", output.toString()));
            Proc.Outcome outcome = Proc.run(command, repo, Map.of(), out.resolve("logs/jlink-" + image.getKey() + ".err"), 600);
            if (outcome.exitCode() != 0) {
                problem("jlink " + image.getKey() + ": exit " + outcome.exitCode() + " (logs/jlink-" + image.getKey() + ".err)");
                continue;
            }
            ObjectNode i = node.putObject(image.getKey());
            i.put("mb", treeBytes(output) / 1e6);
            Process list = new ProcessBuilder(output.resolve("bin/java").toString(), "--list-modules").redirectErrorStream(true).start();
            String modules = new String(list.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            list.waitFor(30, TimeUnit.SECONDS);
            ArrayNode names = i.putArray("modules");
            modules.lines().map(l -> l.replaceAll("@.*", "")).forEach(names::add);
            log(String.format(Locale.ROOT, "jlink %s: %.2f MB, %d modules", image.getKey(), i.path("mb").asDouble(), names.size()));
        }
    }

    private static long treeBytes(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    // ------------------------------------------------------------------ report

    static String markdown(JsonNode r) {
        StringBuilder md = new StringBuilder();
        JsonNode settings = r.path("settings");
        md.append(String.format(Locale.ROOT, "Run of %s, %d cores, Java %s, load average %s before and %s after; %d rounds,"
                + " servers alternated; %d requests in flight (java.net.http, HTTP/1.1, keep-alive), %.1f s per phase after"
                + " %.1f s of warm-up; server JVM `%s`, %d handler threads, idle timeout %d ms. Cells: median (min–max) over"
                + " the rounds.%n%n", r.path("date").asString(), r.path("nproc").asInt(), r.path("java").asString(),
                r.path("loadBefore").asString(), r.path("loadAfter").asString(), settings.path("rounds").asInt(),
                settings.path("inflight").asInt(), settings.path("seconds").asDouble(), settings.path("warmupSeconds").asDouble(),
                settings.path("serverJvm").asString(), settings.path("threads").asInt(), settings.path("idleTimeoutMs").asInt()));
        md.append("| figure | JDK `com.sun.net.httpserver` | Jetty 12.1 core | Jetty ÷ JDK |\n|---|---:|---:|---:|\n");
        JsonNode rounds = r.path("rounds");
        row(md, rounds, "launch → READY (ms)", "readyMs", "%,.0f");
        row(md, rounds, "launch → first answer (ms)", "firstAnswerMs", "%,.0f");
        row(md, rounds, "RSS idle, 1 s after the first answer (MB)", "idleRssMb", "%.1f");
        row(md, rounds, "RSS under load, max (MB)", "loadRssMb", "%.1f");
        row(md, rounds, "threads idle", "idleThreads", "%.0f");
        row(md, rounds, "threads under load, max", "loadThreads", "%.0f");
        for (String phase : List.of("json", "sse")) {
            String label = phase.equals("json") ? "POST → `application/json`" : "POST → `text/event-stream`, one event";
            row(md, rounds, label + ": p50 (µs)", phase + ".p50Us", "%,.0f");
            row(md, rounds, label + ": p99 (µs)", phase + ".p99Us", "%,.0f");
            row(md, rounds, label + ": requests/s", phase + ".perSecond", "%,.0f");
            row(md, rounds, label + ": server CPU per request (µs)", phase + ".serverCpuUsPerRequest", "%,.0f");
        }
        row(md, rounds, "POST → `application/json`: client CPU per request (µs, java.net.http, same for both)", "json.clientCpuUsPerRequest", "%,.0f");
        row(md, rounds, "push onto the GET stream, one at a time: p50 (µs)", "push.p50Us", "%,.0f");
        row(md, rounds, "push onto the GET stream, one at a time: p99 (µs)", "push.p99Us", "%,.0f");
        JsonNode images = r.path("images");
        if (images.isObject()) {
            double base = images.path("java.base").path("mb").asDouble();
            md.append(String.format(Locale.ROOT, "| jlink image of the server module alone (MB; `java.base` alone: %.1f) | %.1f | %.1f | |%n",
                    base, images.path("jdk").path("mb").asDouble(), images.path("jetty").path("mb").asDouble()));
            md.append(String.format(Locale.ROOT, "| … what the library adds over `java.base` (MB) | %+.2f | %+.2f | |%n",
                    images.path("jdk").path("mb").asDouble() - base, images.path("jetty").path("mb").asDouble() - base));
            if (images.has("mcp-host")) {
                double host = images.path("mcp-host").path("mb").asDouble();
                md.append(String.format(Locale.ROOT, "| … what it adds to mcp-host's image (%.1f MB without class-data archives) (MB) | %+.2f | %+.2f | |%n",
                        host, images.path("mcp-host+jdk").path("mb").asDouble() - host,
                        images.path("mcp-host+jetty").path("mb").asDouble() - host));
            }
            md.append(String.format(Locale.ROOT, "| modules of the server image | %s | %s | |%n", modules(images.path("jdk")),
                    modules(images.path("jetty"))));
        }
        md.append("\nChecks (one server process each):\n\n| check | JDK `com.sun.net.httpserver` | Jetty 12.1 core |\n|---|---|---|\n");
        JsonNode jdk = r.path("checks").path("jdk");
        JsonNode jetty = r.path("checks").path("jetty");
        check(md, "one request at a time on a keep-alive connection, the library's TCP_NODELAY default (JDK: off; Jetty: on): p50",
                jdk, jetty, c -> String.format(Locale.ROOT, "%,.0f µs", c.path("sequentialDefaultsP50Us").asDouble()));
        check(md, "2 MiB body with Content-Length (limit 1 MiB, the app's)", jdk, jetty, c -> body(c.path("bodies").path("contentLength")));
        check(md, "2 MiB body, chunked", jdk, jetty, c -> body(c.path("bodies").path("chunked")));
        check(md, "never-read GET stream, " + settings.path("floodMb").asInt() + " MB of 4 KiB events: written before the writer stalled",
                jdk, jetty, c -> c.path("slowReader").path("writtenWhenStalled").asLong() < 0 ? "never stalled"
                        : String.format(Locale.ROOT, "%.1f MB, after %,.0f ms", c.path("slowReader").path("writtenWhenStalled").asLong() / 1048576.0,
                        c.path("slowReader").path("stalledAfterMs").asDouble()));
        check(md, "… the stalled write", jdk, jetty, c -> {
            JsonNode s = c.path("slowReader");
            return s.path("stateAtWindowEnd").asString().equals("writing")
                    ? String.format(Locale.ROOT, "still blocked %,d ms after the flood began (no write timeout)", s.path("windowMs").asLong())
                    : String.format(Locale.ROOT, "%s after %,d ms: `%s`", s.path("stateAtWindowEnd").asString(), s.path("endedAfterMs").asLong(),
                            shorten(s.path("error").asString()));
        });
        check(md, "… when the client then closed the connection", jdk, jetty, c -> afterClose(c.path("slowReader")));
        check(md, "… the same with an app watchdog that calls `HttpExchange.close()` on a write blocked for the idle timeout",
                jdk, jetty, c -> {
                    JsonNode w = c.path("slowReaderWatchdog");
                    if (!w.isObject()) {
                        return "–";
                    }
                    return (w.path("stateAtWindowEnd").asString().equals("writing")
                            ? String.format(Locale.ROOT, "still blocked %,d ms after the flood began", w.path("windowMs").asLong())
                            : String.format(Locale.ROOT, "%s after %,d ms: `%s`", w.path("stateAtWindowEnd").asString(),
                                    w.path("endedAfterMs").asLong(), shorten(w.path("error").asString())))
                            + "; client closed: " + afterClose(w);
                });
        check(md, "… server RSS before → max during (MB)", jdk, jetty, c -> String.format(Locale.ROOT, "%.1f → %.1f",
                c.path("slowReader").path("rssBeforeMb").asDouble(), c.path("slowReader").path("rssMaxMb").asDouble()));
        check(md, "… other clients' JSON p50 / p99 before → during (µs)", jdk, jetty, c -> String.format(Locale.ROOT, "%,.0f / %,.0f → %,.0f / %,.0f",
                c.path("slowReader").path("before").path("p50Us").asDouble(), c.path("slowReader").path("before").path("p99Us").asDouble(),
                c.path("slowReader").path("during").path("p50Us").asDouble(), c.path("slowReader").path("during").path("p99Us").asDouble()));
        check(md, "an idle GET stream (no event) after the idle timeout and a half", jdk, jetty, c -> String.format(Locale.ROOT, "%s after %,d ms",
                c.path("slowReader").path("idleStreamAlive").asBoolean() ? "alive" : "**closed**", c.path("slowReader").path("idleStreamQuietMs").asLong()));
        check(md, "uploads stalled after 10 bytes (handler threads + 8): a normal request meanwhile", jdk, jetty, c -> {
            JsonNode q = c.path("stalled").path("requestWhileStalled");
            return c.path("stalled").path("stalled").asInt() + " stalled: " + (q.path("answered").asBoolean()
                    ? String.format(Locale.ROOT, "answered in %,.0f ms", q.path("ms").asDouble())
                    : String.format(Locale.ROOT, "**not answered** within %,.0f ms", q.path("ms").asDouble()));
        });
        check(md, "… stalled uploads closed by the server", jdk, jetty, c -> {
            JsonNode st = c.path("stalled");
            return st.path("closedByServer").asInt() == 0
                    ? String.format(Locale.ROOT, "none within %,d ms", st.path("windowMs").asLong())
                    : String.format(Locale.ROOT, "%d of %d, median after %,.0f ms%s", st.path("closedByServer").asInt(), st.path("stalled").asInt(),
                            st.path("closedAfterMsMedian").asDouble(), st.path("stalledAnswer").asString().isEmpty() ? ""
                                    : " (answered `" + st.path("stalledAnswer").asString() + "`)");
        });
        check(md, "… a request once they were gone", jdk, jetty, c -> c.path("stalled").path("requestAfterClose").path("answered").asBoolean()
                ? "answered" : "**not answered**");
        check(md, "idle keep-alive connection closed by the server after", jdk, jetty, c -> c.path("stalled").path("keepAliveClosedAfterMs").asLong() < 0
                ? String.format(Locale.ROOT, "not within %,d ms", c.path("stalled").path("windowMs").asLong())
                : String.format(Locale.ROOT, "%,d ms", c.path("stalled").path("keepAliveClosedAfterMs").asLong()));
        JsonNode problems = r.path("problems");
        md.append(problems.isEmpty() ? "\nProblems in this run: none.\n" : "\nProblems in this run:\n");
        problems.forEach(p -> md.append("- ").append(p.asString()).append('\n'));
        return md.toString();
    }

    private static String afterClose(JsonNode s) {
        if (!s.path("stateAtWindowEnd").asString().equals("writing")) {
            return "(had ended before)";
        }
        return s.path("stateAfterClientClosed").asString() + (s.path("errorAfterClientClosed").asString().isEmpty() ? ""
                : ": `" + shorten(s.path("errorAfterClientClosed").asString()) + "`");
    }

    private static String shorten(String error) {
        return error.length() > 90 ? error.substring(0, 90) + "…" : error;
    }

    private static String modules(JsonNode image) {
        List<String> names = new ArrayList<>();
        image.path("modules").forEach(m -> names.add(m.asString()));
        names.removeIf(n -> n.equals("java.base") || n.startsWith("mcp.bench"));
        return String.join(", ", names);
    }

    private static String body(JsonNode b) {
        return b.path("status").asInt() + String.format(Locale.ROOT, " in %,.0f ms", b.path("ms").asDouble())
                + (b.path("nextAnswered").asBoolean() ? "; next request answered" : "; **next request failed**");
    }

    private static void check(StringBuilder md, String what, JsonNode jdk, JsonNode jetty, java.util.function.Function<JsonNode, String> cell) {
        md.append("| ").append(what).append(" | ").append(jdk.isObject() ? cell.apply(jdk) : "–").append(" | ")
                .append(jetty.isObject() ? cell.apply(jetty) : "–").append(" |\n");
    }

    private static void row(StringBuilder md, JsonNode rounds, String label, String path, String format) {
        double[] jdk = values(rounds.path("jdk"), path);
        double[] jetty = values(rounds.path("jetty"), path);
        double a = Report.median(jdk);
        double b = Report.median(jetty);
        md.append("| ").append(label).append(" | ").append(cell(jdk, format)).append(" | ").append(cell(jetty, format))
                .append(" | ").append(a > 0 && b >= 0 ? String.format(Locale.ROOT, "%.2f×", b / a) : "").append(" |\n");
    }

    private static double[] values(JsonNode runs, String path) {
        List<Double> values = new ArrayList<>();
        for (JsonNode run : runs) {
            JsonNode node = run;
            for (String part : path.split("\\.")) {
                node = node.path(part);
            }
            if (node.isNumber()) {
                values.add(node.asDouble());
            }
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static String cell(double[] values, String format) {
        if (values.length == 0) {
            return "–";
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        String median = String.format(Locale.ROOT, format, Report.median(values));
        return values.length == 1 ? median : median + " (" + String.format(Locale.ROOT, format, sorted[0]) + "–"
                + String.format(Locale.ROOT, format, sorted[sorted.length - 1]) + ")";
    }
}

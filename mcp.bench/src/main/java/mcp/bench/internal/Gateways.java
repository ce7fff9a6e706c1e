package mcp.bench.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import mcp.bench.internal.Proc.Outcome;
import mcp.testkit.TestServers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The gateway comparison: {@code tools/call} of {@code echo} on one and the same stdio upstream, directly (over stdio)
 * and through each gateway (over Streamable HTTP, or stdio), each path with each of {@code --clients}: mcp-host's
 * {@code McpClient}, and the floor ({@link FloorClient}, {@link FloorHttpClient}), which costs next to nothing, so that
 * what a gateway adds is seen apart from what the client's HTTP stack costs; and each gateway's memory with
 * {@code --upstreams} upstreams and {@code --sessions} client sessions.
 *
 * <p>A gateway is a command that, given upstream command lines, listens on a port or speaks stdio ({@link Gateway}):
 * adding one, such as {@code mcp-host serve}, is one more entry in {@link #catalog()}. The client process is the same
 * for every row of a client ({@link GatewayClient}, in a process of its own, 2025-11-25 handshake), so the rows differ
 * only in what stands between it and the upstream.
 *
 * <p>Calls, per round (gateways alternated, reversed every other round): a fresh gateway process (or processes) with
 * one upstream; the client connects, lists the tools, makes sequential calls for {@code --warmup-seconds}, then
 * {@code --warmup} more, {@code --calls} sequential timed calls, then {@code --inflight} calls in flight for {@code --seconds}, each timed. Memory, once per
 * HTTP gateway: {@code --upstreams} upstreams (a gateway of one upstream per process runs that many processes; their
 * RSS is summed), RSS idle, then with {@code --sessions} sessions spread over the upstreams, each of which listed the
 * tools and made one call; the upstream processes under the gateways are counted and summed apart.
 *
 * <p>Command line: {@code --repo DIR --module-path MP [--out DIR] [--gateways direct,mcp-proxy,supergateway]
 * [--upstream testkit|everything] [--clients mcp-host,floor] [--rounds N] [--warmup N] [--warmup-seconds S]
 * [--calls N] [--inflight N] [--seconds S] [--upstreams N] [--sessions N] [--memory false] [--node NODE]
 * [--gateway-java-opts FLAGS] [--client-java-opts FLAGS] [--smoke]};
 * {@code MP} is the module path of the client processes; the {@code FLAGS} (space-separated) are added to the JVM flags
 * of mcp-host serve or of the client processes (a flight recording, say).
 * The npm gateways come from {@code bench/node_modules} ({@code bench/gateway.sh} installs them from the lock file);
 * one that is not installed is left out with a problem, except in {@code --smoke}, which runs {@code direct} alone
 * unless {@code --gateways} says otherwise. Writes {@code gateways.json} and {@code gateways.md} into the output
 * directory and prints the latter.
 */
public final class Gateways {

    /**
     * A way to put upstreams behind one endpoint.
     *
     * @param name the id on the command line and in the results
     * @param label the name in the report
     * @param stdio whether it speaks stdio (the client starts {@link #command} itself) rather than HTTP on a port
     * @param onePerUpstream whether a process serves one upstream only (then the memory part runs one per upstream)
     * @param command the command line of one process: (port, upstreams by name, in order) → command; the port is 0
     *     for a stdio gateway
     * @param url (port, upstream name) → the URL the client connects to; null for a stdio gateway
     * @param installedAt a file that must exist for it to run (relative to the repository), or null
     */
    record Gateway(String name, String label, boolean stdio, boolean onePerUpstream,
            BiFunction<Integer, Map<String, List<String>>, List<String>> command, BiFunction<Integer, String, String> url,
            String installedAt) {
    }

    private final Map<String, String> options;
    private final boolean smoke;
    private final Path repo;
    private final Path out;
    private final String modulePath;
    private final String marker = "gwup-" + UUID.randomUUID().toString().substring(0, 8);
    private final ObjectNode results = Proc.JSON.createObjectNode();
    private String archive;

    private Gateways(String[] args) {
        options = Runner.options(args);
        smoke = options.containsKey("--smoke");
        repo = Path.of(options.getOrDefault("--repo", ".")).toAbsolutePath().normalize();
        out = Path.of(options.getOrDefault("--out", repo.resolve("mcp.bench/target/gateways").toString())).toAbsolutePath();
        modulePath = options.get("--module-path");
        if (modulePath == null) {
            throw new IllegalArgumentException("--module-path is required");
        }
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
     * @return the results (also in {@code gateways.json})
     * @throws Exception if it cannot run at all
     */
    public static ObjectNode run(String[] args) throws Exception {
        Gateways gateways = new Gateways(args);
        gateways.runAll();
        return gateways.results;
    }

    /** Every gateway this harness knows; the command line picks among them. */
    List<Gateway> catalog() {
        String node = options.getOrDefault("--node", "node");
        Path modules = repo.resolve("bench/node_modules");
        return List.of(
            new Gateway("direct", "direct: the client over stdio, no gateway", true, true,
                (port, upstreams) -> only(upstreams), null, null),
            new Gateway("mcp-proxy", "mcp-proxy 6.7.19 (Streamable HTTP, stateful, one shared child)", false, true,
                (port, upstreams) -> concat(List.of(node, modules.resolve("mcp-proxy/dist/bin/mcp-proxy.mjs").toString(),
                        "--host", "127.0.0.1", "--port", String.valueOf(port), "--"), only(upstreams)),
                (port, upstream) -> "http://127.0.0.1:" + port + "/mcp", "bench/node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs"),
            // supergateway has no host option and listens on every interface: the interop tests' preload binds it to
            // 127.0.0.1. Its default log level prints every message; "none" measures the relay alone.
            new Gateway("supergateway", "supergateway 4.0.0 (`--outputTransport streamableHttp --stateful`)", false, true,
                (port, upstreams) -> List.of(node, "--require", repo.resolve("interop/loopback.cjs").toString(),
                        modules.resolve("supergateway/dist/index.js").toString(), "--stdio", shell(only(upstreams)),
                        "--outputTransport", "streamableHttp", "--stateful", "--port", String.valueOf(port), "--logLevel", "none"),
                (port, upstream) -> "http://127.0.0.1:" + port + "/mcp", "bench/node_modules/supergateway/dist/index.js"),
            // mcp-host serve from the runtime image, with a scratch HOME: one process serves every upstream; with one
            // upstream the tools keep their own names, so the client calls echo as it does directly.
            new Gateway("mcp-host-http", "mcp-host serve --http (one process for every upstream)", false, false,
                (port, upstreams) -> serve(upstreams, "--http", "--no-token", "--port", String.valueOf(port)),
                (port, upstream) -> "http://127.0.0.1:" + port + "/mcp", IMAGE_LAUNCHER),
            new Gateway("mcp-host-stdio", "mcp-host serve --stdio", true, true,
                (port, upstreams) -> serve(upstreams, "--stdio"), null, IMAGE_LAUNCHER));
    }

    /** The launcher of the runtime image, relative to the repository. */
    private static final String IMAGE_LAUNCHER = "mcp.cli/target/image/bin/mcp-host";

    /** {@code mcp-host --config FILE serve ...} with these upstreams in FILE and a HOME of its own. */
    private List<String> serve(Map<String, List<String>> upstreams, String... serveOptions) {
        ObjectNode servers = Proc.JSON.createObjectNode();
        upstreams.forEach((name, command) -> {
            ObjectNode entry = servers.putObject(name).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        });
        ObjectNode root = Proc.JSON.createObjectNode();
        root.set("mcpServers", servers);
        try {
            Path config = Files.createDirectories(out).resolve("serve-" + String.join("-", upstreams.keySet()).hashCode()
                    + ".json");
            Files.writeString(config, root.toString());
            List<String> command = new ArrayList<>(List.of("env", "HOME=" + Files.createDirectories(out.resolve("serve-home"))));
            // JVM flags for the gateway alone (a flight recording, say): the launcher adds MCP_HOST_JAVA_OPTS to its own.
            String javaOpts = options.get("--gateway-java-opts");
            if (javaOpts != null) {
                command.add("MCP_HOST_JAVA_OPTS=" + javaOpts);
            }
            command.addAll(List.of(repo.resolve(IMAGE_LAUNCHER).toString(), "--config", config.toString(), "serve"));
            command.addAll(List.of(serveOptions));
            return command;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> only(Map<String, List<String>> upstreams) {
        if (upstreams.size() != 1) {
            throw new IllegalArgumentException("this gateway serves one upstream per process");
        }
        return upstreams.values().iterator().next();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** @return the command as one POSIX shell line, every argument single-quoted */
    static String shell(List<String> command) {
        return command.stream().map(a -> "'" + a.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
    }

    private void problem(String text) {
        System.err.println("gateways: PROBLEM: " + text);
        results.withArray("/problems").add(text);
    }

    private static void log(String text) {
        System.err.println("gateways: " + text);
    }

    private String option(String name, String full, String smokeValue) {
        return options.getOrDefault(name, smoke ? smokeValue : full);
    }

    private void runAll() throws Exception {
        Files.createDirectories(out);
        results.put("date", LocalDate.now().toString());
        results.put("nproc", Runtime.getRuntime().availableProcessors());
        results.putArray("problems");
        results.put("loadBefore", Runner.loadAverage());
        List<String> wanted = Arrays.asList(option("--gateways", "direct,mcp-proxy,supergateway,mcp-host-http,mcp-host-stdio", "direct").split(","));
        List<Gateway> gateways = new ArrayList<>();
        for (Gateway g : catalog()) {
            if (!wanted.contains(g.name())) {
                continue;
            }
            if (g.installedAt() != null && !Files.isRegularFile(repo.resolve(g.installedAt()))) {
                problem(g.name() + " is not installed (" + g.installedAt() + "): run bench/gateway.sh");
                continue;
            }
            gateways.add(g);
        }
        String upstream = option("--upstream", "testkit", "testkit");
        ObjectNode settings = results.putObject("settings");
        settings.put("upstream", upstream);
        settings.put("rounds", Integer.parseInt(option("--rounds", "5", "1")));
        settings.put("warmup", option("--warmup", "1000", "20"));
        // A gateway is a server that runs for hours: it is measured once its JIT compiled the hot path.
        settings.put("warmupSeconds", option("--warmup-seconds", "10", "0"));
        settings.put("calls", option("--calls", "1000", "100"));
        settings.put("inflight", option("--inflight", "16", "16"));
        settings.put("seconds", option("--seconds", "5", "0.3"));
        ArrayNode clientNames = settings.putArray("clients");
        for (String client : option("--clients", "mcp-host,floor", "mcp-host,floor").split(",")) {
            if (!client.equals("mcp-host") && !client.equals("floor")) {
                throw new IllegalArgumentException("--clients: mcp-host and/or floor, not " + client);
            }
            clientNames.add(client);
        }
        settings.put("upstreams", Integer.parseInt(option("--upstreams", "10", "2")));
        settings.put("sessions", Integer.parseInt(option("--sessions", "50", "4")));
        ArrayNode labels = settings.putArray("gateways");
        gateways.forEach(g -> labels.addObject().put("name", g.name()).put("label", g.label()));
        if (upstream.equals("testkit") && !smoke) {
            archive = Runner.trainTestkitArchive(out.resolve("cds"), out.resolve("logs"));
        }
        settings.put("upstreamCommand", upstream.equals("testkit") ? "mcp.testkit.TestServer (JVM: "
                + String.join(" ", TestServers.command().subList(1, 5)) + (archive != null ? ", its class-data archive" : "") + ")"
                : "node @modelcontextprotocol/server-everything/dist/index.js stdio");
        calls(gateways, settings);
        if (!"false".equals(options.get("--memory"))) {
            memory(gateways, settings);
        }
        results.put("loadAfter", Runner.loadAverage());
        Path report = out.resolve("gateways.md");
        Files.writeString(report, markdown(results));
        results.put("report", report.toString());
        Files.writeString(out.resolve("gateways.json"), Proc.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(results));
    }

    // ------------------------------------------------------------------ upstreams and gateway processes

    /** @return the upstream's command line, with a name the harness finds its processes by */
    private List<String> upstream(String name) {
        if (results.path("settings").path("upstream").asString().equals("everything")) {
            return List.of(options.getOrDefault("--node", "node"),
                    repo.resolve("interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js").toString(), "stdio",
                    marker + "-" + name);
        }
        List<String> command = TestServers.command("--name", marker + "-" + name);
        if (archive != null) {
            command.add(1, "-XX:SharedArchiveFile=" + archive);
            command.add(2, "-Xlog:disable");
        }
        return command;
    }

    private String expectPrefix() {
        return results.path("settings").path("upstream").asString().equals("everything") ? "Echo: " : "";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    /** Gateway processes serving some upstreams, listening. */
    private record Running(List<ServerProcess> processes, List<String> urls) implements AutoCloseable {
        @Override
        public void close() {
            processes.forEach(ServerProcess::close);
        }

        double rssMb() {
            return processes.stream().mapToDouble(p -> ServerProcess.rssMb(p.pid())).sum();
        }

        double cpuMs() {
            return processes.stream().mapToDouble(ServerProcess::cpuMs).sum();
        }

        double peakRssMb() {
            return processes.stream().mapToDouble(p -> ServerProcess.status(p.pid()).getOrDefault("VmHWM", 0L) / 1024.0).sum();
        }

        List<ProcessHandle> descendants() {
            return processes.stream().flatMap(p -> ProcessHandle.of(p.pid()).stream()).flatMap(ProcessHandle::descendants).toList();
        }
    }

    private Running launch(Gateway gateway, List<String> names, String log) throws IOException, InterruptedException {
        List<ServerProcess> processes = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        try {
            List<List<String>> groups = gateway.onePerUpstream() ? names.stream().map(List::of).toList() : List.of(names);
            for (List<String> group : groups) {
                int port = freePort();
                Map<String, List<String>> upstreams = new LinkedHashMap<>();
                group.forEach(n -> upstreams.put(n, upstream(n)));
                processes.add(ServerProcess.start(gateway.command().apply(port, upstreams), repo,
                        Map.of("NO_UPDATE_NOTIFIER", "1", "npm_config_update_notifier", "false"),
                        out.resolve("logs/" + log + "-" + processes.size() + ".err")));
                ports.add(port);
                group.forEach(n -> urls.add(gateway.url().apply(port, n)));
            }
            for (int i = 0; i < processes.size(); i++) {
                awaitListening(processes.get(i), ports.get(i), gateway.name());
            }
            return new Running(processes, urls);
        } catch (IOException | RuntimeException | InterruptedException e) {
            processes.forEach(ServerProcess::close);
            throw e;
        }
    }

    private static void awaitListening(ServerProcess process, int port, String name) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException(name + " ended before it listened on " + port);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        throw new IOException(name + " did not listen on " + port + " within 60 s");
    }

    private List<String> clientCommand(List<String> args) {
        List<String> command = new ArrayList<>(List.of(Proc.java()));
        command.addAll(Runner.CLIENT_JVM_FLAGS);
        String javaOpts = options.get("--client-java-opts");
        if (javaOpts != null) {
            command.addAll(List.of(javaOpts.trim().split("\\s+")));
        }
        command.addAll(List.of("-p", modulePath, "-m", "mcp.bench/mcp.bench.internal.GatewayClient"));
        command.addAll(args);
        return command;
    }

    // ------------------------------------------------------------------ calls

    private void calls(List<Gateway> gateways, JsonNode settings) throws IOException, InterruptedException {
        ObjectNode runs = results.putObject("calls");
        List<String> clients = new ArrayList<>();
        settings.path("clients").forEach(c -> clients.add(c.asString()));
        clients.forEach(c -> gateways.forEach(g -> runs.putArray(runKey(g.name(), c))));
        int rounds = settings.path("rounds").asInt();
        for (int round = 1; round <= rounds; round++) {
            List<Gateway> order = new ArrayList<>(gateways);
            if (round % 2 == 0) {
                java.util.Collections.reverse(order);
            }
            for (Gateway g : order) {
                for (String client : clients) {
                    String key = runKey(g.name(), client);
                    List<String> args = new ArrayList<>(List.of("--mode", "calls", "--client", client,
                            "--warmup", settings.path("warmup").asString(),
                            "--warmup-seconds", settings.path("warmupSeconds").asString(),
                            "--calls", settings.path("calls").asString(), "--inflight", settings.path("inflight").asString(),
                            "--seconds", settings.path("seconds").asString(), "--expect-prefix", expectPrefix()));
                    String log = "calls-" + key.replace('/', '-') + "-" + round;
                    Outcome outcome;
                    ObjectNode r;
                    if (g.stdio()) {
                        args.add("--");
                        args.addAll(g.command().apply(0, Map.of("u0", upstream("u0"))));
                        outcome = Proc.run(clientCommand(args), repo, Map.of(), out.resolve("logs/" + log + ".err"), 600);
                        r = result(key, round, outcome);
                    } else {
                        try (Running running = launch(g, List.of("u0"), log + "-gateway")) {
                            args.addAll(List.of("--url", running.urls().get(0), "--watch-pids", running.processes().stream()
                                    .map(p -> String.valueOf(p.pid())).collect(Collectors.joining(","))));
                            double cpu = running.cpuMs();
                            outcome = Proc.run(clientCommand(args), repo, Map.of(), out.resolve("logs/" + log + ".err"), 600);
                            r = result(key, round, outcome);
                            if (r != null) {
                                long calls = r.path("seqCalls").asLong() + r.path("tpCalls").asLong()
                                        + r.path("warmupCalls").asLong();
                                r.put("gatewayCpuUsPerCall", (running.cpuMs() - cpu) * 1000 / Math.max(1, calls));
                                r.put("gatewayPeakRssMb", running.peakRssMb());
                            }
                        } catch (IOException e) {
                            problem(key + " round " + round + ": " + e.getMessage());
                            continue;
                        }
                    }
                    if (r != null) {
                        runs.withArray(key).add(r);
                        log(String.format(Locale.ROOT, "%s round %d: connect %.0f ms, sequential p50 %.0f us, %d in flight p50 %.0f us p99 %.0f us,"
                                + " %.0f calls/s", key, round, r.path("connectMs").asDouble(), r.path("seqP50Us").asDouble(),
                                r.path("inflight").asInt(), r.path("tpP50Us").asDouble(), r.path("tpP99Us").asDouble(),
                                r.path("callsPerSec").asDouble()));
                    }
                }
            }
        }
    }

    /** @return the key of a gateway's runs with one client: the gateway's name, {@code /floor} for the floor client */
    static String runKey(String gateway, String client) {
        return client.equals("mcp-host") ? gateway : gateway + "/" + client;
    }

    private ObjectNode result(String key, int round, Outcome outcome) {
        JsonNode r = outcome.result();
        if (r == null || r.has("error")) {
            problem(key + " round " + round + ": " + (r == null ? "no result (exit " + outcome.exitCode() + ")"
                    : r.path("error").asString()) + "; see logs/calls-" + key.replace('/', '-') + "-" + round + ".err");
            return null;
        }
        if (r.path("mismatches").asLong() != 0 || r.path("failures").asLong() != 0) {
            problem(key + " round " + round + ": " + r.path("mismatches").asLong() + " mismatches, " + r.path("failures").asLong()
                    + " failures (" + r.path("firstProblem").asString() + ")");
        }
        return (ObjectNode) r;
    }

    // ------------------------------------------------------------------ memory

    private void memory(List<Gateway> gateways, JsonNode settings) throws IOException, InterruptedException {
        ObjectNode section = results.putObject("memory");
        int count = settings.path("upstreams").asInt();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            names.add("u" + i);
        }
        for (Gateway g : gateways) {
            if (g.stdio()) {
                continue; // one client per process: sessions are processes, nothing is shared
            }
            ObjectNode m = section.putObject(g.name());
            try (Running running = launch(g, names, "memory-" + g.name())) {
                Thread.sleep(2000);
                m.put("processes", running.processes().size());
                m.put("idleRssMb", running.rssMb());
                m.put("idleUpstreams", upstreams(running).size());
                m.put("idleUpstreamRssMb", rss(upstreams(running)));
                List<String> args = List.of("--mode", "hold", "--urls", String.join(",", running.urls()), "--sessions",
                        settings.path("sessions").asString(), "--expect-prefix", expectPrefix());
                try (ServerProcess client = ServerProcess.start(clientCommand(args), repo, Map.of(),
                        out.resolve("logs/memory-" + g.name() + "-client.err"))) {
                    String holding = client.awaitLine("HOLDING ", 600_000);
                    if (holding == null) {
                        problem(g.name() + " memory: the client did not hold its sessions (logs/memory-" + g.name() + "-client.err)");
                        continue;
                    }
                    Thread.sleep(2000);
                    String[] parts = holding.split(" ");
                    m.put("sessions", Integer.parseInt(parts[1]));
                    m.put("sessionsFailed", Integer.parseInt(parts[2]));
                    m.put("rssMb", running.rssMb());
                    m.put("peakRssMb", running.peakRssMb());
                    List<ProcessHandle> ups = upstreams(running);
                    m.put("upstreamProcesses", ups.size());
                    m.put("upstreamRssMb", rss(ups));
                    m.put("otherDescendants", running.descendants().size() - ups.size());
                    OutputStream stdin = client.stdin();
                    stdin.write("close\n".getBytes(StandardCharsets.UTF_8));
                    stdin.close();
                    String line = client.awaitLine(mcp.bench.ClientRun.RESULT_PREFIX, 120_000);
                    if (line != null) {
                        JsonNode r = Proc.JSON.readTree(line.substring(mcp.bench.ClientRun.RESULT_PREFIX.length()));
                        m.set("client", r);
                        if (r.path("failures").asLong() != 0 || r.path("mismatches").asLong() != 0) {
                            problem(g.name() + " memory: " + r.path("failures").asLong() + " sessions failed, "
                                    + r.path("mismatches").asLong() + " wrong answers (" + r.path("firstProblem").asString() + ")");
                        }
                    }
                }
                log(String.format(Locale.ROOT, "%s memory: %d process(es), RSS %.1f MB idle, %.1f MB with %d sessions; upstream"
                        + " processes %d idle, %d with the sessions (%.0f MB)", g.name(), m.path("processes").asInt(),
                        m.path("idleRssMb").asDouble(), m.path("rssMb").asDouble(), m.path("sessions").asInt(),
                        m.path("idleUpstreams").asInt(), m.path("upstreamProcesses").asInt(), m.path("upstreamRssMb").asDouble()));
            } catch (IOException e) {
                problem(g.name() + " memory: " + e.getMessage());
            }
        }
    }

    /**
     * @return the upstream server processes under the gateways: found by the name in their command line, shells
     *     excluded (supergateway starts its child through {@code sh -c}, whose command line carries the name too)
     */
    private List<ProcessHandle> upstreams(Running running) {
        return running.descendants().stream().filter(p -> p.info().commandLine().orElse("").contains(marker))
                .filter(p -> !p.info().command().orElse("").matches(".*/(ba|da)?sh")).toList();
    }

    private static double rss(List<ProcessHandle> processes) {
        return processes.stream().mapToDouble(p -> {
            double mb = ServerProcess.rssMb(p.pid());
            return Double.isNaN(mb) ? 0 : mb;
        }).sum();
    }

    // ------------------------------------------------------------------ report

    static String markdown(JsonNode r) {
        StringBuilder md = new StringBuilder();
        JsonNode s = r.path("settings");
        md.append(String.format(Locale.ROOT, "Run of %s, %d cores, load average %s before and %s after. Upstream: %s. %d rounds,"
                + " gateways alternated; per client process %s s of sequential calls and %s more to warm up,"
                + " then %s sequential calls, then %s calls in flight for"
                + " %s s. Cells: median (min–max) over the rounds.%n", r.path("date").asString(), r.path("nproc").asInt(),
                r.path("loadBefore").asString(), r.path("loadAfter").asString(), s.path("upstreamCommand").asString(),
                s.path("rounds").asInt(), s.path("warmupSeconds").asString(), s.path("warmup").asString(),
                s.path("calls").asString(), s.path("inflight").asString(),
                s.path("seconds").asString()));
        JsonNode calls = r.path("calls");
        for (JsonNode clientName : s.path("clients")) {
            String client = clientName.asString();
            md.append(client.equals("mcp-host")
                    ? "\nClient: mcp-host's `McpClient` (2025-11-25 handshake) in a process of its own, the same for every row.\n\n"
                    : "\nClient: the floor (`FloorClient` over stdio, `FloorHttpClient` over HTTP: blocking sockets, keep-alive,"
                            + " the least Java that speaks the session), so that the gateway, not the client's HTTP stack, is what"
                            + " is measured.\n\n");
            md.append("| path | connect → initialized (ms) | sequential p50 (µs) | added over direct, p50 (µs) | ")
                    .append(s.path("inflight").asString())
                    .append(" in flight: p50 (µs) | p99 (µs) | calls/s | calls/s ÷ direct | gateway CPU per call, whole run (µs) | client CPU per call, in flight (µs) |"
                    + " CPU per call of the process the client talks to (upstream or gateway), in flight (µs) | gateway peak RSS (MB) |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            double direct = Report.median(values(calls.path(runKey("direct", client)), "callsPerSec"));
            double directP50 = Report.median(values(calls.path(runKey("direct", client)), "seqP50Us"));
            for (JsonNode g : s.path("gateways")) {
                JsonNode runs = calls.path(runKey(g.path("name").asString(), client));
                double perSec = Report.median(values(runs, "callsPerSec"));
                double p50 = Report.median(values(runs, "seqP50Us"));
                boolean isDirect = g.path("name").asString().equals("direct");
                md.append("| ").append(g.path("label").asString()).append(" | ").append(cell(runs, "connectMs", "%,.0f")).append(" | ")
                        .append(cell(runs, "seqP50Us", "%,.0f")).append(" | ")
                        .append(!isDirect && directP50 > 0 && p50 > 0 ? String.format(Locale.ROOT, "%,.0f", p50 - directP50) : "–")
                        .append(" | ").append(cell(runs, "tpP50Us", "%,.0f")).append(" | ")
                        .append(cell(runs, "tpP99Us", "%,.0f")).append(" | ").append(cell(runs, "callsPerSec", "%,.0f")).append(" | ")
                        .append(direct > 0 && perSec > 0 ? String.format(Locale.ROOT, "%.2f×", perSec / direct) : "").append(" | ")
                        .append(cell(runs, "gatewayCpuUsPerCall", "%,.0f")).append(" | ").append(cell(runs, "clientCpuUsPerCall", "%,.0f"))
                        .append(" | ").append(cell(runs, "serverCpuUsPerCall", "%,.0f")).append(" | ").append(cell(runs, "gatewayPeakRssMb", "%.1f"))
                        .append(" |\n");
            }
        }
        JsonNode memory = r.path("memory");
        if (memory.isObject() && memory.size() > 0) {
            md.append(String.format(Locale.ROOT, "%nMemory with %d upstreams and %d client sessions spread over them (each session"
                    + " listed the tools and made one call; RSS a few seconds later):%n%n", s.path("upstreams").asInt(),
                    s.path("sessions").asInt()));
            md.append("| gateway | gateway processes | gateway RSS, no session (MB) | gateway RSS, sessions open (MB) | upstream processes,"
                    + " no session → sessions open | their RSS, sessions open (MB) | sessions open / failed |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (JsonNode g : s.path("gateways")) {
                JsonNode m = memory.path(g.path("name").asString());
                if (!m.isObject()) {
                    continue;
                }
                md.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %.1f | %d → %d | %.0f | %d / %d |%n", g.path("label").asString(),
                        m.path("processes").asInt(), m.path("idleRssMb").asDouble(), m.path("rssMb").asDouble(),
                        m.path("idleUpstreams").asInt(), m.path("upstreamProcesses").asInt(), m.path("upstreamRssMb").asDouble(),
                        m.path("sessions").asInt(), m.path("sessionsFailed").asInt()));
            }
        }
        JsonNode problems = r.path("problems");
        md.append(problems.isEmpty() ? "\nProblems in this run: none.\n" : "\nProblems in this run:\n");
        problems.forEach(p -> md.append("- ").append(p.asString()).append('\n'));
        return md.toString();
    }

    private static double[] values(JsonNode runs, String field) {
        List<Double> values = new ArrayList<>();
        runs.forEach(run -> {
            if (run.path(field).isNumber()) {
                values.add(run.path(field).asDouble());
            }
        });
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static String cell(JsonNode runs, String field, String format) {
        double[] values = values(runs, field);
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

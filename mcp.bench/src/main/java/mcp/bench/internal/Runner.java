package mcp.bench.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import mcp.bench.internal.Proc.Outcome;
import mcp.testkit.TestServers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs the whole benchmark: the four clients of the 2025 handshake on each server, alternated A B C D A B C D ...
 * for several rounds, each client in its own process; the three clients of the 2026-07-28 revision on a server
 * of that era, alternated the same way; startup at scale; whole-process CLI time; JMH.
 * Writes {@code results.json} and {@code report.md} into the output directory and, with
 * {@code --report FILE}, replaces the generated part of that file (between the
 * {@code <!-- bench:begin -->} and {@code <!-- bench:end -->} lines).
 *
 * <p>Command line (all paths absolute or relative to the working directory):
 * <pre>
 *   --repo DIR            the repository root (default: .)
 *   --module-path MP      module path of the mcp-host and floor client processes (mcp.bench and its modules)
 *   --class-path CP       class path of the Java SDK and JMH processes
 *   --out DIR             output directory (default: mcp.bench/target/bench)
 *   --report FILE         the markdown file whose generated part is replaced
 *   --rounds N            rounds of the client comparison on the testkit server (default 5)
 *   --smoke               tiny counts, Java clients and the testkit server only (the modern part on the testkit
 *                         server in its modern era), one scale run: for CI
 *   --skip LIST           comma-separated parts to skip: clients,everything,modern,scale,cli,jmh,node
 * </pre>
 */
public final class Runner {

    /** Flags of every Java client process (the same for all of them). */
    static final List<String> CLIENT_JVM_FLAGS = List.of("-XX:+UseSerialGC", "-Xmx512m", "-Xlog:disable",
            "-Xlog:all=warning:stderr");

    private static final List<String> CLIENTS = List.of("mcp-host", "java-sdk", "ts-sdk", "floor");

    /** The clients of the modern part: each speaks the 2026-07-28 revision (mcp-host by finding it itself). */
    private static final List<String> MODERN_CLIENTS = List.of("mcp-host", "java-sdk-modern", "ts-sdk-v2");

    /** The protocol version of the modern part: a client that speaks another one counts a mismatch. */
    static final String MODERN_PROTOCOL_VERSION = "2026-07-28";

    /** The tools of the modern part's server besides {@code echo}. */
    private static final int MODERN_GENERATED_TOOLS = 100;

    /** How many tools the testkit server has besides the generated {@code tool_<n>}. */
    private static final int TESTKIT_OWN_TOOLS = 11;

    /**
     * The same with {@code --era modern} given: it adds {@code received}, {@code cancellations} and {@code ask},
     * and {@code end_listen} in the modern era.
     */
    static final int TESTKIT_MODERN_OWN_TOOLS = TESTKIT_OWN_TOOLS + 4;

    private final Map<String, String> options = new LinkedHashMap<>();
    private final boolean smoke;
    private final Path repo;
    private final Path out;
    private final Path cds;
    private final String modulePath;
    private final String classPath;
    private final List<String> skip;
    private final ObjectNode results = Proc.JSON.createObjectNode();
    private int processCount;

    private Runner(String[] args) {
        options.putAll(options(args));
        smoke = options.containsKey("--smoke");
        repo = Path.of(options.getOrDefault("--repo", ".")).toAbsolutePath().normalize();
        out = Path.of(options.getOrDefault("--out", repo.resolve("mcp.bench/target/bench").toString())).toAbsolutePath();
        cds = out.resolve("cds");
        modulePath = required("--module-path");
        classPath = required("--class-path");
        skip = Arrays.asList(options.getOrDefault("--skip", "").split(","));
    }

    /**
     * @param args {@code --name value} pairs, and {@code --smoke} alone
     * @return the options by name, in their order ({@code --smoke} maps to {@code "true"})
     */
    static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--smoke")) {
                options.put("--smoke", "true");
            } else if (i + 1 < args.length) {
                options.put(args[i], args[++i]);
            } else {
                throw new IllegalArgumentException("missing value for " + args[i]);
            }
        }
        return options;
    }

    private String required(String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }

    /**
     * Runs the benchmark; see the class comment.
     *
     * @param args the command line
     * @throws Exception if a part cannot run at all
     */
    public static void main(String[] args) throws Exception {
        ObjectNode results = run(args);
        System.exit(results.path("problems").isEmpty() ? 0 : 1);
    }

    /**
     * Runs the benchmark and returns the results document (also written to {@code results.json}).
     *
     * @param args the command line
     * @return the results
     * @throws Exception if a part cannot run at all
     */
    public static ObjectNode run(String[] args) throws Exception {
        Runner runner = new Runner(args);
        runner.runAll();
        return runner.results;
    }

    private void runAll() throws Exception {
        Files.createDirectories(cds);
        long start = System.nanoTime();
        results.put("date", LocalDate.now().toString());
        results.set("machine", machine());
        results.putArray("problems");
        results.put("loadBefore", loadAverage());
        String testkitArchive = smoke ? null : trainTestkitArchive();
        if (!skip.contains("clients")) {
            if (!smoke) {
                trainClientArchives(testkitServer(testkitArchive, 100));
            }
            int tools = smoke ? 100 : 1000;
            int rounds = smoke ? 1 : Integer.parseInt(options.getOrDefault("--rounds", "5"));
            List<String> clientArgs = smoke
                    ? List.of("--warmup", "20", "--calls", "100", "--inflight", "16", "--seconds", "0.3")
                    : List.of("--warmup", "2000", "--calls", "5000", "--inflight", "16", "--seconds", "3");
            // The testkit server lists its own tools (echo, add, ...) before the generated ones.
            clientComparison("testkit", testkitServer(testkitArchive, tools), tools + TESTKIT_OWN_TOOLS, "", rounds,
                    clientArgs, CLIENTS, null);
            Path everything = repo.resolve("interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
            if (!smoke && !skip.contains("everything") && Files.isRegularFile(everything)) {
                clientComparison("everything", List.of("node", everything.toString(), "stdio"), -1, "Echo: ",
                        2, List.of("--warmup", "500", "--calls", "2000", "--inflight", "16", "--seconds", "2"), CLIENTS,
                        null);
            }
        }
        if (!skip.contains("modern")) {
            modern(testkitArchive);
        }
        if (!skip.contains("scale")) {
            scale(testkitArchive);
        }
        if (!smoke && !skip.contains("cli")) {
            cli(testkitArchive);
        }
        if (!smoke && !skip.contains("jmh")) {
            jmh();
        }
        results.put("loadAfter", loadAverage());
        results.put("totalSeconds", (System.nanoTime() - start) / 1e9);
        results.put("processes", processCount);
        Files.writeString(out.resolve("results.json"), Proc.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(results));
        String report = Report.markdown(results, command());
        Files.writeString(out.resolve("report.md"), report);
        String target = options.get("--report");
        if (target != null) {
            Report.replaceGenerated(Path.of(target), report);
        }
        if (!smoke) {
            System.out.println(report);
        }
    }

    private String command() {
        return options.getOrDefault("--command", "bench/run.sh");
    }

    private void problem(String text) {
        System.err.println("bench: PROBLEM: " + text);
        ((ArrayNode) results.get("problems")).add(text);
    }

    private void note(String text) {
        System.err.println("bench: note: " + text);
        results.withArray("/notes").add(text);
    }

    private void log(String text) {
        System.err.println("bench: " + text);
    }

    // ------------------------------------------------------------------ servers and clients

    /** The testkit server's command, with its class-data archive when one was made. */
    private static List<String> testkitServer(String archive, int tools) {
        List<String> command = TestServers.command("--tools", String.valueOf(tools), "--page-size", "100");
        if (archive != null) {
            command.add(1, "-XX:SharedArchiveFile=" + archive);
            command.add(2, "-Xlog:disable");
        }
        return command;
    }

    private String trainTestkitArchive() throws IOException, InterruptedException {
        return trainTestkitArchive(cds, out);
    }

    /**
     * Records a class-data archive of the testkit server from one short session, so that the many
     * server JVMs of the run start faster (for every client alike).
     *
     * @param cds the directory of the archive
     * @param logs where the training server's stderr goes
     * @return the archive, or {@code null} when none was made
     */
    static String trainTestkitArchive(Path cds, Path logs) throws IOException, InterruptedException {
        Files.createDirectories(cds);
        Files.createDirectories(logs);
        Path archive = cds.resolve("testkit.jsa");
        Files.deleteIfExists(archive);
        List<String> command = TestServers.command("--tools", "100", "--page-size", "100");
        command.add(1, "-XX:ArchiveClassesAtExit=" + archive);
        command.add(2, "-Xlog:disable");
        Process server = new ProcessBuilder(command).redirectError(logs.resolve("cds-testkit.err").toFile()).start();
        try (OutputStream in = server.getOutputStream();
                BufferedReader reply = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            String[] lines = {
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"cds\",\"version\":\"1\"}}}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"x\"}}}",
                "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}",
            };
            for (String line : lines) {
                in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                in.flush();
                if (line.contains("\"id\"")) {
                    reply.readLine();
                }
            }
        }
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            server.destroyForcibly();
        }
        boolean made = Files.isRegularFile(archive);
        System.err.println("bench: testkit class-data archive: " + (made ? archive : "not made (see cds-testkit.err)"));
        return made ? archive.toString() : null;
    }

    /** Records one class-data archive per Java client from a short run, so each starts as fast as it can. */
    private void trainClientArchives(List<String> server) throws IOException, InterruptedException {
        for (String client : List.of("mcp-host", "java-sdk", "floor")) {
            trainArchive(client, server, "");
        }
    }

    /**
     * Records the class-data archive of one Java client from a short run against this server.
     *
     * @param part "" for the archive of the 2025 parts, else the part whose runs use it (the modern part's
     *     mcp-host runs its stateless path, which the testkit training never loads)
     */
    private void trainArchive(String client, List<String> server, String part) throws IOException, InterruptedException {
        String name = part.isEmpty() ? client : client + "-" + part;
        Path archive = cds.resolve(name + ".jsa");
        Files.deleteIfExists(archive);
        List<String> command = clientCommand(client, List.of("--warmup", "50", "--calls", "50", "--seconds", "0.2"),
                server, "-XX:ArchiveClassesAtExit=" + archive, part);
        Outcome outcome = Proc.run(command, repo, Map.of(), out.resolve("logs/cds-" + name + ".err"), 120);
        processCount++;
        log("class-data archive of " + name + ": " + (Files.isRegularFile(archive) ? "made" : "not made")
                + (outcome.ok() ? "" : " (training run failed: exit " + outcome.exitCode() + ")"));
    }

    /** @param part the part whose archive the client uses when it has one of its own ("" for none) */
    private List<String> clientCommand(String client, List<String> clientArgs, List<String> server, String cdsFlag,
            String part) {
        List<String> command = new ArrayList<>();
        if (client.equals("ts-sdk") || client.equals("ts-sdk-v2")) {
            String script = client.equals("ts-sdk") ? "bench/ts-client.mjs" : "bench/ts-client-v2.mjs";
            command.addAll(List.of(node(), "--expose-gc", repo.resolve(script).toString()));
        } else {
            command.add(Proc.java());
            command.addAll(CLIENT_JVM_FLAGS);
            Path own = cds.resolve(client + "-" + part + ".jsa");
            if (cdsFlag != null) {
                command.add(cdsFlag);
            } else if (!part.isEmpty() && Files.isRegularFile(own)) {
                command.add("-XX:SharedArchiveFile=" + own);
            } else if (Files.isRegularFile(cds.resolve(client + ".jsa"))) {
                command.add("-XX:SharedArchiveFile=" + cds.resolve(client + ".jsa"));
            }
            switch (client) {
                case "mcp-host" -> command.addAll(List.of("-p", modulePath, "-m", "mcp.bench/mcp.bench.internal.HostClient"));
                case "floor" -> command.addAll(List.of("-p", modulePath, "-m", "mcp.bench/mcp.bench.internal.FloorClient"));
                case "java-sdk" -> command.addAll(List.of("-cp", classPath, "mcp.bench.sdk.SdkClient"));
                case "java-sdk-modern" -> command.addAll(List.of("-cp", classPath, "mcp.bench.sdk.SdkModernClient"));
                default -> throw new IllegalArgumentException(client);
            }
        }
        command.add("--t0");
        command.add(String.valueOf(System.nanoTime()));
        command.addAll(clientArgs);
        command.add("--");
        command.addAll(server);
        return command;
    }

    private String node() {
        return options.getOrDefault("--node", "node");
    }

    /** @return whether the Node client runs: its SDK package ({@code sdk} for v1, {@code client} for v2) is installed */
    private boolean nodeClientAvailable(String client) {
        String pkg = client.equals("ts-sdk") ? "sdk" : "client";
        return !smoke && !skip.contains("node")
                && Files.isDirectory(repo.resolve("bench/node_modules/@modelcontextprotocol/" + pkg));
    }

    /**
     * @param expectProtocol the protocol version every client must speak, or {@code null} for any
     */
    private void clientComparison(String serverName, List<String> server, int expectTools, String prefix, int rounds,
            List<String> clientArgs, List<String> partClients, String expectProtocol)
            throws IOException, InterruptedException {
        List<String> clients = new ArrayList<>(partClients);
        for (String node : List.of("ts-sdk", "ts-sdk-v2")) {
            if (clients.contains(node) && !nodeClientAvailable(node)) {
                clients.remove(node);
                if (!smoke && !skip.contains("node")) {
                    problem("the TypeScript SDK client " + node + " is not installed (bench/node_modules): run bench/run.sh");
                }
            }
        }
        List<String> args = new ArrayList<>(clientArgs);
        args.addAll(List.of("--expect-prefix", prefix));
        if (expectTools >= 0) {
            args.addAll(List.of("--expect-tools", String.valueOf(expectTools)));
        }
        if (expectProtocol != null) {
            args.addAll(List.of("--expect-protocol", expectProtocol));
        }
        ObjectNode section = ((ObjectNode) results.withObject("/clients")).putObject(serverName);
        section.put("server", String.join(" ", server.subList(0, Math.min(server.size(), 1))) + " ...");
        section.put("rounds", rounds);
        section.put("workload", String.join(" ", clientArgs));
        if (expectProtocol != null) {
            section.put("protocol", expectProtocol);
        }
        ObjectNode runs = section.putObject("runs");
        clients.forEach(runs::putArray);
        for (int round = 1; round <= rounds; round++) {
            for (String client : clients) {
                List<String> command = clientCommand(client, args, server, null, serverName);
                Outcome outcome = Proc.run(command, repo, Map.of(),
                        out.resolve("logs/" + serverName + "-" + client + "-" + round + ".err"), 300);
                processCount++;
                if (outcome.result() == null) {
                    problem(serverName + "/" + client + " round " + round + ": no result (exit " + outcome.exitCode()
                            + "; see logs)");
                    continue;
                }
                ((ArrayNode) runs.get(client)).add(outcome.result());
                JsonNode r = outcome.result();
                if (r.has("error") || r.path("mismatches").asLong() != 0 || r.path("failures").asLong() != 0) {
                    // A peer's failed calls are its own result (the Java SDK loses a few under load): noted in
                    // the report. A mismatch, or a failure of mcp-host or the floor, is a problem of the run.
                    boolean peerFailure = !client.equals("mcp-host") && !client.equals("floor")
                            && !r.has("error") && r.path("mismatches").asLong() == 0;
                    (peerFailure ? (Consumer<String>) this::note : (Consumer<String>) this::problem).accept(serverName + "/" + client + " round " + round + ": " + r.path("mismatches").asLong()
                            + " mismatches, " + r.path("failures").asLong() + " failures"
                            + (r.has("error") ? ", error " + r.get("error").asString() : "")
                            + (r.has("firstProblem") ? " (" + r.get("firstProblem").asString() + ")" : ""));
                }
                log(String.format(Locale.ROOT, "%s round %d %-8s launch->init %.0f ms, list %.1f ms, p50 %.0f us, p99 %.0f us, %.0f calls/s",
                        serverName, round, client, r.path("launchToInitMs").asDouble(), r.path("listColdMs").asDouble(),
                        r.path("p50Us").asDouble(), r.path("p99Us").asDouble(), r.path("callsPerSec").asDouble()));
            }
        }
    }

    // ------------------------------------------------------------------ the 2026-07-28 era

    /**
     * The modern part: mcp-host ({@code auto}), the Java SDK 2.2.0's modern client and the TypeScript SDK v2
     * client on one server of the 2026-07-28 revision, the TypeScript SDK v2 server {@code bench/ts-server-v2.mjs}
     * (stateless over stdio, refusing {@code initialize}); every client must say it speaks 2026-07-28. In the
     * smoke run the server is the testkit server in its modern era (no npm needed) and the Node client is left
     * out.
     */
    private void modern(String testkitArchive) throws IOException, InterruptedException {
        List<String> server;
        int expectTools;
        Path tsServer = repo.resolve("bench/ts-server-v2.mjs");
        if (smoke) {
            server = testkitServer(null, 100);
            server.addAll(List.of("--era", "modern"));
            expectTools = 100 + TESTKIT_MODERN_OWN_TOOLS;
        } else if (Files.isDirectory(repo.resolve("bench/node_modules/@modelcontextprotocol/server"))) {
            server = List.of(node(), tsServer.toString(), "--tools", String.valueOf(MODERN_GENERATED_TOOLS));
            expectTools = MODERN_GENERATED_TOOLS + 1;
        } else {
            problem("the modern part's server (@modelcontextprotocol/server in bench/node_modules) is not installed:"
                    + " run bench/run.sh");
            return;
        }
        if (!smoke) {
            // Both Java clients of the part get an archive recorded against this server, on the path they run here.
            trainArchive("mcp-host", server, "modern");
            trainArchive("java-sdk-modern", server, "modern");
        }
        int rounds = smoke ? 1 : Integer.parseInt(options.getOrDefault("--rounds", "5"));
        List<String> clientArgs = smoke
                ? List.of("--warmup", "20", "--calls", "100", "--inflight", "16", "--seconds", "0.3")
                : List.of("--warmup", "2000", "--calls", "5000", "--inflight", "16", "--seconds", "3");
        clientComparison("modern", server, expectTools, "", rounds, clientArgs, MODERN_CLIENTS, MODERN_PROTOCOL_VERSION);
    }

    // ------------------------------------------------------------------ startup at scale

    private void scale(String testkitArchive) throws IOException, InterruptedException {
        List<String> server = testkitServer(testkitArchive, 0);
        // TestServers.command ends with "--tools 0 --page-size 100": keep it, the scale runners append per-server args.
        int[] counts = smoke ? new int[] {1} : new int[] {1, 10, 50};
        int baseRounds = smoke ? 1 : Integer.parseInt(options.getOrDefault("--scale-rounds", "3"));
        ObjectNode section = results.putObject("scale");
        if (!smoke) {
            trainScaleArchives(server);
        }
        for (int n : counts) {
            for (String mode : smoke ? List.of("cold") : List.of("cold", "warm")) {
                // 50 JVM servers cost 4-20 s of the machine per run: two rounds there keep the run in minutes (one
                // cold round was too few: a single busy moment of the machine made it the table's figure).
                int rounds = n < 50 ? baseRounds : Math.min(baseRounds, 2);
                int slow = mode.equals("warm") ? n / 10 : 0;
                String key = n + "-" + mode;
                ObjectNode entry = section.putObject(key);
                entry.put("servers", n);
                entry.put("mode", mode);
                entry.put("slow", slow);
                ObjectNode runs = entry.putObject("runs");
                runs.putArray("mcp-host");
                runs.putArray("java-sdk");
                Path warmCache = out.resolve("scale-cache-" + key);
                deleteTree(warmCache);
                if (mode.equals("warm")) {
                    // Fill the cache: the same servers, waited for (an empty cache cannot defer anything).
                    Outcome fill = Proc.run(scaleCommand("mcp-host", n, slow, warmCache, server), repo, Map.of(),
                            out.resolve("logs/scale-" + key + "-fill.err"), 300);
                    processCount++;
                    if (!fill.ok()) {
                        problem("scale " + key + ": filling the cache failed (exit " + fill.exitCode() + ")");
                    }
                }
                for (int round = 1; round <= rounds; round++) {
                    for (String client : List.of("mcp-host", "java-sdk")) {
                        Path cache = mode.equals("warm") ? warmCache : out.resolve("scale-cache-cold-" + round);
                        if (mode.equals("cold")) {
                            deleteTree(cache);
                        }
                        Outcome outcome = Proc.run(scaleCommand(client, n, slow, cache, server), repo, Map.of(),
                                out.resolve("logs/scale-" + key + "-" + client + "-" + round + ".err"), 300);
                        processCount++;
                        if (outcome.result() == null || outcome.result().path("errors").asInt() != 0) {
                            problem("scale " + key + " " + client + " round " + round + ": "
                                    + (outcome.result() == null ? "no result" : outcome.result().path("errors").asInt() + " errors"));
                            if (outcome.result() == null) {
                                continue;
                            }
                        }
                        ((ArrayNode) runs.get(client)).add(outcome.result());
                        log(String.format(Locale.ROOT, "scale %s round %d %-8s tools after %.0f ms (%d tools, %d deferred)",
                                key, round, client, outcome.result().path("toolsReadyMs").asDouble(),
                                outcome.result().path("tools").asInt(), outcome.result().path("deferred").asInt()));
                    }
                }
            }
        }
    }

    /**
     * One class-data archive per scale runner (the same treatment for both), recorded from a run on
     * two servers, one slow; mcp-host's from a warm run, so that the cache path is in it.
     */
    private void trainScaleArchives(List<String> server) throws IOException, InterruptedException {
        Path cache = out.resolve("scale-cache-training");
        deleteTree(cache);
        Proc.run(scaleCommand("mcp-host", 2, 1, cache, server), repo, Map.of(), out.resolve("logs/cds-scale-fill.err"), 120);
        for (String client : List.of("mcp-host", "java-sdk")) {
            Path archive = cds.resolve("scale-" + client + ".jsa");
            Files.deleteIfExists(archive);
            List<String> command = new ArrayList<>(scaleCommand(client, 2, 1, cache, server));
            command.add(1, "-XX:ArchiveClassesAtExit=" + archive);
            Proc.run(command, repo, Map.of(), out.resolve("logs/cds-scale-" + client + ".err"), 120);
            processCount += 2;
            log("class-data archive of the " + client + " scale runner: " + (Files.isRegularFile(archive) ? "made" : "not made"));
        }
    }

    private List<String> scaleCommand(String client, int servers, int slow, Path cache, List<String> server) {
        List<String> command = new ArrayList<>();
        command.add(Proc.java());
        command.addAll(CLIENT_JVM_FLAGS);
        Path archive = cds.resolve("scale-" + client + ".jsa");
        if (Files.isRegularFile(archive)) {
            command.add("-XX:SharedArchiveFile=" + archive);
        }
        if (client.equals("mcp-host")) {
            command.addAll(List.of("-p", modulePath, "-m", "mcp.bench/mcp.bench.internal.ScaleHost",
                    "--cache-dir", cache.toString()));
        } else {
            command.addAll(List.of("-cp", classPath, "mcp.bench.sdk.SdkScale"));
        }
        command.addAll(List.of("--servers", String.valueOf(servers), "--slow", String.valueOf(slow), "--slow-ms", "2000",
                "--"));
        command.addAll(server);
        return command;
    }

    // ------------------------------------------------------------------ whole-process CLI

    private void cli(String testkitArchive) throws IOException, InterruptedException {
        Path image = repo.resolve("mcp.cli/target/image/bin/mcp-host");
        Path inspectorBench = repo.resolve("bench/node_modules/@modelcontextprotocol/inspector");
        if (!Files.isExecutable(image) || !Files.isDirectory(inspectorBench)) {
            problem("CLI comparison skipped: " + (Files.isExecutable(image) ? "" : image + " missing; ")
                    + (Files.isDirectory(inspectorBench) ? "" : "the inspector is not installed in bench/"));
            return;
        }
        Path home = out.resolve("cli-home");
        deleteTree(home);
        Files.createDirectories(home);
        Path everything = repo.resolve("interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        Map<String, List<String>> servers = new LinkedHashMap<>();
        servers.put("everything", List.of("node", everything.toString(), "stdio"));
        servers.put("testkit", testkitServer(testkitArchive, 1000));
        ObjectNode section = results.putObject("cli");
        int rounds = Integer.parseInt(options.getOrDefault("--cli-rounds", "3"));
        Map<String, String> env = Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", home.resolve(".config").toString(),
                "XDG_CACHE_HOME", home.resolve(".cache").toString(), "npm_config_update_notifier", "false",
                "NO_UPDATE_NOTIFIER", "1");
        for (Map.Entry<String, List<String>> entry : servers.entrySet()) {
            String name = entry.getKey();
            List<String> server = entry.getValue();
            Path config = out.resolve("cli-" + name + ".json");
            ObjectNode doc = Proc.JSON.createObjectNode();
            ObjectNode spec = doc.putObject("mcpServers").putObject(name);
            spec.put("command", server.get(0));
            ArrayNode args = spec.putArray("args");
            server.subList(1, server.size()).forEach(args::add);
            Files.writeString(config, Proc.JSON.writeValueAsString(doc));
            Path cacheDir = out.resolve("cli-cache-" + name);
            deleteTree(cacheDir);
            List<String> host = List.of(image.toString(), "tools", "--config", config.toString(), "--no-project-config",
                    "--cache-dir", cacheDir.toString());
            List<String> inspector = new ArrayList<>(List.of("npx", "@modelcontextprotocol/inspector", "--cli"));
            inspector.addAll(server);
            inspector.addAll(List.of("--method", "tools/list"));
            // Fill mcp-host's cache (warm start measured), and let npx and the file cache settle.
            Proc.run(host, repo, env, out.resolve("logs/cli-" + name + "-fill.err"), 120);
            Proc.run(inspector, repo.resolve("bench"), env, out.resolve("logs/cli-" + name + "-inspector-fill.err"), 120);
            ObjectNode entryNode = section.putObject(name);
            entryNode.put("mcpHostCommand", "mcp-host tools --config " + name + ".json --no-project-config --cache-dir DIR");
            entryNode.put("inspectorCommand", "npx @modelcontextprotocol/inspector --cli " + (name.equals("everything")
                    ? "node .../server-everything/dist/index.js stdio" : "java ... mcp.testkit.TestServer --tools 1000")
                    + " --method tools/list");
            ArrayNode hostRuns = entryNode.putArray("mcp-host");
            ArrayNode inspectorRuns = entryNode.putArray("inspector");
            String expected = name.equals("everything") ? "echo" : "tool_999";
            for (int round = 1; round <= rounds; round++) {
                Outcome h = Proc.run(host, repo, env, out.resolve("logs/cli-" + name + "-host-" + round + ".err"), 120);
                Outcome i = Proc.run(inspector, repo.resolve("bench"), env,
                        out.resolve("logs/cli-" + name + "-inspector-" + round + ".err"), 120);
                processCount += 2;
                check("cli " + name + " mcp-host round " + round, h, expected);
                check("cli " + name + " inspector round " + round, i, expected);
                hostRuns.add(h.wallMs());
                inspectorRuns.add(i.wallMs());
                log(String.format(Locale.ROOT, "cli %s round %d: mcp-host %.0f ms, inspector %.0f ms", name, round,
                        h.wallMs(), i.wallMs()));
            }
        }
    }

    private void check(String what, Outcome outcome, String expected) {
        if (outcome.exitCode() != 0 || !outcome.stdout().contains(expected)) {
            problem(what + ": exit " + outcome.exitCode() + ", output " + (outcome.stdout().contains(expected)
                    ? "ok" : "lacks \"" + expected + "\""));
        }
    }

    // ------------------------------------------------------------------ JMH

    private void jmh() throws IOException, InterruptedException {
        Path json = out.resolve("jmh.json");
        Files.deleteIfExists(json);
        List<String> command = new ArrayList<>(List.of(Proc.java(), "-cp", classPath, "org.openjdk.jmh.Main",
                "-f", "1", "-wi", "2", "-w", "1s", "-i", "3", "-r", "1s", "-rf", "json", "-rff", json.toString(),
                "mcp.bench.jmh"));
        Outcome outcome = Proc.run(command, repo, Map.of(), out.resolve("logs/jmh.err"), 600);
        processCount++;
        Files.writeString(out.resolve("jmh.txt"), outcome.stdout());
        if (outcome.exitCode() != 0 || !Files.isRegularFile(json)) {
            problem("JMH failed (exit " + outcome.exitCode() + "; see logs/jmh.err)");
            return;
        }
        ArrayNode list = results.putArray("jmh");
        for (JsonNode benchmark : Proc.JSON.readTree(json.toFile())) {
            ObjectNode row = list.addObject();
            String name = benchmark.path("benchmark").asString();
            row.put("benchmark", name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1));
            JsonNode params = benchmark.path("params");
            if (params.isObject() && !params.isEmpty()) {
                row.put("params", params.toString());
            }
            row.put("mode", benchmark.path("mode").asString());
            row.put("score", benchmark.path("primaryMetric").path("score").asDouble());
            row.put("error", benchmark.path("primaryMetric").path("scoreError").asDouble());
            row.put("unit", benchmark.path("primaryMetric").path("scoreUnit").asString());
        }
    }

    // ------------------------------------------------------------------ machine

    private ObjectNode machine() {
        ObjectNode machine = Proc.JSON.createObjectNode();
        machine.put("nproc", Runtime.getRuntime().availableProcessors());
        machine.put("uname", firstLine(List.of("uname", "-r")));
        machine.put("java", firstLine(List.of(Proc.java(), "-version")));
        machine.put("node", firstLine(List.of(node(), "--version")));
        machine.put("cpu", cpuModel());
        return machine;
    }

    /** @return the 1, 5 and 15 minute load averages: other work on the machine skews every figure */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unavailable";
        }
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    private static String firstLine(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(10, TimeUnit.SECONDS);
            return text.lines().findFirst().orElse("").trim();
        } catch (IOException e) {
            return "unavailable";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unavailable";
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}

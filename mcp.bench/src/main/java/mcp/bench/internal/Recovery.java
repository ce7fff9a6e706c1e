package mcp.bench.internal;

import java.io.IOException;
import java.io.InputStream;
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
import java.util.concurrent.TimeUnit;
import mcp.bench.internal.Proc.Outcome;
import mcp.testkit.TestServers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The recovery bench of issue 17 (BENCHMARKS.md, "Recovery"): three parts, each in processes of its own.
 * <ul>
 *   <li>{@code soak}: {@link Soak} in one JVM, 1,000 connect/close cycles and 300 kills of a server, idle and
 *       mid-call, beside a bystander server that is called all along;
 *   <li>{@code flood}: {@link Flood} in one JVM, 1,000,000 progress notifications to a blocked consumer and
 *       100,000 junk frames of each kind to a blocked listener: heap after GC and log lines;
 *   <li>{@code exit}: the whole-process time of {@code mcp-host tools} (the jlink image) with a warm cache and one
 *       server that delays its handshake by 5 s, the time until its output was complete, whether the slow server
 *       outlived it; beside the inspector CLI ({@code npx @modelcontextprotocol/inspector --cli ... --method
 *       tools/list}, installed in {@code bench/} from its lock file) on the same server, alternated.
 * </ul>
 * Writes {@code recovery.json} and {@code recovery.md} into the output directory and prints the latter.
 *
 * <p>Command line: {@code --repo DIR --module-path MP --log-path LP [--out DIR] [--parts soak,flood,exit]
 * [--smoke] [--connect-cycles N] [--kill-cycles N] [--progress N] [--junk N] [--exit-rounds N] [--image DIR] [--inspector false]}
 * ({@code DIR}: the runtime image whose {@code bin/mcp-host} the exit part runs, by default
 * {@code mcp.cli/target/image}; {@code --inspector false} leaves the inspector out); {@code LP} is the
 * module path of the host's logging backend (tinylog), which only the flood process gets. {@code --smoke}: a few
 * cycles and small floods, no {@code exit} part, for CI (no timing is asserted anywhere).
 */
public final class Recovery {

    /** mcp-host's startup gate: {@code tools} returns the cached tools of a slow server after it. */
    static final long GATE_MS = 250;
    /** The bound on the exit of a one-shot command after the gate. */
    static final long EXIT_AFTER_GATE_MS = 300;

    private final Map<String, String> options = new LinkedHashMap<>();
    private final boolean smoke;
    private final Path repo;
    private final Path out;
    private final ObjectNode results = Proc.JSON.createObjectNode();

    private Recovery(String[] args) {
        options.putAll(Runner.options(args));
        smoke = options.containsKey("--smoke");
        repo = Path.of(options.getOrDefault("--repo", ".")).toAbsolutePath().normalize();
        out = Path.of(options.getOrDefault("--out", repo.resolve("mcp.bench/target/recovery").toString()))
                .toAbsolutePath();
    }

    /**
     * Runs the parts; see the class comment.
     *
     * @param args the command line
     * @throws Exception if a part cannot run at all
     */
    public static void main(String[] args) throws Exception {
        ObjectNode results = run(args);
        System.out.println(Files.readString(Path.of(results.path("report").asString())));
        System.exit(results.path("problems").isEmpty() ? 0 : 1);
    }

    /**
     * @param args the command line
     * @return the results (also in {@code recovery.json})
     * @throws Exception if a part cannot run at all
     */
    public static ObjectNode run(String[] args) throws Exception {
        Recovery recovery = new Recovery(args);
        recovery.runAll();
        return recovery.results;
    }

    private void runAll() throws Exception {
        Files.createDirectories(out);
        results.put("date", LocalDate.now().toString());
        results.put("nproc", Runtime.getRuntime().availableProcessors());
        results.putArray("problems");
        results.put("loadBefore", Runner.loadAverage());
        List<String> parts = Arrays.asList(options.getOrDefault("--parts", smoke ? "soak,flood" : "soak,flood,exit")
                .split(","));
        String archive = smoke ? null : Runner.trainTestkitArchive(out.resolve("cds"), out.resolve("logs"));
        if (parts.contains("soak")) {
            soak(archive);
        }
        if (parts.contains("flood")) {
            flood(archive);
        }
        if (parts.contains("exit")) {
            exit(archive);
        }
        results.put("loadAfter", Runner.loadAverage());
        Path report = out.resolve("recovery.md");
        Files.writeString(report, markdown(results));
        results.put("report", report.toString());
        Files.writeString(out.resolve("recovery.json"), Proc.JSON.writerWithDefaultPrettyPrinter()
                .writeValueAsString(results));
    }

    private void problem(String text) {
        System.err.println("recovery: PROBLEM: " + text);
        results.withArray("/problems").add(text);
    }

    private String option(String name, String full, String smokeValue) {
        return options.getOrDefault(name, smoke ? smokeValue : full);
    }

    /** The testkit server's command (JVM, class path, main class) without server options. */
    private static List<String> testkit(String archive) {
        List<String> command = TestServers.command();
        if (archive != null) {
            command.add(1, "-XX:SharedArchiveFile=" + archive);
            command.add(2, "-Xlog:disable");
        }
        return command;
    }

    private List<String> benchJvm(String modulePath, String main) {
        List<String> command = new ArrayList<>(List.of(Proc.java()));
        command.addAll(Runner.CLIENT_JVM_FLAGS);
        command.addAll(List.of("-p", modulePath, "-m", "mcp.bench/" + main));
        return command;
    }

    private String modulePath() {
        String value = options.get("--module-path");
        if (value == null) {
            throw new IllegalArgumentException("--module-path is required");
        }
        return value;
    }

    // ------------------------------------------------------------------ soak and flood

    private void soak(String archive) throws IOException, InterruptedException {
        List<String> command = benchJvm(modulePath(), "mcp.bench.internal.Soak");
        command.addAll(List.of("--connect-cycles", option("--connect-cycles", "1000", "3"),
                "--kill-cycles", option("--kill-cycles", "300", "2"), "--"));
        command.addAll(testkit(archive));
        System.err.println("recovery: soak (stderr: " + out.resolve("logs/soak.err") + ")");
        Outcome outcome = Proc.run(command, repo, Map.of(), out.resolve("logs/soak.err"), 3 * 3600);
        part("soak", outcome);
    }

    private void flood(String archive) throws IOException, InterruptedException {
        String logPath = options.get("--log-path");
        if (logPath == null) {
            problem("flood: --log-path (the logging backend's module path) is missing; log lines are not counted");
        }
        List<String> command = benchJvm(modulePath() + (logPath == null ? "" : ":" + logPath), "mcp.bench.internal.Flood");
        command.addAll(List.of("--progress", option("--progress", "1000000", "2000"), "--junk",
                option("--junk", "100000", "1000"), "--sizes", option("--sizes", "0.1,1", "1"), "--"));
        command.addAll(testkit(archive));
        System.err.println("recovery: flood (stderr, the host's log: " + out.resolve("logs/flood.err") + ")");
        Outcome outcome = Proc.run(command, repo, Map.of(), out.resolve("logs/flood.err"), 3600);
        part("flood", outcome);
    }

    private void part(String name, Outcome outcome) {
        if (outcome.result() == null) {
            problem(name + ": no result (exit " + outcome.exitCode() + "; see logs/" + name + ".err)");
            return;
        }
        results.set(name, outcome.result());
        outcome.result().path("problems").forEach(p -> problem(name + ": " + p.asString()));
        if (outcome.exitCode() != 0 && outcome.result().path("problems").isEmpty()) {
            problem(name + ": exit " + outcome.exitCode());
        }
    }

    // ------------------------------------------------------------------ exit of a one-shot command

    /** A timed whole process: when its last stdout byte came, when it exited, from its start. */
    record Timed(int exitCode, String stdout, double outputMs, double exitMs) {
    }

    private void exit(String archive) throws IOException, InterruptedException {
        Path image = Path.of(options.getOrDefault("--image", repo.resolve("mcp.cli/target/image").toString()))
                .resolve("bin/mcp-host");
        Path inspector = repo.resolve("bench/node_modules/@modelcontextprotocol/inspector");
        if (!Files.isExecutable(image) || !Files.isDirectory(inspector)) {
            problem("exit part skipped: " + (Files.isExecutable(image) ? "" : image + " missing; ")
                    + (Files.isDirectory(inspector) ? "" : "the inspector is not installed in bench/ (bench/recovery.sh)"));
            return;
        }
        Path home = out.resolve("exit-home");
        Runner.deleteTree(home);
        Files.createDirectories(home);
        Map<String, String> env = Map.of("HOME", home.toString(), "XDG_CONFIG_HOME", home.resolve(".config").toString(),
                "XDG_CACHE_HOME", home.resolve(".cache").toString(), "npm_config_update_notifier", "false",
                "NO_UPDATE_NOTIFIER", "1");
        // A name of its own, so that a server process left behind by either command can be found.
        String marker = "slow-" + UUID.randomUUID().toString().substring(0, 8);
        List<String> server = testkit(archive);
        server.addAll(List.of("--tools", "1000", "--page-size", "100", "--init-delay-ms", "5000", "--name", marker));
        Path config = out.resolve("exit-slow.json");
        ObjectNode doc = Proc.JSON.createObjectNode();
        ObjectNode spec = doc.putObject("mcpServers").putObject("slow");
        spec.put("command", server.get(0));
        ArrayNode args = spec.putArray("args");
        server.subList(1, server.size()).forEach(args::add);
        Files.writeString(config, Proc.JSON.writeValueAsString(doc));
        Path cache = out.resolve("exit-cache");
        Runner.deleteTree(cache);
        // The fill run must wait for the slow server whatever the machine's load, past the default uncached wait; the
        // runs measured after it find the server cached, so the option changes nothing for them.
        List<String> host = List.of(image.toString(), "tools", "--config", config.toString(), "--no-project-config",
                "--cache-dir", cache.toString(), "--uncached-wait", "120000");
        List<String> npx = new ArrayList<>(List.of("npx", "@modelcontextprotocol/inspector", "--cli"));
        npx.addAll(server);
        npx.addAll(List.of("--method", "tools/list"));
        ObjectNode section = results.putObject("exit");
        section.put("gateMs", GATE_MS);
        section.put("boundMs", GATE_MS + EXIT_AFTER_GATE_MS);
        section.put("mcpHostCommand", "mcp.cli/target/image/bin/mcp-host tools --config slow.json --no-project-config"
                + " --cache-dir DIR --uncached-wait 120000");
        section.put("inspectorCommand", "npx @modelcontextprotocol/inspector --cli java ... mcp.testkit.TestServer"
                + " --tools 1000 --init-delay-ms 5000 --method tools/list");
        // The cache is filled by a first run that waits for the slow server; npx settles on its first run.
        Timed fill = timed(host, repo, env, "exit-fill");
        section.put("fillMs", fill.exitMs());
        check("fill", fill, "tool_999");
        boolean withInspector = !options.getOrDefault("--inspector", "true").equals("false");
        if (withInspector) {
            timed(npx, repo.resolve("bench"), env, "exit-inspector-fill");
        }
        int rounds = Integer.parseInt(options.getOrDefault("--exit-rounds", "10"));
        ArrayNode hostRuns = section.putArray("mcp-host");
        ArrayNode inspectorRuns = section.putArray("inspector");
        int leftBehind = 0;
        for (int round = 1; round <= rounds; round++) {
            Timed h = timed(host, repo, env, "exit-host-" + round);
            check("mcp-host round " + round, h, "tool_999");
            Thread.sleep(1000);
            long left = processesNamed(marker);
            leftBehind += left;
            if (left != 0) {
                problem("exit round " + round + ": " + left + " server process(es) of mcp-host tools alive 1 s after it");
                ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(marker))
                        .forEach(ProcessHandle::destroyForcibly);
            }
            if (!withInspector) {
                hostRuns.addObject().put("outputMs", h.outputMs()).put("exitMs", h.exitMs());
                System.err.printf(Locale.ROOT, "recovery: exit round %d: mcp-host output %.0f ms, exit %.0f ms%n", round,
                        h.outputMs(), h.exitMs());
                continue;
            }
            Timed i = timed(npx, repo.resolve("bench"), env, "exit-inspector-" + round);
            check("inspector round " + round, i, "tool_999");
            ObjectNode hr = hostRuns.addObject();
            hr.put("outputMs", h.outputMs());
            hr.put("exitMs", h.exitMs());
            ObjectNode ir = inspectorRuns.addObject();
            ir.put("outputMs", i.outputMs());
            ir.put("exitMs", i.exitMs());
            System.err.printf(Locale.ROOT, "recovery: exit round %d: mcp-host output %.0f ms, exit %.0f ms;"
                    + " inspector exit %.0f ms%n", round, h.outputMs(), h.exitMs(), i.exitMs());
            Thread.sleep(1000);
            ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(marker))
                    .forEach(ProcessHandle::destroyForcibly); // the inspector's server, should it linger
        }
        section.put("serverProcessesLeftBehind", leftBehind);
    }

    private void check(String what, Timed run, String expected) {
        if (run.exitCode() != 0 || !run.stdout().contains(expected)) {
            problem("exit " + what + ": exit code " + run.exitCode() + ", output " + (run.stdout().contains(expected)
                    ? "ok" : "lacks \"" + expected + "\""));
        }
    }

    private static long processesNamed(String marker) {
        return ProcessHandle.allProcesses().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().commandLine().orElse("").contains(marker)).count();
    }

    /** Runs a command with stdout on a pipe read here, timing its last byte and the process's exit (bounded). */
    private Timed timed(List<String> command, Path directory, Map<String, String> env, String log)
            throws IOException, InterruptedException {
        Path err = out.resolve("logs/" + log + ".err");
        Files.createDirectories(err.getParent());
        Files.writeString(err.resolveSibling(log + ".cmd"), String.join("\n", command) + "\n");
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().putAll(env);
        long start = System.nanoTime();
        Process process = builder.start();
        long[] lastByte = {start};
        java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[1 << 16];
            try (InputStream in = process.getInputStream()) {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    lastByte[0] = System.nanoTime();
                    stdout.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "exit-stdout");
        reader.start();
        boolean ended = process.waitFor(120, TimeUnit.SECONDS);
        long exit = System.nanoTime();
        if (!ended) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(10_000);
        Files.write(err.resolveSibling(log + ".out"), stdout.toByteArray());
        return new Timed(ended ? process.exitValue() : -1, stdout.toString(StandardCharsets.UTF_8),
                (lastByte[0] - start) / 1e6, (exit - start) / 1e6);
    }

    // ------------------------------------------------------------------ report

    static String markdown(JsonNode r) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Run of %s, %d cores, load average %s before and %s after.%n%n",
                r.path("date").asString(), r.path("nproc").asInt(), r.path("loadBefore").asString(),
                r.path("loadAfter").asString()));
        JsonNode soak = r.path("soak");
        if (soak.isObject()) {
            md.append("#### Soak (one host process; policy ").append(soak.path("policy").asString()).append(")\n\n");
            md.append("| phase | cycles | figure | first | after warm-up | end | max after warm-up | slope per 100 cycles |\n");
            md.append("|---|---:|---|---:|---:|---:|---:|---:|\n");
            for (String phase : List.of("connect", "kill")) {
                JsonNode p = soak.path(phase);
                for (String figure : List.of("fds", "threads", "children", "watchdogs")) {
                    JsonNode f = p.path(figure);
                    md.append(String.format(Locale.ROOT, "| %s | %d | %s | %d | %d | %d | %d | %+.2f |%n", phase,
                            p.path("cycles").asInt(), figure, f.path("first").asLong(), f.path("afterWarmUp").asLong(),
                            f.path("end").asLong(), f.path("maxAfterWarmUp").asLong(),
                            f.path("slopePer100Cycles").asDouble()));
                }
            }
            JsonNode k = soak.path("kill");
            md.append("\n| figure | value |\n|---|---|\n");
            md.append(row("connect → tools (ms) p50 / p95 / max", stats(soak.path("connect").path("connectMs"))));
            md.append(row("kills; drops seen; not back within 60 s", k.path("cycles").asInt() + "; "
                    + k.path("drops").asInt() + "; " + k.path("notBack").asInt()));
            md.append(row("kill → tools live again (ms) p50 / p95 / max", stats(k.path("toolsBackMs"))));
            md.append(row("back at attempt (count of kills)", k.path("backAtAttempt").toString()));
            md.append(row("calls in flight at the kill: failed / succeeded / stuck > 10 s / sent again",
                    k.path("inFlightFailed").asInt() + " / " + k.path("inFlightSucceeded").asInt() + " / "
                    + k.path("inFlightStuck").asInt() + " / " + k.path("inFlightRetried").asInt()));
            md.append(row("kill → call in flight failed (ms) p50 / p95 / max", stats(k.path("inFlightFailMs"))));
            md.append(row("bystander calls ok / failed", soak.path("bystanderCalls").path("ok").asLong() + " / "
                    + soak.path("bystanderCalls").path("failed").asLong()));
            md.append(row("heap after GC (MB): start / end", String.format(Locale.ROOT, "%.1f / %.1f",
                    soak.path("start").path("heapAfterGcMb").asDouble(), soak.path("end").path("heapAfterGcMb").asDouble())));
            md.append(row("processes after close: servers / watchdogs", soak.path("afterClose").path("children").asLong()
                    + " / " + soak.path("afterClose").path("watchdogs").asLong()));
            md.append('\n');
        }
        JsonNode flood = r.path("flood");
        if (flood.isObject()) {
            md.append(String.format(Locale.ROOT, "#### Flood (heap used after GC, MB; -Xmx %.0f MB; idle %.1f MB;"
                    + " peak RSS %.0f MB; %d log lines in all, %d of stack traces)%n%n", flood.path("heapMaxMb").asDouble(),
                    flood.path("idleHeapAfterGcMb").asDouble(), flood.path("peakRssMb").asDouble(),
                    flood.path("logLines").asLong(), flood.path("stackTraceLines").asLong()));
            md.append("| flood | count | heap before | heap during (max) / held | heap after | log lines | seconds |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|\n");
            for (JsonNode size : flood.path("sizes")) {
                JsonNode p = size.path("progress");
                md.append(String.format(Locale.ROOT, "| progress to a blocked consumer | %,d | %.1f | %.1f / %.1f | %.1f | %d | %.1f |%n",
                        p.path("count").asLong(), p.path("heapBeforeMb").asDouble(), p.path("heapMaxWhileArrivingMb").asDouble(),
                        p.path("heapHeldMb").asDouble(), p.path("heapAfterMb").asDouble(), p.path("logLines").asLong(),
                        p.path("arrivedSeconds").asDouble()));
                for (String kind : List.of("junk", "stray-errors", "huge-token", "notifications")) {
                    JsonNode k = size.path("junk").path(kind);
                    md.append(String.format(Locale.ROOT, "| %s%s | %,d | %.1f | | %.1f | %d | %.1f |%n", kind,
                            kind.equals("notifications") ? " to a blocked listener" : "", k.path("count").asLong(),
                            k.path("heapBeforeMb").asDouble(), k.path("heapAfterMb").asDouble(), k.path("logLines").asLong(),
                            k.path("seconds").asDouble()));
                }
            }
            md.append('\n');
        }
        JsonNode exit = r.path("exit");
        if (exit.isObject()) {
            md.append("#### `mcp-host tools` with a cached slow server (`--init-delay-ms 5000`), whole process, ms\n\n");
            md.append("| command | runs | output complete, median (min–max) | exit, median (min–max) | exit − output, median |\n");
            md.append("|---|---:|---:|---:|---:|\n");
            for (String who : List.of("mcp-host", "inspector")) {
                JsonNode runs = exit.path(who);
                double[] output = field(runs, "outputMs");
                double[] exitMs = field(runs, "exitMs");
                double[] gap = new double[output.length];
                for (int i = 0; i < gap.length; i++) {
                    gap[i] = exitMs[i] - output[i];
                }
                md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %.0f |%n", who.equals("mcp-host")
                        ? "`mcp-host tools` (jlink image, warm cache)" : "inspector CLI `--method tools/list`",
                        runs.size(), cell(output), cell(exitMs), Report.median(gap)));
            }
            double[] hostOutput = field(exit.path("mcp-host"), "outputMs");
            double[] hostExit = field(exit.path("mcp-host"), "exitMs");
            int within = 0;
            for (int i = 0; i < hostExit.length; i++) {
                within += hostExit[i] - hostOutput[i] <= EXIT_AFTER_GATE_MS ? 1 : 0;
            }
            double host = Report.median(hostExit);
            double inspector = Report.median(field(exit.path("inspector"), "exitMs"));
            md.append(String.format(Locale.ROOT, "%nmcp-host ÷ inspector (exit, medians): %s; exit within %d ms of the"
                    + " output (the gate's end): %d of %d runs; server processes of `mcp-host tools` alive 1 s after it: %d;"
                    + " cache fill (first run): %,.0f ms%n%n", inspector > 0 ? String.format(Locale.ROOT, "%.2f×",
                    host / inspector) : "–", EXIT_AFTER_GATE_MS, within, hostExit.length,
                    exit.path("serverProcessesLeftBehind").asLong(), exit.path("fillMs").asDouble()));
        }
        JsonNode problems = r.path("problems");
        md.append(problems.isEmpty() ? "Problems in this run: none.\n" : "Problems in this run:\n");
        problems.forEach(p -> md.append("- ").append(p.asString()).append('\n'));
        return md.toString();
    }

    private static String row(String what, String value) {
        return "| " + what + " | " + value + " |\n";
    }

    private static String stats(JsonNode s) {
        return s.path("count").asInt() == 0 ? "–" : String.format(Locale.ROOT, "%,.0f / %,.0f / %,.0f",
                s.path("p50").asDouble(), s.path("p95").asDouble(), s.path("max").asDouble());
    }

    private static double[] field(JsonNode runs, String name) {
        double[] values = new double[runs.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = runs.get(i).path(name).asDouble();
        }
        return values;
    }

    private static String cell(double[] values) {
        if (values.length == 0) {
            return "–";
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%,.0f (%,.0f–%,.0f)", Report.median(values), sorted[0], sorted[sorted.length - 1]);
    }
}

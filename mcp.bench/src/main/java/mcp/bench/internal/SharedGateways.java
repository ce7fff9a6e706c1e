package mcp.bench.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import mcp.testkit.TestServers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The shared gateway's bench: memory and process count for {@code --agents} agents with {@code --servers} user servers,
 * each agent running its own servers ({@code own}: agents × servers upstream processes) against every agent attached
 * to one shared gateway through {@code mcp-host serve --stdio} ({@code shared}: one upstream per server, the gateway,
 * and one attach process per agent).
 *
 * <p>Each row runs in a scratch HOME of its own (with {@code XDG_RUNTIME_DIR}, {@code XDG_CONFIG_HOME},
 * {@code XDG_STATE_HOME} and {@code XDG_CACHE_HOME} under it: a cold tool cache, no other tool's configs) whose
 * {@code ~/.config/mcp-host/mcp.json} names the servers {@code s0}, {@code s1}, ...: the testkit server (a JVM) or the
 * npm reference server {@code server-everything} (Node.js). An agent is an {@link AgentClient} process in one of
 * {@code --projects} project directories (agent i in project i mod projects): in {@code own} it connects to every
 * server itself, in {@code shared} to {@code mcp-host serve --stdio} of the runtime image, which attaches to the
 * user's shared gateway, the first agent's starting it. Either way it has its tools when every server's {@code echo}
 * is listed, then calls each once.
 *
 * <p>The first agent starts alone; once it has its tools the others start at once ({@code --start together}: all at
 * once). Once all hold their sessions, after {@code --settle-ms}, the processes are counted and their memory summed:
 * every descendant of the agents, and the gateway (found by its status line) with its
 * descendants. The agents themselves, and the watchdog shell each agent's stdio transport starts, are the agents'
 * own and are reported apart; everything else (upstreams, the gateway and its watchdog, the attach processes) is the
 * cost of the setup. Then the agents close, the gateway is stopped ({@code mcp-host serve --stop} in the same HOME),
 * and no process of the row may be left.
 *
 * <p>{@code --attach-java-opts OPTS}: the attach processes run with {@code MCP_HOST_JAVA_OPTS=OPTS}; the gateway is
 * then started by the bench (its environment without them) before the agents, so the first agent's time is not a
 * cold start.
 *
 * <p>Command line: {@code --repo DIR --module-path MP [--out DIR] [--agents N] [--servers N] [--projects N]
 * [--upstreams testkit,everything] [--modes own,shared] [--rounds N] [--start staggered|together] [--settle-ms MS]
 * [--attach-java-opts OPTS] [--image DIR] [--node NODE] [--smoke]}. {@code --smoke}: 2 agents, 2 testkit servers, 2
 * projects, one round. Writes {@code shared.json} and {@code shared.md} into the output directory.
 */
public final class SharedGateways {

    private static final String WATCHDOG = "mcp-stdio-watchdog";

    private final Map<String, String> options;
    private final boolean smoke;
    private final Path repo;
    private final Path out;
    private final String modulePath;
    private final Path launcher;
    private final ObjectNode results = Proc.JSON.createObjectNode();
    private String archive;

    private SharedGateways(String[] args) {
        options = Runner.options(args);
        smoke = options.containsKey("--smoke");
        repo = Path.of(options.getOrDefault("--repo", ".")).toAbsolutePath().normalize();
        out = Path.of(options.getOrDefault("--out", repo.resolve("mcp.bench/target/shared").toString())).toAbsolutePath();
        String path = options.get("--module-path");
        if (path == null) {
            throw new IllegalArgumentException("--module-path is required");
        }
        // Absolute: the agents run in their project directories.
        modulePath = Arrays.stream(path.split(java.io.File.pathSeparator)).filter(entry -> !entry.isEmpty())
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        launcher = Path.of(options.getOrDefault("--image", repo.resolve("mcp.cli/target/image").toString()))
                .toAbsolutePath().resolve("bin/mcp-host");
    }

    /**
     * Runs the bench; see the class comment.
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
     * @return the results (also in {@code shared.json})
     * @throws Exception if it cannot run at all
     */
    public static ObjectNode run(String[] args) throws Exception {
        SharedGateways bench = new SharedGateways(args);
        bench.runAll();
        return bench.results;
    }

    private String option(String name, String full, String smokeValue) {
        return options.getOrDefault(name, smoke ? smokeValue : full);
    }

    private void problem(String text) {
        System.err.println("shared: PROBLEM: " + text);
        results.withArray("/problems").add(text);
    }

    private static void log(String text) {
        System.err.println("shared: " + text);
    }

    private void runAll() throws Exception {
        Files.createDirectories(out.resolve("logs"));
        results.put("date", LocalDate.now().toString());
        results.put("nproc", Runtime.getRuntime().availableProcessors());
        results.putArray("problems");
        results.put("loadBefore", Runner.loadAverage());
        ObjectNode settings = results.putObject("settings");
        settings.put("agents", Integer.parseInt(option("--agents", "5", "2")));
        settings.put("servers", Integer.parseInt(option("--servers", "10", "2")));
        settings.put("projects", Integer.parseInt(option("--projects", "3", "2")));
        settings.put("rounds", Integer.parseInt(option("--rounds", "1", "1")));
        settings.put("start", option("--start", "staggered", "staggered"));
        settings.put("settleMs", Long.parseLong(option("--settle-ms", "2000", "500")));
        settings.put("attachJavaOpts", options.getOrDefault("--attach-java-opts", ""));
        List<String> upstreams = Arrays.asList(option("--upstreams", "testkit,everything", "testkit").split(","));
        List<String> modes = Arrays.asList(option("--modes", "own,shared", "own,shared").split(","));
        settings.set("upstreams", Proc.JSON.valueToTree(upstreams));
        settings.set("modes", Proc.JSON.valueToTree(modes));
        if (modes.contains("shared") && !Files.isExecutable(launcher)) {
            problem("no runtime image at " + launcher + ": build it (mvn -B -DskipTests package -pl mcp.bench,mcp.cli -am)");
            modes = modes.stream().filter(m -> !m.equals("shared")).toList();
        }
        if (upstreams.contains("everything") && !Files.isRegularFile(everything())) {
            problem("server-everything is not installed (" + everything() + "): run bash interop/install.sh");
            upstreams = upstreams.stream().filter(u -> !u.equals("everything")).toList();
        }
        if (upstreams.contains("testkit") && !smoke) {
            archive = Runner.trainTestkitArchive(out.resolve("cds"), out.resolve("logs"));
        }
        ObjectNode rows = results.putObject("rows");
        int rounds = settings.path("rounds").asInt();
        for (int round = 1; round <= rounds; round++) {
            for (String upstream : upstreams) {
                List<String> order = new ArrayList<>(modes);
                if (round % 2 == 0) {
                    Collections.reverse(order);
                }
                for (String mode : order) {
                    ObjectNode row = rows.withArray(upstream + "-" + mode).addObject();
                    row.put("round", round);
                    try {
                        runRow(upstream, mode, round, row, settings);
                    } catch (IOException | RuntimeException e) {
                        problem(upstream + " " + mode + " round " + round + ": " + e);
                    }
                }
            }
        }
        results.put("loadAfter", Runner.loadAverage());
        Path report = out.resolve("shared.md");
        Files.writeString(report, markdown(results));
        results.put("report", report.toString());
        Files.writeString(out.resolve("shared.json"), Proc.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(results));
    }

    private Path everything() {
        return repo.resolve("interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    }

    /** @return a server's command line, with a marker by which its processes are found */
    private List<String> upstream(String kind, String marker) {
        if (kind.equals("everything")) {
            return List.of(options.getOrDefault("--node", "node"), everything().toString(), "stdio", marker);
        }
        List<String> command = TestServers.command("--name", marker);
        if (archive != null) {
            command.add(1, "-XX:SharedArchiveFile=" + archive);
            command.add(2, "-Xlog:disable");
        }
        return command;
    }

    // ------------------------------------------------------------------ one row

    /** An agent process and what it said. */
    private static final class Agent {
        final int index;
        final ServerProcess process;
        volatile double launchToToolsMs = Double.NaN;
        JsonNode ready;

        Agent(int index, ServerProcess process) {
            this.index = index;
            this.process = process;
        }
    }

    private void runRow(String kind, String mode, int round, ObjectNode row, JsonNode settings)
            throws IOException, InterruptedException {
        int agents = settings.path("agents").asInt();
        int servers = settings.path("servers").asInt();
        int projects = settings.path("projects").asInt();
        boolean shared = mode.equals("shared");
        String attachOpts = settings.path("attachJavaOpts").asString();
        String marker = "sgb-" + UUID.randomUUID().toString().substring(0, 8);
        String name = kind + "-" + mode + "-" + round;
        // Under /tmp: a Unix socket's address holds about 100 bytes, and no repository above the projects.
        Path scratch = Files.createTempDirectory(Path.of("/tmp"), "mcpsb-");
        Path home = Files.createDirectories(scratch.resolve("home"));
        Path run = Files.createDirectories(scratch.resolve("run"));
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwx------"));
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", home.toString());
        env.put("XDG_RUNTIME_DIR", run.toString());
        env.put("XDG_CONFIG_HOME", home.resolve(".config").toString());
        env.put("XDG_STATE_HOME", home.resolve(".local/state").toString());
        env.put("XDG_CACHE_HOME", home.resolve(".cache").toString());
        env.put("NO_UPDATE_NOTIFIER", "1");
        Path socket = run.resolve("mcp-host").resolve("gateway.sock");

        List<String> names = new ArrayList<>();
        ObjectNode mcpServers = Proc.JSON.createObjectNode();
        Map<String, List<String>> commands = new LinkedHashMap<>();
        for (int i = 0; i < servers; i++) {
            String server = "s" + i;
            names.add(server);
            List<String> command = upstream(kind, marker + "-" + server);
            commands.put(server, command);
            ObjectNode entry = mcpServers.putObject(server).put("command", command.get(0));
            command.subList(1, command.size()).forEach(entry.putArray("args")::add);
        }
        Path config = home.resolve(".config/mcp-host/mcp.json");
        Files.createDirectories(config.getParent());
        ObjectNode root = Proc.JSON.createObjectNode();
        root.set("mcpServers", mcpServers);
        Files.writeString(config, root.toString());
        List<Path> projectDirs = new ArrayList<>();
        for (int p = 0; p < projects; p++) {
            projectDirs.add(Files.createDirectories(scratch.resolve("p" + p)));
        }

        List<Agent> started = new ArrayList<>();
        Long gatewayPid = null;
        List<ProcessHandle> counted = new ArrayList<>();
        try {
            if (shared && !attachOpts.isEmpty()) {
                gatewayPid = preStart(env, socket, name);
            }
            String prefix = kind.equals("everything") ? "Echo: " : "";
            List<Path> specs = new ArrayList<>();
            for (int a = 0; a < agents; a++) {
                Path project = projectDirs.get(a % projects);
                ObjectNode spec = Proc.JSON.createObjectNode().put("gateway", shared).put("expectPrefix", prefix);
                names.forEach(spec.putArray("servers")::add);
                ArrayNode connections = spec.putArray("connections");
                if (shared) {
                    ObjectNode c = connections.addObject().put("name", "mcp-host").put("cwd", project.toString());
                    c.putArray("command").add(launcher.toString()).add("serve").add("--stdio");
                    ObjectNode e = c.putObject("env");
                    env.forEach(e::put);
                    // The attach process's JVM options (the launcher's), never an inherited value.
                    e.put("MCP_HOST_JAVA_OPTS", attachOpts);
                } else {
                    commands.forEach((server, command) -> {
                        ObjectNode c = connections.addObject().put("name", server).put("cwd", project.toString());
                        command.forEach(c.putArray("command")::add);
                    });
                }
                Path file = scratch.resolve("agent-" + a + ".json");
                Files.writeString(file, spec.toString());
                specs.add(file);
            }
            boolean together = settings.path("start").asString().equals("together");
            long firstLaunch = System.nanoTime();
            started.add(launchAgent(0, specs.get(0), projectDirs.get(0), name));
            if (!together) {
                awaitTools(started.get(0), name);
            }
            for (int a = 1; a < agents; a++) {
                started.add(launchAgent(a, specs.get(a), projectDirs.get(a % projects), name));
            }
            // Each agent's line is awaited on a thread of its own, so that its time is when it came, not when the
            // agents before it were done.
            List<CompletableFuture<Double>> tools = new ArrayList<>();
            for (Agent agent : started) {
                tools.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        if (Double.isNaN(agent.launchToToolsMs)) {
                            awaitTools(agent, name);
                        }
                        return (System.nanoTime() - firstLaunch) / 1e6;
                    } catch (IOException | InterruptedException e) {
                        throw new java.util.concurrent.CompletionException(e);
                    }
                }, runnable -> {
                    Thread thread = new Thread(runnable, "bench-await-agent-" + agent.index);
                    thread.setDaemon(true);
                    thread.start();
                }));
            }
            double allToolsMs = 0;
            for (CompletableFuture<Double> t : tools) {
                try {
                    allToolsMs = Math.max(allToolsMs, t.get(310, TimeUnit.SECONDS));
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    throw new IOException(e.getCause() != null ? e.getCause().getMessage() : e.toString(), e);
                }
            }
            for (Agent agent : started) {
                awaitReady(agent, name);
            }
            Thread.sleep(settings.path("settleMs").asLong());

            // ---- count and measure
            if (shared) {
                Optional<JsonNode> status = status(socket, Duration.ofSeconds(10));
                if (status.isEmpty()) {
                    throw new IOException("the shared gateway does not answer its status");
                }
                JsonNode s = status.get();
                gatewayPid = s.path("pid").asLong();
                row.put("gatewayClients", s.path("clients").asInt());
                int up = 0;
                for (JsonNode server : s.path("servers")) {
                    up += server.path("tools").asInt() > 0 ? 1 : 0;
                }
                row.put("gatewayServersWithTools", up);
                if (s.path("clients").asInt() != agents || up != servers) {
                    problem(name + ": the gateway's status says " + s.path("clients").asInt() + " clients and " + up
                            + " servers with tools: " + s);
                }
            }
            Map<String, List<ProcessHandle>> roles = census(started, gatewayPid, marker);
            roles.values().forEach(counted::addAll);
            ObjectNode m = row.putObject("processes");
            roles.forEach((role, list) -> {
                if (list.isEmpty()) {
                    return; // a role this setup does not have: "–" in the report, not 0
                }
                ObjectNode r = m.putObject(role);
                r.put("count", list.size());
                r.put("rssMb", sum(list, false));
                r.put("pssMb", sum(list, true));
                ArrayNode each = r.putArray("rssEachMb");
                list.forEach(p -> each.add(round1(rssMb(p.pid()))));
            });
            long others = roles.entrySet().stream().filter(e -> !e.getKey().startsWith("agent")).mapToLong(e -> e.getValue().size()).sum();
            row.put("setupProcesses", others);
            row.put("setupRssMb", roles.entrySet().stream().filter(e -> !e.getKey().startsWith("agent"))
                    .mapToDouble(e -> sum(e.getValue(), false)).sum());
            row.put("setupPssMb", roles.entrySet().stream().filter(e -> !e.getKey().startsWith("agent"))
                    .mapToDouble(e -> sum(e.getValue(), true)).sum());
            row.put("markedProcesses", marked(marker).size());
            row.put("firstAgentToolsMs", started.get(0).launchToToolsMs);
            double[] later = started.stream().skip(1).mapToDouble(a -> a.launchToToolsMs).toArray();
            row.put("laterAgentsToolsMedianMs", Report.median(later));
            row.put("laterAgentsToolsMaxMs", Arrays.stream(later).max().orElse(Double.NaN));
            row.put("allAgentsToolsMs", allToolsMs);
            ArrayNode agentsJson = row.putArray("agents");
            started.forEach(a -> agentsJson.addObject().put("index", a.index).put("launchToToolsMs", a.launchToToolsMs)
                    .set("ready", a.ready));
            log(String.format(Locale.ROOT, "%s: %d processes besides the agents (%s), RSS %.0f MB, PSS %.0f MB; first agent's"
                    + " tools %.0f ms, later ones' median %.0f ms, all %.0f ms", name, others, summary(roles),
                    row.path("setupRssMb").asDouble(), row.path("setupPssMb").asDouble(), row.path("firstAgentToolsMs").asDouble(),
                    row.path("laterAgentsToolsMedianMs").asDouble(), allToolsMs));
        } finally {
            cleanUp(name, started, gatewayPid, counted, marker, env, socket, home, row);
            Runner.deleteTree(scratch);
        }
    }

    /** Starts the shared gateway from the bench, for the attach processes' own JVM options; @return its pid */
    private long preStart(Map<String, String> env, Path socket, String name) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("setsid", launcher.toString(), "serve", "--shared"));
        ProcessBuilder builder = new ProcessBuilder(command).directory(Path.of(env.get("HOME")).toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectErrorStream(true)
                .redirectOutput(out.resolve("logs/" + name + "-prestarted-gateway.log").toFile());
        builder.environment().putAll(env);
        builder.environment().remove("MCP_HOST_JAVA_OPTS");
        builder.start();
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            Optional<JsonNode> status = status(socket, Duration.ofSeconds(2));
            if (status.isPresent()) {
                return status.get().path("pid").asLong();
            }
            Thread.sleep(100);
        }
        throw new IOException("the shared gateway started by the bench did not answer within 60 s");
    }

    private Agent launchAgent(int index, Path spec, Path project, String name) throws IOException {
        List<String> command = new ArrayList<>(List.of(Proc.java()));
        command.addAll(Runner.CLIENT_JVM_FLAGS);
        command.addAll(List.of("-p", modulePath, "-m", "mcp.bench/mcp.bench.internal.AgentClient", "--spec", spec.toString()));
        return new Agent(index, ServerProcess.start(command, project, Map.of(),
                out.resolve("logs/" + name + "-agent" + index + ".err")));
    }

    private void awaitTools(Agent agent, String name) throws InterruptedException, IOException {
        String line = agent.process.awaitLine("TOOLS", 300_000);
        if (line == null) {
            throw new IOException(name + ": agent " + agent.index + " did not get its tools (logs/" + name + "-agent"
                    + agent.index + ".err)");
        }
        agent.launchToToolsMs = agent.process.sinceStartMs();
    }

    private void awaitReady(Agent agent, String name) throws InterruptedException, IOException {
        String line = agent.process.awaitLine("READY ", 120_000);
        if (line == null) {
            throw new IOException(name + ": agent " + agent.index + " did not make its calls (logs/" + name + "-agent"
                    + agent.index + ".err)");
        }
        agent.ready = Proc.JSON.readTree(line.substring("READY ".length()));
        if (agent.ready.has("error") || agent.ready.path("mismatches").asLong() != 0) {
            problem(name + ": agent " + agent.index + ": " + agent.ready);
        }
    }

    /**
     * Every process of the row by role: {@code agent} (the agent processes), {@code agent-watchdog} (their stdio
     * transports' watchdog shells), {@code upstream}, {@code gateway}, {@code gateway-watchdog}, {@code attach}
     * ({@code mcp-host serve --stdio}), {@code other}.
     */
    private Map<String, List<ProcessHandle>> census(List<Agent> agents, Long gatewayPid, String marker) {
        Map<String, List<ProcessHandle>> roles = new LinkedHashMap<>();
        for (String role : List.of("agent", "agent-watchdog", "upstream", "gateway", "gateway-watchdog", "attach", "other")) {
            roles.put(role, new ArrayList<>());
        }
        java.util.Set<Long> seen = new java.util.HashSet<>();
        List<Long> agentPids = agents.stream().map(a -> a.process.pid()).toList();
        List<ProcessHandle> all = new ArrayList<>();
        for (Agent a : agents) {
            ProcessHandle.of(a.process.pid()).ifPresent(h -> {
                all.add(h);
                h.descendants().forEach(all::add);
            });
        }
        if (gatewayPid != null) {
            ProcessHandle.of(gatewayPid).ifPresent(h -> {
                all.add(h);
                h.descendants().forEach(all::add);
            });
        }
        for (ProcessHandle p : all) {
            if (!seen.add(p.pid()) || !p.isAlive()) {
                continue;
            }
            String cmd = cmdline(p.pid());
            long parent = p.parent().map(ProcessHandle::pid).orElse(-1L);
            String role;
            if (agentPids.contains(p.pid())) {
                role = "agent";
            } else if (gatewayPid != null && p.pid() == gatewayPid) {
                role = "gateway";
            } else if (cmd.contains(WATCHDOG)) {
                role = agentPids.contains(parent) ? "agent-watchdog" : gatewayPid != null && parent == gatewayPid
                        ? "gateway-watchdog" : "other";
            } else if (cmd.contains(marker)) {
                role = "upstream";
            } else if (cmd.contains("mcp.cli/mcp.cli.Main") && cmd.contains("--stdio")) {
                role = "attach";
            } else {
                role = "other";
            }
            roles.get(role).add(p);
        }
        return roles;
    }

    private static String summary(Map<String, List<ProcessHandle>> roles) {
        StringBuilder s = new StringBuilder();
        roles.forEach((role, list) -> {
            if (!list.isEmpty() && !role.startsWith("agent")) {
                s.append(s.length() == 0 ? "" : ", ").append(list.size()).append(' ').append(role);
            }
        });
        return s.toString();
    }

    /** Every live process whose command line carries the row's marker: its upstream servers, wherever they are. */
    private static List<ProcessHandle> marked(String marker) {
        return ProcessHandle.allProcesses().filter(p -> cmdline(p.pid()).contains(marker))
                .filter(p -> !cmdline(p.pid()).contains(WATCHDOG)).toList();
    }

    private void cleanUp(String name, List<Agent> agents, Long gatewayPid, List<ProcessHandle> counted, String marker,
            Map<String, String> env, Path socket, Path home, ObjectNode row) throws IOException, InterruptedException {
        long closing = System.nanoTime();
        for (Agent agent : agents) {
            try {
                OutputStream stdin = agent.process.stdin();
                stdin.write("close\n".getBytes(StandardCharsets.UTF_8));
                stdin.close();
            } catch (IOException e) {
                // ended already
            }
        }
        for (Agent agent : agents) {
            if (agent.process.awaitLine(mcp.bench.ClientRun.RESULT_PREFIX, 60_000) == null) {
                problem(name + ": agent " + agent.index + " gave no result (it ended early, or did not close within 60 s;"
                        + " logs/" + name + "-agent" + agent.index + ".err)");
            }
            agent.process.close();
        }
        Optional<JsonNode> status = status(socket, Duration.ofSeconds(5));
        if (status.isPresent()) {
            long pid = status.get().path("pid").asLong();
            gatewayPid = gatewayPid != null ? gatewayPid : pid;
            row.put("gatewayClientsAfterClose", status.get().path("clients").asInt());
            Proc.Outcome stop = Proc.run(List.of(launcher.toString(), "serve", "--stop"), home, env,
                    out.resolve("logs/" + name + "-stop.err"), 60);
            if (stop.exitCode() != 0) {
                problem(name + ": mcp-host serve --stop exited with " + stop.exitCode());
            }
            Optional<ProcessHandle> gateway = ProcessHandle.of(pid);
            if (gateway.isPresent()) {
                try {
                    gateway.get().onExit().get(30, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    problem(name + ": the gateway (pid " + pid + ") did not end within 30 s of serve --stop");
                }
            }
        }
        // Every process counted, and every process with the row's marker, must be gone (a few seconds allowed for
        // the watchdogs' and the servers' own exits).
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<ProcessHandle> left = new ArrayList<>();
        do {
            left.clear();
            counted.stream().filter(ProcessHandle::isAlive).forEach(left::add);
            marked(marker).stream().filter(p -> left.stream().noneMatch(l -> l.pid() == p.pid())).forEach(left::add);
            if (left.isEmpty()) {
                break;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        row.put("closeAndStopMs", (System.nanoTime() - closing) / 1e6);
        row.put("processesLeft", left.size());
        if (!left.isEmpty()) {
            problem(name + ": " + left.size() + " process(es) left after the agents closed and the gateway stopped: "
                    + left.stream().map(p -> p.pid() + " " + cmdline(p.pid())).toList());
            left.forEach(ProcessHandle::destroyForcibly);
        }
        Path log = home.resolve(".local/state/mcp-host/serve-shared.log");
        if (Files.isRegularFile(log)) {
            Files.copy(log, out.resolve("logs/" + name + "-serve-shared.log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * The shared gateway's status line, asked over its socket as {@code mcp.gateway.Attachment.status} asks it (one
     * line of hello, one line of answer). Asked here rather than through {@code mcp.gateway}, so that this module, and
     * with it every bench client process, does not resolve the host's modules.
     *
     * @return its status (pid, clients, servers), or empty when none answers within the bound
     */
    static Optional<JsonNode> status(Path socket, Duration bound) {
        CompletableFuture<Optional<JsonNode>> answer = CompletableFuture.supplyAsync(() -> {
            try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                channel.connect(UnixDomainSocketAddress.of(socket));
                OutputStream out = Channels.newOutputStream(channel);
                out.write("{\"status\":{}}\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                String line = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                        StandardCharsets.UTF_8)).readLine();
                return Optional.ofNullable(line).map(Proc.JSON::readTree);
            } catch (IOException | RuntimeException e) {
                return Optional.<JsonNode>empty();
            }
        }, runnable -> {
            Thread thread = new Thread(runnable, "bench-gateway-status");
            thread.setDaemon(true);
            thread.start();
        });
        try {
            return answer.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return Optional.empty();
        }
    }

    // ------------------------------------------------------------------ /proc

    private static String cmdline(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static double rssMb(long pid) {
        double mb = ServerProcess.rssMb(pid);
        return Double.isNaN(mb) ? 0 : mb;
    }

    /** @return the proportional set size in MB (shared pages divided among their processes), or 0 */
    private static double pssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps_rollup"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("Pss:")) {
                    return Long.parseLong(line.split("\\s+")[1]) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone, or not Linux
        }
        return 0;
    }

    private static double sum(List<ProcessHandle> processes, boolean pss) {
        return processes.stream().mapToDouble(p -> pss ? pssMb(p.pid()) : rssMb(p.pid())).sum();
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }

    // ------------------------------------------------------------------ report

    static String markdown(JsonNode r) {
        JsonNode s = r.path("settings");
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Run of %s, %d cores, load average %s before and %s after. %d agents (each an"
                + " `AgentClient` process: mcp-host's `McpClient`, 2025-11-25) in %d project directories, %d user servers;"
                + " %d round(s); agents started %s; a scratch HOME per row (cold tool cache).%s Cells: median (min–max)"
                + " over the rounds.%n%n", r.path("date").asString(), r.path("nproc").asInt(), r.path("loadBefore").asString(),
                r.path("loadAfter").asString(), s.path("agents").asInt(), s.path("projects").asInt(), s.path("servers").asInt(),
                s.path("rounds").asInt(), s.path("start").asString().equals("together") ? "all at once"
                        : "the first alone, the others at once when it had its tools",
                s.path("attachJavaOpts").asString().isEmpty() ? ""
                        : " Attach processes with `MCP_HOST_JAVA_OPTS=" + s.path("attachJavaOpts").asString()
                        + "`, the gateway started by the bench beforehand."));
        md.append("| upstream | setup | processes besides the agents | RSS summed (MB) | PSS summed (MB) | upstreams: n, RSS (MB)"
                + " | gateway RSS (MB) | attach: n, RSS (MB) | first agent → tools (ms) | later agents → tools, median (ms) |"
                + " all agents have tools (ms) | agents' own: n, RSS (MB) |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (JsonNode upstream : s.path("upstreams")) {
            for (JsonNode mode : s.path("modes")) {
                JsonNode runs = r.path("rows").path(upstream.asString() + "-" + mode.asString());
                if (!runs.isArray() || runs.isEmpty()) {
                    continue;
                }
                md.append("| ").append(upstream.asString().equals("everything") ? "server-everything (Node.js)" : "testkit (JVM)")
                        .append(" | ").append(mode.asString().equals("shared") ? "one shared gateway (`serve --stdio`)"
                                : "each agent its own servers")
                        .append(" | ").append(cell(runs, "/setupProcesses", "%.0f"))
                        .append(" | ").append(cell(runs, "/setupRssMb", "%,.0f"))
                        .append(" | ").append(cell(runs, "/setupPssMb", "%,.0f"))
                        .append(" | ").append(cell(runs, "/processes/upstream/count", "%.0f")).append(", ")
                        .append(cell(runs, "/processes/upstream/rssMb", "%,.0f"))
                        .append(" | ").append(cell(runs, "/processes/gateway/rssMb", "%,.0f"))
                        .append(" | ").append(cell(runs, "/processes/attach/count", "%.0f")).append(", ")
                        .append(cell(runs, "/processes/attach/rssMb", "%,.0f"))
                        .append(" | ").append(cell(runs, "/firstAgentToolsMs", "%,.0f"))
                        .append(" | ").append(cell(runs, "/laterAgentsToolsMedianMs", "%,.0f"))
                        .append(" | ").append(cell(runs, "/allAgentsToolsMs", "%,.0f"))
                        .append(" | ").append(cell(runs, "/processes/agent/count", "%.0f")).append(", ")
                        .append(cell(runs, "/processes/agent/rssMb", "%,.0f"))
                        .append(" |\n");
            }
        }
        md.append("\nProcesses besides the agents: upstream servers, the gateway and its watchdog shell, and the attach"
                + " processes (`mcp-host serve --stdio`, one JVM per agent); each agent's own stdio watchdog shell is"
                + " counted with the agents. RSS counts shared pages (the JDK's class-data archive, libjvm) once per process;"
                + " PSS divides them among the processes that share them.\n");
        JsonNode problems = r.path("problems");
        md.append(problems.isEmpty() ? "\nProblems in this run: none.\n" : "\nProblems in this run:\n");
        problems.forEach(p -> md.append("- ").append(p.asString()).append('\n'));
        return md.toString();
    }

    private static String cell(JsonNode runs, String pointer, String format) {
        List<Double> values = new ArrayList<>();
        runs.forEach(run -> {
            JsonNode v = run.at(pointer);
            if (v.isNumber() && !Double.isNaN(v.asDouble())) {
                values.add(v.asDouble());
            }
        });
        if (values.isEmpty()) {
            return "–";
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        String median = String.format(Locale.ROOT, format, Report.median(sorted));
        return sorted.length == 1 || sorted[0] == sorted[sorted.length - 1] ? median
                : median + " (" + String.format(Locale.ROOT, format, sorted[0]) + "–"
                        + String.format(Locale.ROOT, format, sorted[sorted.length - 1]) + ")";
    }
}

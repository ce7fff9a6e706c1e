package mcp.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.CallPolicy;
import mcp.api.McpJson;
import mcp.api.ServerConfig;
import mcp.api.ToolRule;
import mcp.api.spi.AuthStorage;
import mcp.config.DiscoveryResult;
import mcp.config.SkippedServer;
import mcp.manager.BridgedTool;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * mcp-host against the agents themselves: for every fixture of {@code src/test/resources/agents/}
 * (written and judged by Claude Code, Codex and Gemini CLI, see {@code interop/agents/regenerate.sh}),
 * in every folder the tool was run in, mcp-host must start exactly the servers the tool started (or,
 * for Codex, which never connects in {@code list}, lists as enabled), and start each the same way.
 *
 * <p>Each scenario is copied to a temporary folder with {@code @ROOT@} and {@code @PORT@} replaced (the
 * port of a fresh HTTP recorder), mcp-host discovers and loads it for real (stdio child processes,
 * HTTP requests), and the recorder's records are compared with the tool's. A server the tool lists
 * but does not start (pending approval, disabled, blocked) must be inactive in mcp-host; one it does
 * not list must not be started (mcp-host may list it as inactive, as it does a declined one). For the
 * servers both start:
 * <ul>
 *   <li>stdio: the arguments, the working directory, every {@code FIX_*} variable, {@code HOME}
 *       (as "the launcher's" when it is the HOME of the process that started the server), and
 *       whether the server got the launcher's whole environment ({@code FIX_PROBE_INHERITED}, set
 *       for the tools and, by surefire, for this JVM, is never referenced by a config);</li>
 *   <li>HTTP and SSE: the paths requested, those POSTed to (Streamable HTTP or legacy SSE), and every header,
 *       except those a client adds by itself ({@link #CLIENT_HEADERS});</li>
 *   <li>the connect and request timeouts, where the tool's config sets one (Codex, Gemini CLI).</li>
 * </ul>
 * Codex never connects in {@code list}: the servers it would start are those {@code codex mcp list
 * --json} shows enabled, and its launches those of {@code codex exec} (run offline by regenerate.sh).
 * They must agree with {@code codex mcp get NAME --json} read by Codex's own rules (its source,
 * {@code codex-rs/rmcp-client}: the environment is cleared but for {@link #CODEX_DEFAULT_ENV},
 * {@code env_vars} and {@code env}; arguments are never expanded; an {@code env_http_headers} entry
 * whose variable is unset or blank is not sent; {@code bearer_token_env_var} becomes
 * {@code Authorization: Bearer <value>}); where they do not, the fixture contradicts itself.
 *
 * <p>Where the fixture has the agent's model request ({@code expected/RUN/model.jsonl}: the agent was pointed at
 * {@code interop/agents/model-recorder.cjs} for one turn, see {@code regenerate.sh}), the tools the agent offered its
 * model must be those mcp-host gives its agent: the per-tool decisions of the agent's own files (Claude Code's
 * permission rules, Codex's and Gemini CLI's tool lists) withhold the same tools. Where it also has the calls the
 * agent let run when its model asked to call every tool ({@code model.calls.jsonl}: Claude Code in {@code -p},
 * Codex in {@code exec}, both asking nobody), those must be the tools whose call policy mcp-host reads as allowed,
 * plus those the agent runs by its own default ({@link #runsByDefault}); and Gemini CLI's headless request
 * ({@code headless.jsonl}, in which it offers only what it runs without confirmation) must hold the tools whose
 * call policy is allowed.
 *
 * <p>Every difference is one line naming the scenario, the folder, the server, the field, the tool's
 * value and mcp-host's. A difference that stays must be a deliberate choice in
 * {@code docs/discovery.md}.
 */
class AgentFixturesTest {

    /** Headers a client adds by itself, whatever the config says; not compared. */
    static final Set<String> CLIENT_HEADERS = Set.of("host", "connection", "content-length", "content-type",
            "accept", "accept-encoding", "accept-language", "user-agent", "cache-control", "pragma",
            "sec-fetch-mode", "mcp-protocol-version", "mcp-session-id", "mcp-method", "last-event-id", "upgrade",
            "http2-settings", "te", "transfer-encoding", "sec-websocket-key", "sec-websocket-version",
            "sec-websocket-extensions", "sec-websocket-protocol");

    /** What Codex passes a stdio server of its own environment (unix), besides env_vars and env. */
    static final Set<String> CODEX_DEFAULT_ENV = Set.of("HOME", "LOGNAME", "PATH", "SHELL", "USER",
            "__CF_USER_TEXT_ENCODING", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ");

    /** Set for the tools and for this JVM, never referenced by a config: seen, it was inherited. */
    private static final String PROBE = "FIX_PROBE_INHERITED";

    private static final Duration GATE = Duration.ofSeconds(20);

    @TempDir
    Path temp;

    @TestFactory
    Stream<DynamicNode> everyFixtureAsItsToolDecided() throws IOException {
        Path fixtures = fixtures();
        Map<String, String> launcher = strings(json(Files.readString(fixtures.resolve("launcher-env.json"))));
        List<DynamicNode> nodes = new ArrayList<>();
        nodes.add(dynamicTest("this JVM has the fixture's variables (mcp.host/pom.xml, surefire)", () -> {
            Map<String, String> missing = new TreeMap<>();
            launcher.forEach((name, value) -> {
                if (name.startsWith("FIX_") && !value.equals(System.getenv(name))) {
                    missing.put(name, value);
                }
            });
            assertEquals(Map.of(), missing, "set these in surefire's environmentVariables, as in "
                    + "interop/agents/fixture.env (this JVM has: " + missing.keySet().stream()
                    .collect(Collectors.toMap(n -> n, n -> String.valueOf(System.getenv(n)))) + ")");
        }));
        try (Stream<Path> scenarios = Files.list(fixtures)) {
            for (Path scenario : scenarios.filter(Files::isDirectory).sorted().toList()) {
                JsonNode manifest = json(Files.readString(scenario.resolve("scenario.json")));
                List<DynamicNode> runs = new ArrayList<>();
                for (JsonNode run : manifest.get("runs")) {
                    Run r = new Run(scenario, manifest, run.get("name").asString(), run.get("cwd").asString(), launcher);
                    // Lazily: the run starts servers only when JUnit gets to it.
                    runs.add(dynamicContainer(r.name, Stream.of(r).flatMap(this::testsOf)));
                }
                nodes.add(dynamicContainer(scenario.getFileName().toString(), runs));
            }
        }
        return nodes.stream();
    }

    private static Path fixtures() {
        try {
            return Path.of(Objects.requireNonNull(AgentFixturesTest.class.getResource("/agents/launcher-env.json"),
                    "src/test/resources/agents/launcher-env.json (interop/agents/regenerate.sh writes it)").toURI())
                    .getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One folder of one scenario that the tool was judged in. */
    private static final class Run {
        final Path fixture;
        final JsonNode manifest;
        final String name;
        final String cwd;
        final Map<String, String> launcherEnv;
        final String tool;

        Run(Path fixture, JsonNode manifest, String name, String cwd, Map<String, String> launcherEnv) {
            this.fixture = fixture;
            this.manifest = manifest;
            this.name = name;
            this.cwd = cwd;
            this.launcherEnv = launcherEnv;
            this.tool = manifest.get("tool").asString();
        }

        String scenario() {
            return fixture.getFileName().toString();
        }

        String toolName() {
            return switch (tool) {
                case "claude" -> "Claude Code";
                case "codex" -> "Codex";
                case "gemini" -> "Gemini CLI";
                default -> tool;
            };
        }

        String expected(String file, Path root, int port) {
            Path path = fixture.resolve("expected").resolve(name).resolve(file);
            try {
                return Files.exists(path) ? substitute(Files.readString(path), root, port) : "";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static String substitute(String text, Path root, int port) {
        return text.replace("@ROOT@", root.toString()).replace("@PORT@", Integer.toString(port));
    }

    // ------------------------------------------------------------------------------------ one run

    /**
     * Differences kept on purpose, by {@code scenario/server}, each with its reason (docs/discovery.md says
     * the same). Such a server is left out of the comparison of the servers started, and its own test checks
     * that it still differs, so that an entry here never outlives its reason.
     */
    private static final Map<String, String> KEPT = Map.of(
            "claude-scopes/u-ws", "Claude Code's WebSocket transport (type ws), which mcp-host does not have: the entry"
                    + " is reported as not supported instead of started");

    private Stream<DynamicNode> testsOf(Run run) {
        Path root = temp.resolve(run.scenario() + "-" + run.name);
        Observed host;
        ToolView tool;
        try (HttpRecorder http = HttpRecorder.start(root.resolveSibling(root.getFileName() + "-http.jsonl"))) {
            copyFixture(run, root, http.port);
            tool = toolView(run, root, http.port);
            host = loadWithMcpHost(run, root, http);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        String where = run.scenario() + "/" + run.name + " (" + run.cwd + ")";
        List<DynamicNode> tests = new ArrayList<>();
        tests.add(dynamicTest("the servers started", () -> {
            Set<String> expected = new TreeSet<>(tool.active());
            expected.removeIf(server -> KEPT.containsKey(run.scenario() + "/" + server));
            Set<String> actual = new TreeSet<>(host.discovery.configs().keySet());
            if (!expected.equals(actual)) {
                fail(where + ": servers started: " + run.toolName() + ": " + expected + " | mcp-host: " + actual
                        + "; only " + run.toolName() + ": " + minus(expected, actual) + "; only mcp-host: "
                        + minus(actual, expected));
            }
        }));
        Set<String> names = new TreeSet<>(tool.status.keySet());
        names.addAll(tool.stdio.keySet());
        names.addAll(tool.http.keySet());
        names.addAll(host.discovery.configs().keySet());
        host.discovery.skipped().forEach(s -> names.add(s.name()));
        for (String server : names) {
            String verdict = tool.status.getOrDefault(server, "not listed");
            tests.add(dynamicTest(server + " (" + run.toolName() + ": " + verdict + ")", () -> {
                List<String> differences = compare(run, tool, host, server);
                String kept = KEPT.get(run.scenario() + "/" + server);
                if (kept != null) {
                    assertFalse(differences.isEmpty(), where + ", server " + server + " no longer differs: remove it"
                            + " from KEPT (" + kept + ")");
                    return;
                }
                if (!differences.isEmpty()) {
                    fail(differences.stream().map(d -> where + ", server " + server + ": " + d)
                            .collect(Collectors.joining("\n", differences.size() + " difference(s):\n", "")));
                }
            }));
        }
        if (Files.exists(run.fixture.resolve("expected").resolve(run.name).resolve("model.jsonl"))) {
            tests.add(dynamicTest("the tools " + run.toolName() + " offers its model", () -> {
                Set<String> expected = modelTools(run.expected("model.jsonl", root, 0));
                Set<String> actual = host.tools.stream().map(t -> agentName(run.tool, t.server(), t.tool()))
                        .collect(Collectors.toCollection(TreeSet::new));
                compareTools(where, run.toolName() + " offered", expected, actual, host);
            }));
        }
        if (Files.exists(run.fixture.resolve("expected").resolve(run.name).resolve("model.calls.jsonl"))) {
            tests.add(dynamicTest("the calls " + run.toolName() + " lets run unasked", () -> {
                Set<String> expected = readRecords(run.expected("model.calls.jsonl", root, 0)).stream()
                        .map(call -> agentName(run.tool, call.get("label").asString(), call.get("tool").asString()))
                        .collect(Collectors.toCollection(TreeSet::new));
                Set<String> actual = host.tools.stream().filter(t -> runsUnasked(run.tool, t))
                        .map(t -> agentName(run.tool, t.server(), t.tool()))
                        .collect(Collectors.toCollection(TreeSet::new));
                compareTools(where, run.toolName() + " ran", expected, actual, host);
            }));
        }
        if (Files.exists(run.fixture.resolve("expected").resolve(run.name).resolve("headless.jsonl"))) {
            tests.add(dynamicTest("the tools " + run.toolName() + " runs without confirmation", () -> {
                Set<String> expected = modelTools(run.expected("headless.jsonl", root, 0));
                Set<String> actual = host.tools.stream().filter(t -> runsUnasked(run.tool, t))
                        .map(t -> agentName(run.tool, t.server(), t.tool()))
                        .collect(Collectors.toCollection(TreeSet::new));
                compareTools(where, run.toolName() + " offered headless", expected, actual, host);
            }));
        }
        return tests.stream();
    }

    /** The MCP tools of every model request the recorder saw, as the agent named them. */
    private static Set<String> modelTools(String lines) {
        Set<String> tools = new TreeSet<>();
        for (JsonNode request : readRecords(lines)) {
            request.path("tools").forEach(name -> tools.add(name.asString()));
            request.path("deferred").forEach(name -> tools.add(name.asString()));
        }
        return tools;
    }

    /**
     * A tool's name as the agent gives it to its model: Claude Code {@code mcp__server__tool} and Codex the tool
     * {@code tool} of the namespace {@code mcp__server} (the recorder writes it {@code mcp__server__tool}), each name
     * with every character but letters, digits, {@code _} and {@code -} made {@code _}; Gemini CLI
     * {@code mcp_server_tool}.
     */
    static String agentName(String agent, String server, String tool) {
        String s = ToolRule.Match.Glob.normalize(server);
        String t = ToolRule.Match.Glob.normalize(tool);
        return agent.equals("gemini") ? "mcp_" + s + "_" + t : "mcp__" + s + "__" + t;
    }

    /**
     * Whether the agent runs a tool mcp-host gives it without asking anyone: the owner's rules allow it, or nothing
     * decided and the agent's own default runs it ({@link #runsByDefault}).
     */
    private static boolean runsUnasked(String agent, AgentToolSeen tool) {
        if (tool.policy().decidedByOwner()) {
            return tool.policy().decision() == CallPolicy.Decision.ALLOW;
        }
        return runsByDefault(agent, tool);
    }

    /**
     * What the agents do by default with a tool no rule of their user's concerns, which mcp-host does not copy (its
     * {@link CallPolicy#DEFAULT} leaves the question to the embedder): Claude Code asks (in {@code -p}: refuses),
     * Gemini CLI asks (headless: does not offer it), Codex's {@code "auto"} runs a tool that says
     * {@code readOnlyHint} and asks about the others.
     */
    static boolean runsByDefault(String agent, AgentToolSeen tool) {
        return agent.equals("codex") && tool.readOnly();
    }

    private static void compareTools(String where, String what, Set<String> expected, Set<String> actual,
            Observed host) {
        if (!expected.equals(actual)) {
            fail(where + ": " + what + ": " + expected + " | mcp-host: " + actual + "; only the agent: "
                    + minus(expected, actual) + "; only mcp-host: " + minus(actual, expected) + "; mcp-host's policies: "
                    + host.tools.stream().map(t -> t.server() + "/" + t.tool() + "=" + (t.policy().decidedByOwner()
                            ? t.policy().decision().id() : "default")).toList());
        }
    }

    private static Set<String> minus(Set<String> a, Set<String> b) {
        Set<String> result = new TreeSet<>(a);
        result.removeAll(b);
        return result;
    }

    /** The scenario's files in a fresh root, placeholders replaced, with the folders it needs. */
    private static void copyFixture(Run run, Path root, int port) throws IOException {
        Path source = run.fixture.resolve("root");
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Path target = root.resolve(source.relativize(file).toString());
                Files.createDirectories(target.getParent());
                Files.writeString(target, substitute(Files.readString(file), root, port));
            }
        }
        Files.createDirectories(root.resolve("home"));
        for (JsonNode dir : run.manifest.get("git")) {
            // A repository root is a folder with .git; an empty one is enough for discovery.
            Files.createDirectories(root.resolve(dir.asString()).resolve(".git"));
        }
        for (JsonNode dir : run.manifest.get("dirs")) {
            Files.createDirectories(root.resolve(dir.asString()));
        }
        Files.createDirectories(root.resolve(run.cwd));
        Files.copy(recorderScript(), root.resolve("recorder.cjs"));
    }

    private static Path recorderScript() {
        Path script = Path.of("..", "interop", "agents", "recorder.cjs").toAbsolutePath().normalize();
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("The recording MCP server is missing: " + script);
        }
        return script;
    }

    // ------------------------------------------------------------------------------ what mcp-host did

    /** What mcp-host discovered, how it started its servers, and its per-server errors. */
    private record Observed(DiscoveryResult discovery, Map<String, String> errors, Map<String, Launch> stdio,
            Map<String, HttpSeen> http, List<AgentToolSeen> tools) {
    }

    /**
     * A tool mcp-host gives its agent.
     *
     * @param server its server
     * @param tool its name there
     * @param policy its call policy
     * @param readOnly whether it says readOnlyHint
     */
    private record AgentToolSeen(String server, String tool, CallPolicy policy, boolean readOnly) {
    }

    private Observed loadWithMcpHost(Run run, Path root, HttpRecorder http) throws IOException, InterruptedException {
        // The environment the tools ran with: their HOME, the PATH, the fixture's variables. The
        // servers themselves inherit this JVM's environment, as mcp-host's stdio transport does.
        Map<String, String> env = new TreeMap<>();
        env.put("HOME", root.resolve("home").toString());
        Optional.ofNullable(System.getenv("PATH")).ifPresent(path -> env.put("PATH", path));
        System.getenv().forEach((name, value) -> {
            if (name.startsWith("FIX_")) {
                env.put(name, value);
            }
        });
        DiscoveryResult discovery;
        Map<String, String> errors;
        List<AgentToolSeen> tools = new ArrayList<>();
        // The tools' own decisions are what is compared: mcp-host's approval on top of them (ProjectApprovalCliTest)
        // is taken as given, as for a checkout the user trusts.
        try (McpHost host = McpHost.builder().home(root.resolve("home")).workingDirectory(root.resolve(run.cwd))
                .environment(env).cache(false).authStorage(AuthStorage.inMemory()).startupGate(GATE)
                .approveProjectServers(true).build()) {
            LoadResult load = host.load();
            discovery = load.discovery();
            errors = load.errors();
            for (BridgedTool tool : load.tools()) {
                if (tool.definition().visibleToModel()) {
                    boolean readOnly = tool.definition().annotations().map(a -> a.path("readOnlyHint").asBoolean(false))
                            .orElse(false);
                    tools.add(new AgentToolSeen(tool.serverName(), tool.toolName(), tool.callPolicy(), readOnly));
                }
            }
        }
        awaitNoChildButTheRecorder(http.process);
        List<JsonNode> records = new ArrayList<>(readRecords(root.resolve("launches.jsonl")));
        records.addAll(http.stop());
        Map<String, Launch> stdio = new TreeMap<>();
        Map<String, HttpSeen> seen = new TreeMap<>();
        collect(records, System.getenv("HOME"), stdio, seen);
        return new Observed(discovery, errors, stdio, seen, List.copyOf(tools));
    }

    private static void awaitNoChildButTheRecorder(Process recorder) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ProcessHandle.current().children().anyMatch(p -> p.isAlive() && p.pid() != recorder.pid())) {
            if (System.nanoTime() > deadline) {
                fail("server processes left after mcp-host closed: " + ProcessHandle.current().children()
                        .filter(p -> p.pid() != recorder.pid()).map(p -> p.info().commandLine().orElse("?")).toList());
            }
            Thread.sleep(20);
        }
    }

    // ----------------------------------------------------------------------------- what the tool did

    /**
     * The tool's verdict in one folder.
     *
     * @param status every server the tool listed, with its words for it
     * @param activeNames the servers it started (or, Codex, would start)
     * @param stdio how it started each stdio server
     * @param http what it sent each HTTP or SSE server
     * @param timeouts the connect and request timeouts its config sets, by server
     * @param problems where the fixture contradicts itself, by server (Codex: its get --json read by
     *     this test's rules against what codex exec did)
     * @param oauth what Claude Code's {@code mcp get} says of a server's OAuth client ({@code client_id},
     *     {@code client_secret}: "configured"; {@code callback_port}: the port), by server
     */
    private record ToolView(Map<String, String> status, Set<String> activeNames, Map<String, Launch> stdio,
            Map<String, HttpSeen> http, Map<String, Timeouts> timeouts, Map<String, List<String>> problems,
            Map<String, Map<String, String>> oauth) {
        Set<String> active() {
            return activeNames;
        }
    }

    /** Timeouts a tool's config sets; empty: the tool's default. */
    private record Timeouts(Optional<Duration> connect, Optional<Duration> request) {
    }

    /** Claude Code: {@code name: command or URL - ✔ Connected}. */
    private static final Pattern CLAUDE_LINE = Pattern.compile("^([^\\s:]+): .* - ([✔✘⏸⊘].*)$");
    /** Claude Code's {@code mcp get}: {@code   OAuth: client_id configured, client_secret configured, callback_port 8765}. */
    private static final Pattern CLAUDE_OAUTH = Pattern.compile("^\\s*OAuth: (.*)$");

    /** {@code client_id configured, callback_port 8765} as {@code {client_id=configured, callback_port=8765}}. */
    private static Map<String, String> claudeOAuth(String said) {
        Map<String, String> parts = new TreeMap<>();
        for (String part : said.split(",\\s*")) {
            int space = part.indexOf(' ');
            parts.put(space < 0 ? part : part.substring(0, space), space < 0 ? "" : part.substring(space + 1).trim());
        }
        return parts;
    }

    /** The same words of mcp-host's OAuth client of a server, for the options Claude Code's {@code mcp get} shows. */
    private static Map<String, String> hostOAuth(ServerConfig config) {
        Map<String, String> parts = new TreeMap<>();
        config.auth().ifPresent(auth -> {
            if (auth.options().containsKey("clientId")) {
                parts.put("client_id", "configured");
            }
            if (auth.options().containsKey("clientSecret")) {
                parts.put("client_secret", "configured");
            }
            Optional.ofNullable(auth.options().get("callbackPort")).ifPresent(port -> parts.put("callback_port", port));
        });
        return parts;
    }

    /** Gemini CLI: {@code ✓ name: command or URL (stdio) - Connected}. */
    private static final Pattern GEMINI_LINE = Pattern.compile("^\\S+ ([^\\s:]+): .* - (\\w+)$");

    private static ToolView toolView(Run run, Path root, int port) {
        Map<String, String> status = new LinkedHashMap<>();
        Set<String> active = new TreeSet<>();
        Map<String, Launch> stdio = new TreeMap<>();
        Map<String, HttpSeen> http = new TreeMap<>();
        Map<String, Timeouts> timeouts = new TreeMap<>();
        Map<String, List<String>> problems = new TreeMap<>();
        // Gemini CLI prints its list on stderr.
        String output = run.expected("list.stdout", root, port) + run.expected("list.stderr", root, port);
        switch (run.tool) {
            case "claude" -> output.lines().map(CLAUDE_LINE::matcher).filter(Matcher::matches).forEach(m -> {
                status.put(m.group(1), m.group(2));
                // ✘ Failed to connect: it started the server (or tried to reach it) all the same.
                if (m.group(2).startsWith("✔") || m.group(2).startsWith("✘")) {
                    active.add(m.group(1));
                }
            });
            case "gemini" -> {
                output.lines().map(GEMINI_LINE::matcher).filter(Matcher::matches).forEach(m -> {
                    status.put(m.group(1), m.group(2));
                    if (m.group(2).equals("Connected") || m.group(2).equals("Disconnected")) {
                        active.add(m.group(1));
                    }
                });
                geminiTimeouts(run, root, timeouts);
            }
            case "codex" -> {
                for (JsonNode entry : json(run.expected("list.stdout", root, port))) {
                    String server = entry.get("name").asString();
                    boolean enabled = entry.get("enabled").asBoolean();
                    status.put(server, enabled ? "enabled" : "disabled");
                    if (enabled) {
                        active.add(server);
                        String get = run.expected("get-" + server + ".stdout", root, port);
                        codexLaunch(run, root, server, json(get), stdio, http, timeouts);
                    }
                }
                String exec = run.expected("exec.launches.jsonl", root, port);
                if (!exec.isEmpty()) {
                    codexExec(run, root, exec, stdio, http, problems);
                }
                return new ToolView(status, active, stdio, http, timeouts, problems, Map.of());
            }
            default -> throw new IllegalStateException("unknown tool " + run.tool);
        }
        List<JsonNode> records = readRecords(run.expected("list.launches.jsonl", root, port));
        collect(records, run.launcherEnv.get("HOME").replace("@ROOT@", root.toString()), stdio, http);
        Map<String, Map<String, String>> oauth = new TreeMap<>();
        if (run.tool.equals("claude")) {
            for (String server : status.keySet()) {
                run.expected("get-" + server + ".stdout", root, port).lines().map(CLAUDE_OAUTH::matcher)
                        .filter(Matcher::matches).findFirst().ifPresent(m -> oauth.put(server, claudeOAuth(m.group(1))));
            }
        }
        return new ToolView(status, active, stdio, http, timeouts, problems, oauth);
    }

    /** Gemini CLI's {@code timeout} (milliseconds) is both the connect and the request timeout. */
    private static void geminiTimeouts(Run run, Path root, Map<String, Timeouts> timeouts) {
        for (Path settings : List.of(root.resolve("home/.gemini/settings.json"),
                root.resolve(run.cwd).resolve(".gemini/settings.json"))) {
            if (!Files.exists(settings)) {
                continue;
            }
            try {
                json(Files.readString(settings)).path("mcpServers").properties().forEach(e -> {
                    JsonNode timeout = e.getValue().path("timeout");
                    if (timeout.isNumber()) {
                        Duration d = Duration.ofMillis(timeout.asLong());
                        timeouts.putIfAbsent(e.getKey(), new Timeouts(Optional.of(d), Optional.of(d)));
                    }
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** The launch Codex would make of one {@code codex mcp get NAME --json}, by its own rules. */
    private static void codexLaunch(Run run, Path root, String server, JsonNode get, Map<String, Launch> stdio,
            Map<String, HttpSeen> http, Map<String, Timeouts> timeouts) {
        Map<String, String> launcher = new TreeMap<>();
        run.launcherEnv.forEach((name, value) -> launcher.put(name, value.replace("@ROOT@", root.toString())));
        JsonNode transport = get.get("transport");
        if (transport.get("type").asString().equals("stdio")) {
            Map<String, String> fix = new TreeMap<>();
            Set<String> passed = new TreeSet<>();
            for (JsonNode variable : transport.path("env_vars")) {
                String name = variable.asString();
                passed.add(name);
                if (name.startsWith("FIX_") && launcher.containsKey(name)) {
                    fix.put(name, launcher.get(name));
                }
            }
            Map<String, String> env = transport.path("env").isObject() ? strings(transport.get("env")) : Map.of();
            String home = env.getOrDefault("HOME", launcher.get("HOME"));
            env.forEach((name, value) -> {
                passed.add(name);
                if (name.startsWith("FIX_")) {
                    fix.put(name, value);
                }
            });
            passed.addAll(CODEX_DEFAULT_ENV);
            List<String> argv = transport.get("args").valueStream().map(JsonNode::asString).toList();
            String cwd = transport.path("cwd").isString() ? transport.get("cwd").asString()
                    : root.resolve(run.cwd).toString();
            stdio.put(server, new Launch(argv, cwd, fix, home.equals(launcher.get("HOME")) ? LAUNCHER_HOME : home,
                    false, passed));
        } else {
            Map<String, Set<String>> headers = new TreeMap<>();
            if (transport.path("http_headers").isObject()) {
                strings(transport.get("http_headers")).forEach((k, v) -> headers.put(k.toLowerCase(), Set.of(v)));
            }
            if (transport.path("env_http_headers").isObject()) {
                strings(transport.get("env_http_headers")).forEach((header, variable) -> {
                    String value = launcher.get(variable);
                    if (value != null && !value.isBlank()) {
                        headers.put(header.toLowerCase(), Set.of(value));
                    }
                });
            }
            if (transport.path("bearer_token_env_var").isString()) {
                String value = launcher.get(transport.get("bearer_token_env_var").asString());
                if (value != null) {
                    headers.put("authorization", Set.of("Bearer " + value));
                }
            }
            String path = java.net.URI.create(transport.get("url").asString()).getPath();
            // Codex speaks Streamable HTTP only: its messages are POSTed to the URL itself.
            http.put(server, new HttpSeen(Set.of(path), Set.of(path), headers));
        }
        Optional<Duration> connect = seconds(get.path("startup_timeout_sec"));
        Optional<Duration> request = seconds(get.path("tool_timeout_sec"));
        if (connect.isPresent() || request.isPresent()) {
            timeouts.put(server, new Timeouts(connect, request));
        }
    }

    /**
     * What {@code codex exec} did (offline, in the fixture) replaces the launches read from
     * {@code get --json}, which must agree with it: otherwise this test's reading of Codex's rules is
     * wrong, and that is a problem of the fixture. A filtered environment keeps the names Codex would
     * pass (its default set, env_vars, env), since this JVM's environment has other names than the one
     * Codex ran with.
     */
    private static void codexExec(Run run, Path root, String exec, Map<String, Launch> stdio,
            Map<String, HttpSeen> http, Map<String, List<String>> problems) {
        Map<String, Launch> started = new TreeMap<>();
        Map<String, HttpSeen> sent = new TreeMap<>();
        collect(readRecords(exec), run.launcherEnv.get("HOME").replace("@ROOT@", root.toString()), started,
                sent);
        Set<String> servers = new TreeSet<>(stdio.keySet());
        servers.addAll(started.keySet());
        for (String server : servers) {
            Launch rules = stdio.get(server);
            Launch real = started.get(server);
            List<String> wrong = new ArrayList<>();
            if (rules == null || real == null) {
                wrong.add("start: get --json " + (rules != null) + " | codex exec " + (real != null));
            } else {
                field(wrong, "argv", "get --json", rules.argv(), real.argv());
                field(wrong, "cwd", "get --json", rules.cwd(), real.cwd());
                field(wrong, "env", "get --json", rules.fix(), real.fix());
                field(wrong, "HOME", "get --json", rules.home(), real.home());
                field(wrong, "whole environment", "get --json", rules.wholeEnvironment(), real.wholeEnvironment());
                if (!rules.otherNames().containsAll(real.otherNames())) {
                    wrong.add("inherited: get --json allows " + rules.otherNames() + " | codex exec passed "
                            + real.otherNames());
                }
                stdio.put(server, new Launch(real.argv(), real.cwd(), real.fix(), real.home(), real.wholeEnvironment(),
                        rules.otherNames()));
            }
            record(problems, server, wrong);
        }
        Set<String> remotes = new TreeSet<>(http.keySet());
        remotes.addAll(sent.keySet());
        for (String server : remotes) {
            List<String> wrong = new ArrayList<>();
            field(wrong, "requests", "get --json", http.get(server), sent.get(server));
            if (sent.containsKey(server)) {
                http.put(server, sent.get(server));
            }
            record(problems, server, wrong);
        }
    }

    private static void record(Map<String, List<String>> problems, String server, List<String> wrong) {
        if (!wrong.isEmpty()) {
            problems.computeIfAbsent(server, s -> new ArrayList<>())
                    .add("the fixture contradicts itself (codex exec vs get --json): " + String.join("; ", wrong));
        }
    }

    private static Optional<Duration> seconds(JsonNode value) {
        return value.isNumber() ? Optional.of(Duration.ofMillis(Math.round(value.asDouble() * 1000))) : Optional.empty();
    }

    // ---------------------------------------------------------------------------------- the records

    /** How a HOME is shown when it is the HOME of the process that started the server. */
    static final String LAUNCHER_HOME = "<the launcher's HOME>";

    /**
     * How one stdio server was started.
     *
     * @param argv the arguments after the node executable: the script, then the label and the rest
     * @param cwd the working directory
     * @param fix every FIX_* variable but the probe, with its value
     * @param home {@link #LAUNCHER_HOME} or the value the server got
     * @param wholeEnvironment whether the server got the launcher's whole environment
     * @param otherNames the names of the other variables it got (Codex: the names it would pass)
     */
    record Launch(List<String> argv, String cwd, Map<String, String> fix, String home, boolean wholeEnvironment,
            Set<String> otherNames) {
    }

    /**
     * What one HTTP or SSE server was sent.
     *
     * @param paths the paths requested
     * @param posted the paths POSTed to, which tell the transport apart where the paths alone do not: Streamable
     *     HTTP POSTs to the configured URL, legacy SSE GETs it and POSTs to the endpoint its stream names
     * @param headers every header but {@link #CLIENT_HEADERS}, by lowercase name, with the values seen
     */
    record HttpSeen(Set<String> paths, Set<String> posted, Map<String, Set<String>> headers) {
    }

    /** Sorts records by server: stdio ones by label, HTTP ones by the first path segment. */
    private static void collect(List<JsonNode> records, String launcherHome,
            Map<String, Launch> stdio, Map<String, HttpSeen> http) {
        for (JsonNode record : records) {
            if (record.get("kind").asString().equals("call")) {
                continue; // a tool call a model asked for, not a start
            }
            if (record.get("kind").asString().equals("stdio")) {
                Map<String, String> env = strings(record.get("env"));
                Map<String, String> fix = new TreeMap<>(env);
                fix.remove("HOME");
                boolean whole = fix.remove(PROBE) != null;
                String home = env.get("HOME");
                Set<String> others = record.get("inherited").valueStream().map(JsonNode::asString)
                        .collect(Collectors.toCollection(TreeSet::new));
                List<String> argv = record.get("argv").valueStream().map(JsonNode::asString).toList();
                stdio.putIfAbsent(record.get("label").asString(), new Launch(argv,
                        record.get("cwd").asString(), fix, Objects.equals(home, launcherHome) ? LAUNCHER_HOME
                        : String.valueOf(home), whole, others));
            } else {
                String path = record.get("path").asString();
                String server = path.split("/")[1];
                HttpSeen seen = http.computeIfAbsent(server, s -> new HttpSeen(new TreeSet<>(), new TreeSet<>(),
                        new TreeMap<>()));
                seen.paths().add(path);
                if (record.get("method").asString().equals("POST")) {
                    seen.posted().add(path);
                }
                record.get("headers").properties().forEach(h -> {
                    if (!CLIENT_HEADERS.contains(h.getKey())) {
                        seen.headers().computeIfAbsent(h.getKey(), k -> new TreeSet<>()).add(h.getValue().asString());
                    }
                });
            }
        }
    }

    // --------------------------------------------------------------------------------- the verdicts

    private static List<String> compare(Run run, ToolView tool, Observed host, String server) {
        List<String> differences = new ArrayList<>(tool.problems().getOrDefault(server, List.of()));
        String name = run.toolName();
        boolean toolStarts = tool.active().contains(server);
        ServerConfig config = host.discovery.configs().get(server);
        Optional<SkippedServer> skipped = host.discovery.skipped().stream().filter(s -> s.name().equals(server))
                .findFirst();
        String hostState = config != null ? "started (" + config.type() + ")"
                : skipped.map(s -> "not started: " + s.reason() + " " + s.detail()).orElse("not found");
        if (!toolStarts) {
            if (config != null) {
                differences.add("started: " + name + ": no (" + tool.status.getOrDefault(server, "not listed")
                        + ") | mcp-host: " + hostState);
            } else if (tool.status.containsKey(server) && skipped.isEmpty()) {
                differences.add("listed: " + name + ": " + tool.status.get(server) + " | mcp-host: not found");
            }
            return differences;
        }
        if (config == null) {
            differences.add("started: " + name + ": yes (" + tool.status.get(server) + ") | mcp-host: " + hostState);
            return differences;
        }
        Launch expected = tool.stdio.get(server);
        HttpSeen expectedHttp = tool.http.get(server);
        if (expected == null && expectedHttp == null) {
            differences.add("the fixture has no launch record of it (regenerate the fixtures)");
            return differences;
        }
        if (expected != null) {
            Launch actual = host.stdio.get(server);
            if (actual == null) {
                differences.add("launch: " + name + ": started it over stdio | mcp-host: no record of a start ("
                        + config.type() + ", error: " + host.errors.getOrDefault(server, "none") + ")");
            } else {
                compareStdio(name, expected, actual, differences);
            }
        }
        if (expectedHttp != null) {
            HttpSeen actual = host.http.get(server);
            if (actual == null) {
                differences.add("requests: " + name + ": " + expectedHttp.paths() + " | mcp-host: none ("
                        + config.type() + ", error: " + host.errors.getOrDefault(server, "none") + ")");
            } else {
                field(differences, "paths", name, expectedHttp.paths(), actual.paths());
                field(differences, "POSTed to (the transport)", name, expectedHttp.posted(), actual.posted());
                Set<String> headers = new TreeSet<>(expectedHttp.headers().keySet());
                headers.addAll(actual.headers().keySet());
                for (String header : headers) {
                    field(differences, "header " + header, name, shown(expectedHttp.headers().get(header)),
                            shown(actual.headers().get(header)));
                }
            }
        }
        Map<String, String> oauth = tool.oauth().get(server);
        if (oauth != null) {
            field(differences, "OAuth client", name, oauth, hostOAuth(config));
        }
        Timeouts timeouts = tool.timeouts.get(server);
        if (timeouts != null) {
            timeouts.connect().ifPresent(d -> field(differences, "connect timeout", name, d, config.timeout()));
            timeouts.request().ifPresent(d -> field(differences, "request timeout", name, d, config.toolCallTimeout()));
        }
        return differences;
    }

    private static void compareStdio(String name, Launch expected, Launch actual, List<String> differences) {
        field(differences, "argv", name, expected.argv(), actual.argv());
        field(differences, "cwd", name, expected.cwd(), actual.cwd());
        field(differences, "HOME", name, expected.home(), actual.home());
        if (expected.wholeEnvironment() != actual.wholeEnvironment()) {
            differences.add("environment: " + name + ": " + environment(expected) + " | mcp-host: "
                    + environment(actual));
        } else if (!expected.wholeEnvironment()) {
            Set<String> extra = minus(actual.otherNames(), expected.otherNames());
            if (!extra.isEmpty()) {
                differences.add("environment: " + name + " passes none of " + extra + " | mcp-host: passes them");
            }
        }
        Set<String> variables = new TreeSet<>(expected.fix().keySet());
        variables.addAll(actual.fix().keySet());
        for (String variable : variables) {
            String value = actual.fix().get(variable);
            boolean inheritedOnlyByMcpHost = !expected.wholeEnvironment() && actual.wholeEnvironment()
                    && !expected.fix().containsKey(variable) && Objects.equals(value, System.getenv(variable));
            if (!inheritedOnlyByMcpHost) { // that one is the "environment" difference already
                field(differences, "env " + variable, name, shown(expected.fix().get(variable)), shown(value));
            }
        }
    }

    private static String environment(Launch launch) {
        return launch.wholeEnvironment() ? "the whole environment (" + PROBE + " inherited)"
                : "a filtered environment, only " + launch.otherNames();
    }

    private static String shown(Object value) {
        return value == null ? "(not set)" : value instanceof Set<?> set && set.size() == 1
                ? String.valueOf(set.iterator().next()) : String.valueOf(value);
    }

    private static void field(List<String> differences, String field, String tool, Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            differences.add(field + ": " + tool + ": " + expected + " | mcp-host: " + actual);
        }
    }

    // ----------------------------------------------------------------------------------- helpers

    private static JsonNode json(String text) {
        return McpJson.mapper().readTree(text);
    }

    private static Map<String, String> strings(JsonNode object) {
        Map<String, String> result = new TreeMap<>();
        object.properties().forEach(e -> result.put(e.getKey(), e.getValue().asString()));
        return result;
    }

    private static List<JsonNode> readRecords(Path file) throws IOException {
        return Files.exists(file) ? readRecords(Files.readString(file)) : List.of();
    }

    private static List<JsonNode> readRecords(String lines) {
        return lines.lines().filter(l -> !l.isBlank()).map(AgentFixturesTest::json).toList();
    }

    /** The recorder's HTTP mode on a free 127.0.0.1 port; {@link #stop} closes its stdin, which ends it. */
    private static final class HttpRecorder implements AutoCloseable {
        final Process process;
        final int port;
        final Path log;

        private HttpRecorder(Process process, int port, Path log) {
            this.process = process;
            this.port = port;
            this.log = log;
        }

        static HttpRecorder start(Path log) throws IOException {
            Files.createDirectories(log.getParent());
            Process process = new ProcessBuilder("node", recorderScript().toString(), "--log", log.toString(),
                    "--http", "0").redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null) {
                process.destroyForcibly();
                throw new IllegalStateException("the HTTP recorder did not start (is node on the PATH?)");
            }
            return new HttpRecorder(process, Integer.parseInt(line.trim()), log);
        }

        List<JsonNode> stop() throws IOException, InterruptedException {
            close();
            return readRecords(log);
        }

        @Override
        public void close() throws IOException {
            if (process.isAlive()) {
                process.getOutputStream().close();
                try {
                    if (!process.waitFor(5, TimeUnit.SECONDS)) {
                        process.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    process.destroyForcibly();
                }
            }
        }
    }
}

package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import mcp.api.McpJson;
import mcp.api.StdioServerConfig;
import mcp.api.ToolDefinition;
import mcp.manager.ClientOptions;
import mcp.manager.McpClient;
import mcp.testkit.TestServers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Claude Code, Codex and Gemini CLI (the versions pinned in {@code interop/agents}) with the gateway as their one
 * server, configured by exactly what {@code mcp-host serve --print-config AGENT} prints: for each agent, a scratch
 * home with mcp-host's own config of three servers (two testkit servers, one with a long name, and the npm reference
 * server-memory) and a disabled fourth, the printed snippet applied as its reader is told to, then one turn of the
 * agent against the recording model endpoint ({@code interop/agents/model-recorder.cjs}, through
 * {@code agent-model.sh}). The tools the agent offered its model must be exactly the gateway's, under the agent's own
 * prefix, each within a model's 64 characters; the agent must have started the gateway once, and the gateway each
 * server once; and once the agent has ended, none of the processes of the turn may be left.
 *
 * <p>Every turn runs in a network namespace of its own where only 127.0.0.1 exists ({@code unshare --net}), as
 * {@code interop/agents/regenerate.sh} runs them: the agents' settings turn their update checks and telemetry off, but
 * nothing in them promises that an agent sends nothing else, so where no namespace can be made the test is skipped
 * rather than run online.
 */
class AgentsThroughGatewayIT {

    private static final Path AGENTS = EraPeer.INTEROP.resolve("agents");
    private static final Path AGENT_BIN = AGENTS.resolve("node_modules/.bin");
    private static final String LONG_NAME = "a-server-whose-name-takes-forty-five-chars-xy";
    private static final int MODEL_NAME_LIMIT = 64;

    /** How each agent names the tools of the server it knows as {@code mcp-host}, before the gateway's name. */
    private static final Map<String, String> PREFIX = Map.of(
            "claude", "mcp__mcp-host__",
            "codex", "mcp__mcp_host__",
            "gemini", "mcp_mcp-host_");

    private static List<String> netns;
    private static Path node;

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();

    @BeforeAll
    static void agentsAndANetworkNamespace() {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "the process checks read /proc (Linux)");
        List<String> missing = Stream.of("claude", "codex", "gemini")
                .filter(agent -> !Files.isExecutable(AGENT_BIN.resolve(agent))).toList();
        Assumptions.assumeTrue(missing.isEmpty(), () -> "the agents' CLIs " + missing + " are not installed in "
                + AGENT_BIN + " (interop/install.sh interop/agents, run by the build before the tests: "
                + installLog() + ")");
        node = onPath("node");
        Assumptions.assumeTrue(node != null, "node is not on the PATH");
        Assumptions.assumeTrue(onPath("ip") != null || Files.isExecutable(Path.of("/usr/sbin/ip"))
                || Files.isExecutable(Path.of("/sbin/ip")), "ip (iproute2) is needed to bring up 127.0.0.1 in the "
                + "agent's network namespace");
        for (List<String> candidate : List.of(List.of("unshare", "--net", "--map-root-user"),
                List.of("unshare", "--net"))) {
            if (succeeds(candidate)) {
                netns = candidate;
                break;
            }
        }
        Assumptions.assumeTrue(netns != null, "an agent turn runs offline in a network namespace of its own, and "
                + "`unshare --net` is not permitted here (enable unprivileged user namespaces, or run as root)");
        Assumptions.assumeTrue(Files.isRegularFile(memoryServer()), "the npm reference servers are not installed in "
                + EraPeer.INTEROP + " (interop/install.sh)");
    }

    @AfterEach
    void closeClients() throws InterruptedException {
        EraPeer.closeAndAssertNoChildLeft(clients);
    }

    @ParameterizedTest
    @ValueSource(strings = {"claude", "codex", "gemini"})
    void theAgentOffersItsModelExactlyTheGatewaysToolsAndLeavesNoProcess(String agent) throws Exception {
        Path home = Files.createDirectories(temp.resolve("home"));
        Path work = Files.createDirectories(temp.resolve("work"));
        Path pids = temp.resolve("pids");
        Map<String, String> xdg = xdg(home);

        // mcp-host's own servers, written by its own command. Each starts through a shell that notes its process id
        // and its parent's (the gateway's) before it becomes the server.
        List<String> noted = List.of("sh", "-c", "echo \"$$ $PPID\" >>\"$PIDS\"; exec \"$@\"", "sh");
        add(home, xdg, "alpha", List.of("--env", "PIDS=" + pids), concat(noted, TestServers.command()));
        add(home, xdg, LONG_NAME, List.of("--env", "PIDS=" + pids), concat(noted, TestServers.command()));
        add(home, xdg, "memory", List.of("--env", "PIDS=" + pids, "--env", "MEMORY_FILE_PATH=" + temp.resolve(
                "memory.jsonl")), concat(noted, List.of(node.toString(), memoryServer().toString())));
        add(home, xdg, "dormant", List.of("--disabled", "--env", "PIDS=" + pids), concat(noted,
                TestServers.command()));

        Cli.Run printed = Cli.run(home, work, xdg, "serve", "--print-config", agent);
        assertEquals(0, printed.exitCode(), printed.toString());
        String launcher = Cli.IMAGE.resolve("bin/mcp-host").toString();
        assertTrue(printed.out().contains(launcher), "the snippet names the image's launcher: " + printed);
        // A user who has run mcp-host before: its tool cache is filled, so the gateway answers at its startup gate
        // while the servers connect. (On the very first start it waits up to its uncached wait, 10 s, for servers
        // it knows nothing of: as long as Codex's default startup timeout, and on a loaded machine longer than the
        // agents waited here.)
        Cli.Run warm = Cli.run(home, work, xdg, "tools");
        assertEquals(0, warm.exitCode(), warm.toString());
        Files.deleteIfExists(pids);
        Map<String, String> agentEnv = agentEnvironment(home, xdg);
        List<String> turn = apply(agent, printed.out(), home, work, agentEnv);

        Path log = temp.resolve("model.jsonl");
        List<String> command = new ArrayList<>(netns);
        command.addAll(List.of(AGENTS.resolve("agent-model.sh").toString(), log.toString(), "-", work.toString()));
        agentEnv.forEach((name, value) -> command.add(name + "=" + value));
        command.add("--");
        command.addAll(turn);
        Cli.Run ran = Cli.exec(command, home, work, Map.of());
        assertEquals(0, ran.exitCode(), ran.toString());
        assertTrue(Files.isRegularFile(log), agent + " sent its model no request that offered tools; " + ran);

        // The processes of the turn: the agent's serve started the user's shared gateway once, the gateway each
        // enabled server once; the gateway runs on for the next agent until it is stopped, and then none of them,
        // nor anything else that ran with this home, is left.
        Map<Long, List<Long>> byGateway = new TreeMap<>();
        for (String line : Files.readAllLines(pids)) {
            String[] ids = line.strip().split(" ");
            byGateway.computeIfAbsent(Long.parseLong(ids[1]), k -> new ArrayList<>()).add(Long.parseLong(ids[0]));
        }
        assertEquals(1, byGateway.size(), agent + " started the gateway once: " + byGateway);
        assertEquals(3, byGateway.values().iterator().next().size(), "one process per enabled server: " + byGateway);
        Set<Long> started = new TreeSet<>(byGateway.keySet());
        byGateway.values().forEach(started::addAll);

        // The gateway's tools, as a client of its own sees them (attached to the same shared gateway).
        McpClient gateway = EraPeer.connect("gateway", StdioServerConfig.of(launcher, List.of("serve", "--stdio"))
                .withEnv(withHome(home, xdg)), ClientOptions.builder("gateway"), temp, clients);
        Set<String> exposed = gateway.listToolsBlocking().stream().map(ToolDefinition::name)
                .collect(Collectors.toCollection(TreeSet::new));
        JsonNode hostTools = Cli.run(home, work, xdg, "tools", "--json").json();
        assertEquals(count(hostTools), exposed.size(), "the gateway serves every tool of the host: " + exposed);
        assertTrue(exposed.containsAll(Set.of("alpha_echo", "memory_read_graph")), exposed.toString());
        assertFalse(exposed.stream().anyMatch(name -> name.startsWith("dormant")), exposed.toString());

        Set<String> expected = exposed.stream().map(name -> PREFIX.get(agent) + name)
                .collect(Collectors.toCollection(TreeSet::new));
        List<String> records = Files.readAllLines(log).stream().filter(line -> !line.isBlank()).toList();
        assertFalse(records.isEmpty(), agent + " recorded no model request");
        for (String record : records) {
            Set<String> offered = offered(McpJson.mapper().readTree(record));
            assertEquals(expected, offered, agent + " offered its model exactly the gateway's tools");
            List<String> tooLong = offered.stream().filter(name -> name.length() > MODEL_NAME_LIMIT).toList();
            assertEquals(List.of(), tooLong, "every name within " + MODEL_NAME_LIMIT + " characters");
        }
        EraPeer.closeAndAssertNoChildLeft(clients);
        clients.clear();
        Cli.Run stopped = Cli.run(home, work, xdg, "serve", "--stop");
        assertTrue(stopped.err().contains("the shared gateway is ending"), stopped.toString());
        assertNothingLeft(started, home);
    }

    /**
     * Applies the snippet as its first line tells its reader to, and gives the agent's one turn.
     *
     * @return the agent's command line, {@code @MODEL@} standing for the recording endpoint
     */
    private static List<String> apply(String agent, String snippet, Path home, Path work, Map<String, String> env)
            throws IOException {
        String body = snippet.lines().filter(line -> !line.startsWith("#")).collect(Collectors.joining("\n")) + "\n";
        switch (agent) {
            case "claude" -> {
                // "run this": the printed command, run by a shell with the agent's environment.
                Cli.Run run = Cli.exec(List.of("env", "-i", "PATH=" + env.get("PATH"), "HOME=" + home,
                        "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
                        "sh", "-c", body), home, work, Map.of());
                assertEquals(0, run.exitCode(), "the printed command: " + run);
                return List.of("claude", "-p", "Use your tools.");
            }
            case "codex" -> {
                // "add to ~/.codex/config.toml": after the settings the user already has.
                Path config = Files.createDirectories(home.resolve(".codex")).resolve("config.toml");
                Files.writeString(config, "# The user's own settings.\nmodel_reasoning_effort = \"low\"\n\n" + body);
                return List.of("codex", "exec", "--skip-git-repo-check", "-c", "model_provider=fixture", "-c",
                        "model_providers.fixture={name=\"fixture\",base_url=\"@MODEL@/v1\",wire_api=\"responses\","
                                + "request_max_retries=0,stream_max_retries=0}", "-m", "fixture-model",
                        "Use your tools.");
            }
            case "gemini" -> {
                // "add to ~/.gemini/settings.json": merged into the settings the user already has, here the choice
                // of its auth dialog; and the folder trusted as its trust dialog writes it (headless Gemini CLI
                // refuses to run in a folder it does not trust).
                Path dir = Files.createDirectories(home.resolve(".gemini"));
                ObjectNode settings = McpJson.object();
                settings.putObject("security").putObject("auth").put("selectedType", "gemini-api-key");
                settings.setAll((ObjectNode) McpJson.mapper().readTree(body));
                Files.writeString(dir.resolve("settings.json"), settings.toPrettyString());
                Files.writeString(dir.resolve("trustedFolders.json"),
                        McpJson.object().put(work.toString(), "TRUST_FOLDER").toPrettyString());
                // --yolo: in headless mode Gemini CLI offers only the tools it may run without asking, and the
                // entry leaves trust to the user.
                return List.of("gemini", "-m", "gemini-2.5-pro", "--yolo", "-p", "Use your tools.");
            }
            default -> throw new IllegalArgumentException(agent);
        }
    }

    /** The MCP tools of one model request, as the recorder wrote them down: Claude Code's deferred ones too. */
    private static Set<String> offered(JsonNode record) {
        Set<String> names = new TreeSet<>();
        record.path("tools").forEach(name -> names.add(name.asString()));
        record.path("deferred").forEach(name -> names.add(name.asString()));
        return names;
    }

    private static int count(JsonNode tools) {
        JsonNode list = tools.isArray() ? tools : tools.path("tools");
        assertTrue(list.isArray() && list.size() > 0, "mcp-host tools --json: " + tools);
        return list.size();
    }

    /**
     * Waits (15 s at most) until none of the noted processes is alive and no process runs with this home: what the
     * agent started, the gateway and its servers.
     */
    private static void assertNothingLeft(Set<Long> noted, Path home) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            List<Long> alive = noted.stream().filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive)
                    .orElse(false)).toList();
            List<String> withHome = withThisHome(home);
            if (alive.isEmpty() && withHome.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("processes outlived the agent: " + alive + " " + withHome);
            }
            Thread.sleep(100);
        }
    }

    /** The processes whose environment says HOME is this home, as "pid command line". */
    private static List<String> withThisHome(Path home) {
        // One NUL-terminated entry of the environment, whole: "\0HOME=<home>\0" in the environment after a NUL.
        byte[] wanted = ("\0HOME=" + home + "\0").getBytes(StandardCharsets.UTF_8);
        List<String> found = new ArrayList<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path entry : entries.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    byte[] environ = concat(new byte[] {0}, Files.readAllBytes(entry.resolve("environ")));
                    if (contains(environ, wanted)) {
                        String cmdline = new String(Files.readAllBytes(entry.resolve("cmdline")), StandardCharsets.UTF_8)
                                .replace('\0', ' ').strip();
                        found.add(entry.getFileName() + " " + cmdline);
                    }
                } catch (IOException | SecurityException e) {
                    // Gone meanwhile, or another user's: neither is ours.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> both = new ArrayList<>(a);
        both.addAll(b);
        return both;
    }

    private static void add(Path home, Map<String, String> xdg, String name, List<String> options,
            List<String> command) {
        List<String> args = new ArrayList<>(List.of("add"));
        args.addAll(options);
        args.add(name);
        args.add("--");
        args.addAll(command);
        Cli.Run run = Cli.run(home, home, xdg, args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run.toString());
    }

    /** The XDG base directories, in the scratch home: none of the machine's. */
    private static Map<String, String> xdg(Path home) throws IOException {
        Map<String, String> xdg = new LinkedHashMap<>();
        xdg.put("XDG_CONFIG_HOME", Files.createDirectories(home.resolve(".config")).toString());
        xdg.put("XDG_CACHE_HOME", Files.createDirectories(home.resolve(".cache")).toString());
        xdg.put("XDG_STATE_HOME", Files.createDirectories(home.resolve(".local/state")).toString());
        xdg.put("XDG_DATA_HOME", Files.createDirectories(home.resolve(".local/share")).toString());
        return xdg;
    }

    private static Map<String, String> withHome(Path home, Map<String, String> xdg) {
        Map<String, String> env = new LinkedHashMap<>(xdg);
        env.put("HOME", home.toString());
        return env;
    }

    /** All the agent's environment ({@code agent-model.sh} starts it with nothing else): offline, no updates. */
    private static Map<String, String> agentEnvironment(Path home, Map<String, String> xdg) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", AGENT_BIN + ":" + node.getParent() + ":/usr/bin:/bin");
        env.putAll(withHome(home, xdg));
        env.put("USER", "agent");
        env.put("LANG", "C.UTF-8");
        env.put("DISABLE_AUTOUPDATER", "1");
        env.put("DISABLE_TELEMETRY", "1");
        env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
        // Claude Code's wait for its servers' connect (ms): on a machine busy with a build the gateway's JVM and
        // its first answer can take longer than Claude Code's default.
        env.put("MCP_TIMEOUT", "60000");
        env.put("ANTHROPIC_BASE_URL", "@MODEL@");
        env.put("ANTHROPIC_API_KEY", "sk-ant-fixture");
        env.put("GOOGLE_GEMINI_BASE_URL", "@MODEL@");
        env.put("GEMINI_API_KEY", "fixture");
        return env;
    }

    private static Path memoryServer() {
        return EraPeer.INTEROP.resolve("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    }

    private static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                return Path.of(dir, name);
            }
        }
        return null;
    }

    private static boolean succeeds(List<String> command) {
        List<String> full = concat(command, List.of("true"));
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return false;
            }
            return process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String installLog() {
        Path log = Path.of(System.getProperty("mcp.agents.install.log", "target/agents-install.log"));
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "no log at " + log;
        }
    }
}

package mcp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
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

    private static final String LONG_NAME = "a-server-whose-name-takes-forty-five-chars-xy";
    private static final int MODEL_NAME_LIMIT = 64;

    private static AgentTurns.Runtime runtime;

    @TempDir
    Path temp;

    private final List<McpClient> clients = new ArrayList<>();

    @BeforeAll
    static void agentsAndANetworkNamespace() {
        runtime = AgentTurns.assumeAgentsCanRun();
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
        Map<String, String> xdg = AgentTurns.xdg(home);

        // mcp-host's own servers, written by its own command. Each starts through a shell that notes its process id
        // and its parent's (the gateway's) before it becomes the server.
        List<String> noted = List.of("sh", "-c", "echo \"$$ $PPID\" >>\"$PIDS\"; exec \"$@\"", "sh");
        add(home, xdg, "alpha", List.of("--env", "PIDS=" + pids), concat(noted, TestServers.command()));
        add(home, xdg, LONG_NAME, List.of("--env", "PIDS=" + pids), concat(noted, TestServers.command()));
        add(home, xdg, "memory", List.of("--env", "PIDS=" + pids, "--env", "MEMORY_FILE_PATH=" + temp.resolve(
                "memory.jsonl")), concat(noted, List.of(runtime.node().toString(), memoryServer().toString())));
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
        Map<String, String> agentEnv = AgentTurns.agentEnvironment(runtime, home, xdg);
        List<String> turn = apply(agent, printed.out(), home, work, agentEnv);

        Path log = temp.resolve("model.jsonl");
        Cli.Run ran = AgentTurns.turn(runtime, log, work, agentEnv, turn, home);
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
                .withEnv(AgentTurns.withHome(home, xdg)), ClientOptions.builder("gateway"), temp, clients);
        Set<String> exposed = gateway.listToolsBlocking().stream().map(ToolDefinition::name)
                .collect(Collectors.toCollection(TreeSet::new));
        JsonNode hostTools = Cli.run(home, work, xdg, "tools", "--json").json();
        assertEquals(count(hostTools), exposed.size(), "the gateway serves every tool of the host: " + exposed);
        assertTrue(exposed.containsAll(Set.of("alpha_echo", "memory_read_graph")), exposed.toString());
        assertFalse(exposed.stream().anyMatch(name -> name.startsWith("dormant")), exposed.toString());

        Set<String> expected = exposed.stream().map(name -> AgentTurns.PREFIX.get(agent) + name)
                .collect(Collectors.toCollection(TreeSet::new));
        List<String> records = Files.readAllLines(log).stream().filter(line -> !line.isBlank()).toList();
        assertFalse(records.isEmpty(), agent + " recorded no model request");
        Path gatewayLog = home.resolve(".local/state/mcp-host/serve-shared.log");
        String told = "; the agent's turn: " + ran + "; the gateway's log: "
                + (Files.isRegularFile(gatewayLog) ? Files.readString(gatewayLog) : "none");
        for (String record : records) {
            Set<String> offered = AgentTurns.offered(McpJson.mapper().readTree(record));
            assertEquals(expected, offered, agent + " offered its model exactly the gateway's tools" + told);
            List<String> tooLong = offered.stream().filter(name -> name.length() > MODEL_NAME_LIMIT).toList();
            assertEquals(List.of(), tooLong, "every name within " + MODEL_NAME_LIMIT + " characters");
        }
        EraPeer.closeAndAssertNoChildLeft(clients);
        clients.clear();
        Cli.Run stopped = Cli.run(home, work, xdg, "serve", "--stop");
        assertTrue(stopped.err().contains("the shared gateway is ending"), stopped.toString());
        AgentTurns.assertNothingLeft(started, home);
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
                return AgentTurns.command(agent);
            }
            case "codex" -> {
                // "add to ~/.codex/config.toml": after the settings the user already has.
                Path config = Files.createDirectories(home.resolve(".codex")).resolve("config.toml");
                Files.writeString(config, "# The user's own settings.\nmodel_reasoning_effort = \"low\"\n\n" + body);
                return AgentTurns.command(agent);
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
                // --yolo (in the command): the entry leaves trust to the user.
                return AgentTurns.command(agent);
            }
            default -> throw new IllegalArgumentException(agent);
        }
    }

    private static int count(JsonNode tools) {
        JsonNode list = tools.isArray() ? tools : tools.path("tools");
        assertTrue(list.isArray() && list.size() > 0, "mcp-host tools --json: " + tools);
        return list.size();
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

    private static Path memoryServer() {
        return EraPeer.INTEROP.resolve("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    }
}
